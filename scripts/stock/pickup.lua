-- Stock behavior "pickup" (vkm.stock("pickup")): a health pack. The first
-- character with Health above 0 to touch it is healed (prop heal, default
-- 25, up to 100) and the pack is gone; an event "pickup" says where and who.

local Pickup = {}

function Pickup:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  for _, other in ipairs(self:touching()) do
    if other:has("Health") and other:get("Health", "hp") > 0 then
      local hp = math.min(100, other:get("Health", "hp") + (self.heal or 25))
      other:set("Health", "hp", hp)
      if not self:is_replaying() then
        local x, y = self:position()
        self:emit("pickup", { x = x, y = y, by = other:id() })
      end
      self:destroy()
      return
    end
  end
end

return Pickup
