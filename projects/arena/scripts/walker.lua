-- The walker: a player's character. It runs and jumps, aims with two axes
-- and fires a hitscan shot that wounds other characters and knocks crates
-- about; a character whose health reaches 0 waits a moment and comes back
-- at one of the spawn points.
--
-- This file is the arena's own, and meant to be read and changed: serve the
-- arena with `vkmd projects/arena --dev`, join with `client ... --dev`, edit
-- a number below and save; the server and every dev client run the new code
-- from the same tick, without anyone leaving.
--
-- One copy of this code runs on every end of a game: on the server, on the
-- client of the player it belongs to (which predicts its own character
-- ahead of the server, and replays ticks when the server corrects it), on
-- every other client, and offline. It reads like single-player code; the
-- few places where it matters which end is running ask one of four
-- questions, each explained where it is asked:
--
--   self:is_simulated()  may this end write this character's state?
--   self:command()       the input that drives this character this tick
--   self:is_replaying()  is this tick a replay of one already shown?
--   self:is_mine()       is this the local player's character?
--
-- What it reads from elsewhere in the project:
--   - the input actions run, aim_x, aim_y (axes), jump and fire (buttons),
--     declared in project.toml;
--   - the components Health (hp) and Score (kills, deaths); the timers
--     Gun (next: when the next shot may go) and Life (respawn: when a dead
--     character comes back; killer: who shot it dead, for the killcam); and the causes Shot (the tick and aim of the
--     last shot) and Picked (the tick of the last pack taken), registered
--     in scripts/main.lua so that every end is told their values and a
--     client's replay starts from them;
--   - the character controller of prefabs/player.toml ([entity.controller]:
--     speed, acceleration, jump speed), which self:move and self:jump drive;
--   - the entities spawn1, spawn2, ... of the scene, where it respawns.
--
-- Props. The player prefab's `props` table becomes fields of the character
-- before on_start runs: `props = { damage = 25 }` there is `self.damage`
-- here. A prop the prefab leaves out is nil, so every use below reads
-- `self.prop or DEFAULT`, with the defaults named here:

local DAMAGE = 25 -- damage: hit points one shot takes
local RANGE = 30 -- range: how far a shot reaches, in metres
local COOLDOWN = 0.25 -- fire_cooldown: seconds from one shot to the next
local RESPAWN_TIME = 2 -- respawn_time: seconds a dead character waits
local SPAWNS = 4 -- spawns: it comes back at spawn1 .. spawnN (the arena has 4)
local KILL_Y = -10 -- kill_y: falling below this height kills (below the floor)
local KILLCAM_TIME = 3 -- killcam_time: seconds of the killer's view a player shot dead is shown

-- Not props, but numbers to play with all the same:
local SHOULDER = 0.4 -- a shot leaves this many metres above the centre
local KNOCK = 4 -- the impulse a shot gives a crate, in N·s

local Walker = {}

-- on_start runs once, when the character is built (for a player, when the
-- join handler in scripts/main.lua spawns it). Fields set on self are the
-- character's own memory on this end: they are not sent anywhere, and a
-- replay does not rewind them. Everything every end must agree on (health,
-- score, the deadlines of the gun and of the respawn) lives in components
-- instead.
function Walker:on_start()
  self.facing = 1 -- 1: right, -1: left; where a shot goes with no aim
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

-- die kills this character; killer is the character whose shot did it, or
-- nil for a fall. The walker that fired calls it on its target
-- (target:die(self)): a handle to an entity with a behavior answers that
-- behavior's methods too.
function Walker:die(killer)
  self:set("Health", "hp", 0)
  self:set("Score", "deaths", self:get("Score", "deaths") + 1)
  local by = 0
  if killer and killer ~= self and killer:has("Score") then
    killer:set("Score", "kills", killer:get("Score", "kills") + 1)
    by = killer:player()
  end
  self:set("Life", "killer", by)
  -- The respawn's deadline, on this character's clock: a replay on its
  -- client starts from the deadline the server set.
  self:cooldown("Life", "respawn", self.respawn_time or RESPAWN_TIME)
  -- An event is presentation (a sound, a puff of smoke), played once by
  -- whatever shows the game. A client that corrects its prediction runs
  -- the same ticks again as a replay; it must not play the death twice,
  -- so events are emitted only when the tick is not a replay. The same
  -- rule holds for every emit in this file.
  if not self:is_replaying() then
    local x, y = self:position()
    self:emit("death", { x = x, y = y, by = self:id() })
    self:fresh("Score", "deaths") -- shown here: on_update leaves it be
    self:show_killcam()
  end
end

-- show_killcam: when the local player's own character was shot dead by
-- another player, their client shows them the last seconds again from the
-- killer's character (net.killcam; a server and an offline game have no
-- view, and it does nothing there).
function Walker:show_killcam()
  local killer = self:get("Life", "killer")
  if killer > 0 and self:is_mine() then
    net.killcam(killer, self.killcam_time or KILLCAM_TIME)
  end
end

-- respawn puts a dead character back at a spawn point with full health.
function Walker:respawn()
  -- math.random is deterministic in vkm: the n-th roll a character makes
  -- in a tick is the same on every end and in every replay, so the
  -- player's own client predicts the very spawn point the server picks.
  local spawn = vkm.find("spawn" .. math.random(self.spawns or SPAWNS))
  local x, y = spawn:position()
  self:set_position(x, y)
  self:set_velocity(0, 0)
  self:set("Health", "hp", 100)
end

-- fire shoots along the command's aim: the first solid thing on the ray is
-- hit. A character loses health; anything else (a crate) is knocked back.
function Walker:fire(c)
  local x, y = self:position()
  y = y + SHOULDER
  local dx, dy = self:aim(c)
  local range = self.range or RANGE
  local x2, y2 = x + dx * range, y + dy * range
  -- Judged against what this player saw: on a server the other players
  -- stand, for the ray, where this player's screen had them. Everywhere
  -- else net.rewind is a plain call, so the same line runs on every end.
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
          hp = math.max(0, hp - (self.damage or DAMAGE))
          target:set("Health", "hp", hp)
          if hp == 0 then
            target:die(self)
          end
        end
      end
    else
      -- A crate is knocked back. A client leases what its own character
      -- knocks, so it moves at once there too.
      target:apply_impulse(dx * KNOCK, dy * KNOCK)
    end
    if wounds and not self:is_replaying() then
      self:emit("hit", { x = x2, y = y2, target = target:id(), by = self:id() })
    end
  end
  -- The shot's cause, for the ends that do not run this code for this
  -- character: every other client. The tick it was fired (on the
  -- character's clock, so the server stores the tick this player's client
  -- predicted) and the aim go out in the snapshots; on_update below turns
  -- them into a tracer there. The tracer's end is not sent: each end
  -- finds it with its own ray.
  self:set("Shot", "tick", vkm.after(0))
  self:set("Shot", "ax", dx)
  self:set("Shot", "ay", dy)
  if not self:is_replaying() then
    self:emit("shot", { x1 = x, y1 = y, x2 = x2, y2 = y2, by = self:id() })
    -- This end has shown this shot: fresh remembers the cause, so that
    -- on_update does not show it again.
    self:fresh("Shot", "tick")
  end
end

-- on_fixed_update runs every tick (dt = 1 / tickRate seconds, from
-- project.toml): the character's rules.
function Walker:on_fixed_update(dt)
  -- is_simulated: on a client, another player's character is not this
  -- end's to move. The client draws it where the server's snapshots say
  -- it is, so the walker leaves it alone there. On the server, offline,
  -- and for the client's own character it is true and the walker runs.
  if not self:is_simulated() then
    return
  end
  local hp = self:get("Health", "hp")
  if hp > 0 then
    local _, y = self:position()
    if y < (self.kill_y or KILL_Y) then
      self:die(nil)
      hp = 0 -- die set it
    end
  end
  if hp == 0 then
    -- Dead until the deadline die set: a tick number, so every end, and
    -- every replay, comes back on the same tick.
    if self:remaining("Life", "respawn") == 0 then
      self:respawn()
    end
    return
  end

  -- command: this tick's input for this character. On the server it is
  -- the command its player sent for this tick; on that player's client
  -- and offline it is the local input; a character no player drives gets
  -- an empty command (axes 0, no buttons), so it stands still. The walker
  -- never needs to know which of these it is.
  local c = self:command()
  local run = c.axis.run
  self:move(run) -- the character controller accelerates toward run x speed
  if run > 0.1 then
    self.facing = 1
  elseif run < -0.1 then
    self.facing = -1
  end
  -- pressed is true for the one tick the button went down (held is true
  -- while it stays down): one jump per press.
  local pressed = c.pressed
  if pressed.jump then
    self:jump() -- only takes off when grounded
  end

  -- cooldown is true when Gun.next has come, and then sets the next
  -- deadline fire_cooldown seconds on (see docs/lua.md, "Timers and
  -- cooldowns").
  if pressed.fire and self:cooldown("Gun", "next", self.fire_cooldown or COOLDOWN) then
    self:fire(c)
  end
end

-- on_update runs every frame on every end that draws (not on a server),
-- for every character, the ones this end does not simulate included. It
-- changes nothing in the world; it presents. An event above is emitted only
-- on the ends that run the shot: the server, offline, and the shooter's own
-- client, which predicts it. Every other client learns of the shot from its
-- cause, the Shot component the snapshots bring, and shows it here.
--
-- self:fresh(type, field) answers "has this field gone past every value
-- this end has seen in it?": the new value once, then nil until it rises
-- again. fire() and die() call it when they emit, so a shot this end has
-- already shown is not shown twice; a replay or a snapshot that brings the
-- same tick back shows nothing; a shot this end never ran (another
-- player's) is shown when its tick arrives.
function Walker:on_update(dt)
  local x, y = self:position()
  if x == nil then
    return
  end
  if self:fresh("Shot", "tick") then
    -- The shot leaves where this end has the character, along the aim
    -- the server sent; the ray finds where it ends in this end's world.
    local dx, dy = self:get("Shot", "ax"), self:get("Shot", "ay")
    local range = self.range or RANGE
    local x1, y1 = x, y + SHOULDER
    local x2, y2 = x1 + dx * range, y1 + dy * range
    local hit = self:raycast(x1, y1, x2, y2)
    if hit then
      x2, y2 = hit.x, hit.y
      if hit.entity:has("Health") then
        self:emit("hit", { x = x2, y = y2, target = hit.entity:id(), by = self:id() })
      end
    end
    self:emit("shot", { x1 = x1, y1 = y1, x2 = x2, y2 = y2, by = self:id() })
  end
  if self:fresh("Score", "deaths") then
    -- A death this end did not run: another character's, or this
    -- player's own at another's hand (the server decided it).
    self:emit("death", { x = x, y = y, by = self:id() })
    self:show_killcam()
  end
  if self:fresh("Picked", "tick") then
    -- A pack this character took: the server decides who gets a pack,
    -- so on a client this is the one place a pickup is shown.
    self:emit("pickup", { x = x, y = y, by = self:id() })
  end
end

-- is_mine is the fourth question, and the walker does not ask it: it is
-- for what only the local player sees (a camera that follows, a health
-- bar), and the rules above are the same for every character. The
-- reference client's view already follows the local player's character.

return Walker
