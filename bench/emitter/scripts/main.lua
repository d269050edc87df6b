-- One behavior that emits 200 events a tick, each with a few fields, as a
-- busy game's shots and sparks would.
local Chatter = {}

function Chatter:on_fixed_update(dt)
  local t = vkm.tick()
  for i = 1, 200 do
    self:emit("spark", { n = i, tick = t, x = i * 0.5, y = -i * 0.25, big = i % 2 == 0 })
  end
end

function vkmRegisterBehaviors(r)
  r.chatter = Chatter
end

function vkmSetupNetwork(net)
  net.on_join(function(player)
    return nil -- a measuring world: nobody plays
  end)
end
