-- The crowd's join handler, in place of the arena's scripts/join.lua: the
-- arena's entry script (which this project reads through extends) gives it
-- to net.on_join. Player n takes spawn point (n - 1) % 16 + 1, at one of
-- four places side by side there, so sixty-four characters start apart.

local SPAWNS = 16 -- spawn1 .. spawn16, two on each ledge
local SPACING = 1.0 -- metres between the four players a spawn point takes

return function(player)
  local i = (player - 1) % (SPAWNS * 4)
  local spawn = vkm.find("spawn" .. (i % SPAWNS + 1))
  local x, y = spawn:position()
  local place = math.floor(i / SPAWNS)
  return spawn:spawn("prefabs/player.toml", x + (place - 1.5) * SPACING, y)
end
