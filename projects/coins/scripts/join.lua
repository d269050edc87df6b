-- The join handler (scripts/main.lua gives it to net.on_join): player N gets
-- a runner at spawnN, round the four corners. It returns the runner, whose
-- commands are then that player's. Offline, the local player joins here as
-- player 1.
return function(player)
  local spawn = vkm.find("spawn" .. ((player - 1) % 4 + 1))
  local x, y = spawn:position()
  return spawn:spawn("prefabs/runner.toml", x, y)
end
