-- The depot: a sensor on the far bank. A cart rolling into it is counted
-- (the Haul component's delivered, which the scoreboard shows) and sent
-- back to the start for the next haul.
--
-- on_contact runs on the ends that simulate the depot: a static sensor is
-- simulated on the server (and offline) only, so only the server counts,
-- and every client learns the count from the Haul component. It runs once
-- for each begin and each end of a touch of two shapes: the cart has three
-- (its bed and two sides), each touching the depot on its own, so the
-- cart is counted when its bed, shape 1, comes in.

local Depot = {}

function Depot:on_contact(other, info)
  if not info.begin or not other:alive() or other:name() ~= "cart" or info.other_shape ~= 1 then return end
  self:set("Haul", "delivered", self:get("Haul", "delivered") + 1)
  local x, y = self:position()
  self:emit("delivered", { x = x, y = y, count = self:get("Haul", "delivered") })
  -- The cart's own behavior knows how to move its three bodies at once.
  other:back_to_start()
end

return Depot
