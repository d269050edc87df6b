-- The join handler (scripts/main.lua gives it to net.on_join): player N
-- gets a character at spawnN, round the yard's four spawn points. It
-- returns the character, whose commands are then that player's; nil would
-- turn the player away. Offline, the local player joins here as player 1.
return function(player)
  local spawn = vkm.find("spawn" .. ((player - 1) % 4 + 1))
  local x, y = spawn:position()
  return spawn:spawn("prefabs/player.toml", x, y)
end
