-- Stock behavior "walker" (vkm.stock("walker")): a player's character. It
-- runs and jumps through the character controller, aims with two axes and
-- fires a hitscan shot that damages Health; dead characters wait, then come
-- back at a spawn point. It reads the input actions run, aim_x, aim_y, jump
-- and fire, and the components Health (hp) and Score (kills, deaths).
--
-- Props, each with its default: damage = 25, range = 30, cooldown = 0.25
-- (seconds between shots), respawn_time = 2 (seconds), spawns = 4 (the
-- entities spawn1 .. spawnN it comes back at), kill_y = -10 (falling below
-- this height kills).

local Walker = {}

local SPAWNS = 4
local KILL_Y = -10 -- below the floor: fell out of the world

function Walker:on_start()
  self.cooldown_ticks = 0
  self.dead_ticks = 0
  self.facing = 1
end

-- aim returns a unit vector from the command's aim axes, or the way the
-- character faces when the stick is centred.
function Walker:aim(c)
  local ax, ay = c.axis.aim_x, c.axis.aim_y
  local len = math.sqrt(ax * ax + ay * ay)
  if len < 0.2 then
    return self.facing, 0
  end
  return ax / len, ay / len
end

function Walker:die(killer)
  self:set("Health", "hp", 0)
  self:set("Score", "deaths", self:get("Score", "deaths") + 1)
  if killer and killer ~= self and killer:has("Score") then
    killer:set("Score", "kills", killer:get("Score", "kills") + 1)
  end
  self.dead_ticks = 0
  if not self:is_replaying() then
    local x, y = self:position()
    self:emit("death", { x = x, y = y })
  end
end

function Walker:respawn()
  local spawn = vkm.find("spawn" .. math.random(self.spawns or SPAWNS))
  local x, y = spawn:position()
  self:set_position(x, y)
  self:set_velocity(0, 0)
  self:set("Health", "hp", 100)
end

function Walker:fire(c)
  local x, y = self:position()
  y = y + 0.4 -- from the shoulder
  local dx, dy = self:aim(c)
  local range = self.range or 30
  local x2, y2 = x + dx * range, y + dy * range
  -- Judged against what this player saw: on a server the other players
  -- stand, for the ray, where this player's screen had them.
  local hit = net.rewind(function()
    return self:raycast(x, y, x2, y2)
  end)
  if hit then
    x2, y2 = hit.x, hit.y
    local target = hit.entity
    local wounds = target:has("Health")
    if wounds then
      -- Only the end that simulates the target decides what the shot did
      -- to it: offline and on the server that is every end; a client
      -- shows the shot and waits to be told.
      if target:is_simulated() then
        local hp = target:get("Health", "hp")
        if hp > 0 then
          hp = math.max(0, hp - (self.damage or 25))
          target:set("Health", "hp", hp)
          if hp == 0 then
            target:die(self)
          end
        end
      end
    else
      -- A crate is knocked back. A client leases what its own character
      -- knocks, so it moves at once there too.
      target:apply_impulse(dx * 4, dy * 4)
    end
    if wounds and not self:is_replaying() then
      self:emit("hit", { x = x2, y = y2, target = target:id() })
    end
  end
  if not self:is_replaying() then
    self:emit("shot", { x1 = x, y1 = y, x2 = x2, y2 = y2 })
  end
end

function Walker:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local _, y = self:position()
  if self:get("Health", "hp") > 0 and y < (self.kill_y or KILL_Y) then
    self:die(nil)
  end
  if self:get("Health", "hp") == 0 then
    self.dead_ticks = self.dead_ticks + 1
    if self.dead_ticks * dt >= (self.respawn_time or 2) then
      self:respawn()
    end
    return
  end

  local c = self:command()
  local run = c.axis.run
  self:move(run)
  if run > 0.1 then
    self.facing = 1
  elseif run < -0.1 then
    self.facing = -1
  end
  if c.pressed.jump then
    self:jump()
  end

  if self.cooldown_ticks > 0 then
    self.cooldown_ticks = self.cooldown_ticks - 1
  end
  if c.pressed.fire and self.cooldown_ticks == 0 then
    self.cooldown_ticks = math.floor((self.cooldown or 0.25) / dt + 0.5)
    self:fire(c)
  end
end

return Walker
