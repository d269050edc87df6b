-- A spinner goes round a circle about the point one radius to the left of
-- where it was spawned, and spins at the circle's angular speed, as a body
-- carried round on a turntable does. Its radius (1 to 7 m) and angular
-- speed (0.5 to 1.5 rad/s) come from its slot, spread so that neighbours
-- differ. It steers by velocity, as a scripted mover usually does: each
-- tick it sets the velocity that carries it to the next point of its
-- circle, and the angular velocity it turns at.
local Spinner = {}

function Spinner:on_start()
  local id = self:id()
  self.radius = 1 + (id * 37 % 61) / 10
  self.w = 0.5 + (id * 53 % 101) / 100 -- radians a second
  local x, y = self:position()
  self.cx, self.cy = x - self.radius, y
  self.t0 = vkm.tick()
end

function Spinner:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local a = self.w * (vkm.tick() - self.t0 + 1) * dt
  local tx = self.cx + self.radius * math.cos(a)
  local ty = self.cy + self.radius * math.sin(a)
  local x, y = self:position()
  self:set_velocity((tx - x) / dt, (ty - y) / dt)
  self:set_angular_velocity(self.w)
end

return Spinner
