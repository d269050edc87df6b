-- The mover steers its character with the two axes of its command.
local Mover = {}

function Mover:on_fixed_update(dt)
  local c = self:command()
  if c then
    self:move(c.axis.move_x, c.axis.move_y)
  end
end

function vkmRegisterBehaviors(r)
  r.mover = Mover
end

function vkmSetupNetwork(net)
  net.on_join(function(player)
    return net.spawn("prefabs/player.toml", -4 + 2 * player, -4)
  end)
end
