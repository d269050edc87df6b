-- The pickup: a health pack. The first living character to touch it is
-- healed and the pack is gone. The spawner (scripts/spawner.lua) puts packs
-- into the world from prefabs/pickup.toml, whose body is a sensor: it
-- reports what touches it without stopping anything.
--
-- Props (prefabs/pickup.toml's `props`, fields of self before on_start):
--   heal  hit points a pack gives back, up to 100       25

local HEAL = 25

local Pickup = {}

-- on_fixed_update runs every tick.
function Pickup:on_fixed_update(dt)
  -- is_simulated: the server decides who got the pack, and tells every
  -- client (the character's Health, and the pack's removal, come in its
  -- snapshots). On a client a pack is not simulated, so nothing here runs
  -- there: two players touching the same pack in the same tick cannot
  -- both be healed by their own clients' guesses. Offline this end is the
  -- server, and the pack is simulated.
  if not self:is_simulated() then
    return
  end
  -- touching lists what this pack's sensor overlaps, in slot order (the same on
  -- every end); characters are the ones with a Health component.
  for _, other in ipairs(self:touching()) do
    if other:has("Health") and other:get("Health", "hp") > 0 then
      local hp = math.min(100, other:get("Health", "hp") + (self.heal or HEAL))
      other:set("Health", "hp", hp)
      -- An event for whatever shows the game (a sound, a sparkle), emitted
      -- only outside replays so it is played once.
      -- The pickup's cause, for the clients: the tick the character
      -- took a pack, which its walker's on_update shows there.
      other:set("Picked", "tick", vkm.after(0))
      if not self:is_replaying() then
        local x, y = self:position()
        self:emit("pickup", { x = x, y = y, by = other:id() })
        other:fresh("Picked", "tick") -- shown here: on_update leaves it be
      end
      self:destroy()
      return
    end
  end
end

return Pickup
