-- The runner runs where its command's axis says.
local Runner = {}

function Runner:on_fixed_update(dt)
  self:move(self:command().axis.run)
end

function vkmRegisterBehaviors(r)
  r.runner = Runner
end

function vkmSetupNetwork(net)
  net.on_join(function(player)
    return net.spawn("prefabs/player.toml", -14 + 2 * player, 0.81)
  end)
end
