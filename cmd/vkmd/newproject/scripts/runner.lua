-- The runner: a player's character. It runs on the two move axes through
-- the top-down character controller, and dashes (a burst of speed the way
-- it runs) on the dash button, at most once per dash_every seconds.
--
-- One copy of this code runs on every end: the server, the client of the
-- runner's player (which predicts it, and replays ticks when the server
-- corrects it), every other client, and offline. Where it matters which
-- end runs it, it asks:
--
--   self:is_simulated()  may this end write this runner's state?
--   self:command()       the input that drives it this tick
--   self:is_replaying()  is this tick a replay of one already shown?
--
-- Props (prefabs/player.toml's `props`, fields of self before on_start),
-- with the defaults used when the prefab leaves one out:

local DASH_SPEED = 14.0 -- dash_speed: the speed a dash gives, in m/s
local DASH_EVERY = 0.75 -- dash_every: seconds from one dash to the next

local Runner = {}

-- on_start runs once, when the character is built. Fields set on self are
-- this end's own memory: nothing sends them, and a replay does not rewind
-- them. What every end must agree on lives in components (Stats, Dash).
function Runner:on_start()
  self.facing_x, self.facing_y = 1, 0 -- the way it last ran
end

-- on_fixed_update runs every tick, on the ends that simulate the runner.
function Runner:on_fixed_update(dt)
  -- On a client, another player's runner is drawn where the server says;
  -- this end does not move it.
  if not self:is_simulated() then
    return
  end
  local c = self:command()
  local mx, my = c.axis.move_x, c.axis.move_y
  if mx ~= 0 or my ~= 0 then
    local dx, dy = vkm.normalize(mx, my)
    self.facing_x, self.facing_y = dx, dy
  end
  -- The controller eases the velocity toward the stick's share of speed.
  self:move(mx, my)
  -- cooldown is true when the deadline in Dash.next has come, and then
  -- stores the next one: a component, so a replay meets the same deadline.
  if c.pressed.dash and self:cooldown("Dash", "next", self.dash_every or DASH_EVERY) then
    local speed = self.dash_speed or DASH_SPEED
    self:set_velocity(self.facing_x * speed, self.facing_y * speed)
    self:set("Stats", "dashes", self:get("Stats", "dashes") + 1)
    -- An event for this end to show (a sound: project.toml's [[sound]]),
    -- never from a replay, which would show it twice.
    if not self:is_replaying() then
      local x, y = self:position()
      self:emit("dash", { x = x, y = y })
    end
  end
end

return Runner
