-- The crane's boom: a body on a revolute joint named "boom" (scenes/
-- works.toml) whose motor this behavior drives, lifting the block hanging
-- from the boom's end while a worker stands on the crane's plate and
-- letting it down otherwise.
--
-- It runs on every end, simulated or not, and sets the motor from the
-- plate's replicated state rather than from anything only the server
-- knows: the joint exists on every end, and a client that leases the
-- boom's island (a worker pushing the block) must drive it as the server
-- does. Setting a joint to what it already is changes nothing, so doing it
-- every tick costs nothing.
--
-- Props: plate, the plate's name; lift and drop, the motor's speed while
-- the plate is down and while it is up (rad/s; see the joint's comment in
-- the scene for which way is up).

local Crane = {}

function Crane:on_fixed_update(dt)
  local plate = vkm.find(self.plate or "crane_plate")
  local boom = self:joint("boom")
  if not plate or not boom then return end
  if plate:get("Plate", "down") then
    boom:set_motor_speed(self.lift or 0.5)
  else
    boom:set_motor_speed(self.drop or -0.3)
  end
end

return Crane
