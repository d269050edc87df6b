-- A variation of the spinner that bench/spin's figures were not tuned on,
-- for bench/load.sh's wobble50-4 row (it replaces spinner.lua in a copy
-- of bench/spin). A wobbler goes round a Lissajous figure, x at its
-- angular speed w and y at twice it (half-widths 1 to 6 m and 0.5 to
-- 3 m), and spins at a rate that itself swings between −2w and 3w: neither
-- its velocity's turn nor its angular velocity is steady, where a
-- spinner's both are. Its slot spreads its sizes and speed as a
-- spinner's does.
local Wobbler = {}

function Wobbler:on_start()
  local id = self:id()
  self.ax = 1 + (id * 37 % 51) / 10
  self.ay = 0.5 + (id * 17 % 26) / 10
  self.w = 0.4 + (id * 53 % 101) / 100 -- radians a second
  local x, y = self:position()
  self.cx, self.cy = x, y
  self.t0 = vkm.tick()
end

function Wobbler:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local t = (vkm.tick() - self.t0 + 1) * dt
  local tx = self.cx + self.ax * math.sin(self.w * t)
  local ty = self.cy + self.ay * math.sin(2 * self.w * t)
  local x, y = self:position()
  self:set_velocity((tx - x) / dt, (ty - y) / dt)
  self:set_angular_velocity(self.w * (0.5 + 2.5 * math.sin(0.7 * self.w * t)))
end

return Wobbler
