-- The arena's join handler (scripts/main.lua gives it to net.on_join): each
-- joining player gets a character at one of the four spawn points. It
-- returns the character's entity, or nil to turn the player away. Player 1
-- is the local player when the game is played offline.
return function(player)
  local spawn = vkm.find("spawn" .. ((player - 1) % 4 + 1))
  local x, y = spawn:position()
  return spawn:spawn("prefabs/player.toml", x, y)
end
