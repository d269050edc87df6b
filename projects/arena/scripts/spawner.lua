-- Puts pickups into the world: the engine's stock spawner (one every
-- `every` seconds at a free point, while fewer than `most` are out).
return vkm.stock("spawner")
