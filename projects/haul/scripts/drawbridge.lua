-- The drawbridge: a plank on a revolute joint named "hinge" at its left
-- end, with limits from lying down (0) to standing up (1.5 rad). Its motor
-- raises it unless a worker stands on its plate, which lets it down. As
-- with the crane, the motor is set on every end from the plate's
-- replicated state.
--
-- Props: plate, the plate's name; lower and raise, the motor's speeds
-- (rad/s, counter-clockwise: raising is positive).

local Drawbridge = {}

function Drawbridge:on_fixed_update(dt)
  local plate = vkm.find(self.plate or "bridge_plate")
  local hinge = self:joint("hinge")
  if not plate or not hinge then return end
  if plate:get("Plate", "down") then
    hinge:set_motor_speed(self.lower or -1.2)
  else
    hinge:set_motor_speed(self.raise or 0.8)
  end
end

-- A cart or a worker on the bridge pulls on its hinge: the reaction force
-- is the weight the hinge carries, which a game could break the bridge on
-- (here it only shows, as an event, when the load changes a lot).
function Drawbridge:on_update(dt)
  local hinge = self:joint("hinge")
  if not hinge then return end
  local fx, fy = hinge:reaction_force()
  local load = math.sqrt(fx * fx + fy * fy)
  if self.load and math.abs(load - self.load) > 150 then
    local x, y = self:position()
    self:emit("creak", { x = x, y = y, load = load })
  end
  self.load = load
end

return Drawbridge
