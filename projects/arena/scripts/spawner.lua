-- The spawner: puts health packs into the world. Every `every` seconds,
-- while fewer than `most` packs are out, it spawns one at a random free
-- point of its list. It is an entity of the scene with no body: the
-- "pickups" entity of scenes/arena.toml, whose props say what and where.
--
-- Props (the scene entity's `props`, fields of self before on_start):
--   prefab  the file to spawn, e.g. "prefabs/pickup.toml"
--   points  where packs may stand: a list of {x, y}
--   every   seconds between two spawns
--   most    how many may be out at once

local Spawner = {}

-- on_start runs once, when the scene is built.
function Spawner:on_start()
  self.wait = 0 -- seconds until the next spawn; the first comes at once
  self.out = {} -- point index -> the pack standing there
end

-- on_fixed_update runs every tick.
function Spawner:on_fixed_update(dt)
  -- is_simulated: only the end that owns the world spawns, the server (or
  -- an offline game). A client is told of each new pack in the server's
  -- snapshots and builds it in the same slots; a client may not spawn at
  -- all, since the server names every entity. On a client the spawner is
  -- not simulated, so it does nothing there.
  if not self:is_simulated() then
    return
  end
  -- The clock runs down first: until it has, nothing else needs looking
  -- at. Once it has run out it stays at or below 0 until the next spawn
  -- sets it again, so a spawner waiting for a free point does not count
  -- down for nothing.
  if self.wait > 0 then
    self.wait = self.wait - dt
    if self.wait > 0 then
      return
    end
  end
  -- Count the packs still out; a collected one (destroyed by
  -- scripts/pickup.lua) frees its point.
  local out, points = self.out, self.points
  local count = 0
  for i = 1, #points do
    local p = out[i]
    if p and not p:alive() then
      out[i] = nil
    elseif p then
      count = count + 1
    end
  end
  if count >= self.most then
    return
  end
  self.wait = self.every
  -- A random free point. math.random is deterministic in vkm (the same
  -- rolls for the same entity and tick on every end), which keeps a
  -- recorded game or a test repeatable.
  local free = {}
  for i = 1, #self.points do
    if not self.out[i] then
      free[#free + 1] = i
    end
  end
  local i = free[math.random(#free)]
  local pt = self.points[i]
  self.out[i] = self:spawn(self.prefab, pt[1], pt[2])
end

return Spawner
