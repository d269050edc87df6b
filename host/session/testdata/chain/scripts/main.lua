-- The runner runs where its command's axis says, and tells of each touch
-- it begins or ends (on_contact), for the tests to count on each end.
local Runner = {}

function Runner:on_fixed_update(dt)
  self:move(self:command().axis.run)
end

function Runner:on_contact(other, info)
  self:emit("contact", { other = other:name(), begin = info.begin, replaying = self:is_replaying() })
end

function vkmRegisterBehaviors(r)
  r.runner = Runner
end

function vkmSetupNetwork(net)
  net.on_join(function(player)
    return net.spawn("prefabs/player.toml", -14 + 2 * player, 0.81)
  end)
end
