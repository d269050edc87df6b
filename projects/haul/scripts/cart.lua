-- The cart: a chassis on two wheels (wheel joints in scenes/works.toml).
-- It goes back to where it started when it falls into the chasm or the
-- moat, or when the depot takes it (Cart:back_to_start, called from
-- scripts/depot.lua), and rattles when it hits something hard.
--
-- The cart is three bodies held by two joints; moving it is moving all
-- three by the same step, found through the chassis's joints, so that no
-- joint is wrenched apart by a teleport.

local FALLEN = -6 -- below this height the cart has fallen in (m)
local THUD = 6 -- a hit closing faster than this rattles (m/s)

local Cart = {}

function Cart:on_start()
  -- Where the cart starts, on every end (the scene's pose, before anything
  -- moved it): the same numbers everywhere, so a reset lands alike.
  self.home_x, self.home_y = self:position()
end

function Cart:on_fixed_update(dt)
  -- Only the end that simulates the cart moves it: the server, and a
  -- client towing or pushing it (it leases the cart and predicts the same
  -- reset the server makes).
  if not self:is_simulated() then return end
  local _, y = self:position()
  if y < FALLEN then
    self:back_to_start()
  end
end

-- back_to_start moves the chassis and everything jointed to it back to the
-- start, at rest.
function Cart:back_to_start()
  local x, y = self:position()
  local dx, dy = self.home_x - x, self.home_y - y
  local parts = { self }
  for _, j in ipairs(self:joints()) do
    local a, b = j:bodies()
    local other = (a == self) and b or a
    -- The wheels; not a worker's tow rope, which the worker unties (a
    -- handle to an entity with a behavior answers its methods).
    if j:kind() == "wheel" then
      parts[#parts + 1] = other
    elseif j:name() == "tow" and other.untie then
      other:untie()
    end
  end
  for _, p in ipairs(parts) do
    local px, py = p:position()
    p:set_position(px + dx, py + dy)
    p:set_angle(0)
    p:set_velocity(0, 0)
    p:set_angular_velocity(0)
  end
end

-- on_contact runs after the physics step, on the ends that simulate the
-- cart, never during a replay: presentation, and a hard hit's sound.
function Cart:on_contact(other, info)
  if info.begin and not info.sensor and info.speed > THUD then
    self:emit("thud", { x = info.x, y = info.y, speed = info.speed })
  end
end

return Cart
