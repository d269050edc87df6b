-- The gunner (hovering: the range has no gravity) fires a hitscan shot along its aim axes, judged against what
-- its player saw; a hit counts on the target's Hits.
local Gunner = {}

function Gunner:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local c = self:command()
  if not c then
    return
  end
  -- A roll every tick: a client predicting this entity must roll what the
  -- server rolls for the same command.
  self:set("Roll", "r", math.random(0, 1000))
  self:move(c.axis.run)
  if c.pressed.fire then
    local x, y = self:position()
    local dx, dy = c.axis.aim_x, c.axis.aim_y
    local hit = net.rewind(function()
      return self:raycast(x, y, x + dx * 40, y + dy * 40)
    end)
    local target = hit and hit.entity
    if target and target:has("Hits") then
      target:set("Hits", "n", target:get("Hits", "n") + 1)
    end
  end
end

function vkmRegisterBehaviors(r)
  r.gunner = Gunner
end

function vkmSetupNetwork(net)
  net.component("Hits", { { "n", net.int(0, 1000) } })
  net.component("Roll", { { "r", net.int(0, 1000) } })
  net.on_join(function(player)
    if player == 1 then
      return net.spawn("prefabs/player.toml", 0.5, 12)
    end
    return net.spawn("prefabs/player.toml", -15, 1.1)
  end)
end
