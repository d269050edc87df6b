-- Stock behavior "spawner" (vkm.stock("spawner")): puts prefabs into the
-- world, one every `every` seconds at a free point of `points` (a list of
-- {x, y}), while fewer than `most` are out; `prefab` names the file. Only
-- the end that simulates the spawner (the server, or an offline game)
-- spawns; clients are told.

local Spawner = {}

function Spawner:on_start()
  self.wait = 0
  self.out = {} -- point index -> the pickup standing there
end

function Spawner:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local count = 0
  for i = 1, #self.points do
    local p = self.out[i]
    if p and not p:alive() then
      self.out[i] = nil
    elseif p then
      count = count + 1
    end
  end
  self.wait = self.wait - dt
  if self.wait > 0 or count >= self.most then
    return
  end
  self.wait = self.every
  -- a random free point
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
