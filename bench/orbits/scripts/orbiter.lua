-- An orbiter goes round a circle of `radius` metres about the point one
-- radius to the left of where it was spawned, at an angular speed that
-- depends on its slot, so neighbours drift in and out of step. It steers by
-- velocity, the way a scripted mover usually does: each tick it sets the
-- velocity that carries it to the next point of its circle.
local Orbiter = {}

function Orbiter:on_start()
  local x, y = self:position()
  self.cx, self.cy = x - self.radius, y
  self.w = 0.5 + (self:id() % 7) * 0.1 -- radians a second
  self.t0 = vkm.tick()
end

function Orbiter:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local a = self.w * (vkm.tick() - self.t0 + 1) * dt
  local tx = self.cx + self.radius * math.cos(a)
  local ty = self.cy + self.radius * math.sin(a)
  local x, y = self:position()
  self:set_velocity((tx - x) / dt, (ty - y) / dt)
end

return Orbiter
