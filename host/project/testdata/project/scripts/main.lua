-- The test project's entry script: registers nothing.
function vkmRegisterBehaviors(r) end
