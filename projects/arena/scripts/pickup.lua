-- A health pack: the engine's stock pickup (the first character to touch it
-- is healed and it is gone).
return vkm.stock("pickup")
