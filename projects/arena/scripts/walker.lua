-- The player's character: the engine's stock walker (runs, jumps, aims,
-- fires a hitscan shot, respawns at spawn1..spawn4). Its props are set on
-- the player prefab.
return vkm.stock("walker")
