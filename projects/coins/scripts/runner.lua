-- The runner: a player's character, seen from above. It runs on two axes
-- through the top-down character controller, and its shove button pushes
-- every other runner within reach away, at most once a second. Coins are
-- picked up by the coins themselves (scripts/coin.lua), which add to the
-- runner's Score.
--
-- Like every behavior, one copy of this code runs on every end: the server,
-- the client of the runner's player (which predicts it, and replays ticks
-- when the server corrects it), every other client, and offline. Where it
-- matters which end runs it, it asks:
--
--   self:is_simulated()  may this end write this runner's state?
--   self:command()       the input that drives it this tick
--   self:is_replaying()  is this tick a replay of one already shown?
--   self:is_mine()       is this the local player's runner? (what to print)
--   self:player()        which player drives it? (whom a shove hit)
--
-- Props (prefabs/runner.toml's `props`, fields of self before on_start):

local SHOVE_EVERY = 1.0 -- shove_every: seconds from one shove to the next
local SHOVE_REACH = 2.0 -- shove_reach: how far a shove reaches, centre to centre, in metres
local SHOVE_KICK = 12.0 -- shove_kick: the speed a shove gives, in m/s

---@class Runner: Behavior
---@field shove_every number? prop
---@field shove_reach number? prop
---@field shove_kick number? prop
---@field clock Entity? the round clock
---@field told_coins integer
---@field told_round integer
local Runner = {}

function Runner:on_start()
  -- What the local player was last told (on_update); this end's own memory.
  self.told_coins = -1
  self.told_round = -1
  -- The round clock, a scene entity: found once, kept.
  self.clock = vkm.find("round")
end

-- shove pushes every other runner within reach straight away from this one.
function Runner:shove()
  local x, y = self:position()
  local reach = self.shove_reach or SHOVE_REACH
  local kick = self.shove_kick or SHOVE_KICK
  local hit = 0
  -- Every runner has a Score: vkm.each walks them in slot order, the same
  -- order on every end and in every replay.
  for other in vkm.each("Score") do
    -- is_simulated on the other runner: the server pushes anyone; a client
    -- may not write another player's runner (its commands are not this
    -- client's to predict), so there the shove only shows, and the push
    -- arrives with the server's next snapshot.
    if other ~= self and other:is_simulated() then
      local ox, oy = other:position()
      local dx, dy, d = vkm.normalize(ox - x, oy - y)
      if d > 0 and d <= reach then
        local vx, vy = other:velocity()
        other:set_velocity(vx + dx * kick, vy + dy * kick)
        hit = hit + 1
      end
    end
  end
  if not self:is_replaying() then
    self:emit("shove", { x = x, y = y, by = self:player(), hit = hit })
  end
end

function Runner:on_fixed_update(dt)
  -- On a client, another player's runner is drawn where the server says;
  -- this end does not move it.
  if not self:is_simulated() then
    return
  end
  local c = self:command()
  -- A boost (scripts/boost.lua) makes the controller faster while
  -- Boost.until lies ahead: a component, so every end, and every replay,
  -- runs at the speed the server's word says.
  self.base_speed = self.base_speed or self:get("CharacterController", "speed")
  local boosted = (self:remaining("Boost", "until") or 0) > 0
  self:set("CharacterController", "speed", boosted and self.base_speed * 1.5 or self.base_speed)
  -- Buying one is a request to the server, sent once, by the player's own
  -- end, never from a replay.
  if c.pressed.boost and self:is_mine() and not self:is_replaying() then
    net.send("boost")
  end
  -- The stick's two axes, as shares of the controller's speed; the
  -- controller scales a diagonal down so it is no faster than a straight
  -- run, and eases the velocity toward it (accel, friction).
  self:move(c.axis.move_x, c.axis.move_y)
  -- cooldown: true when the deadline in Shove.next has come, and then it
  -- stores the next one. The deadline is a component field, not a field of
  -- self: the server stores the very deadline this runner's client does
  -- (it counts a player's runner by the tick of the command it runs, the
  -- tick the client predicted), sends it in its snapshots, and a client's
  -- replay meets it there. A field of self would be this end's memory
  -- alone, which a replay finds where the first run left it. (docs/lua.md,
  -- "Timers and cooldowns", says what a replay restores and what not.)
  if c.pressed.shove and self:cooldown("Shove", "next", self.shove_every or SHOVE_EVERY) then
    self:shove()
  end
end

-- on_update runs every frame, for presentation only. The local player's
-- runner says in the log when its coins or the round change. A scoreboard
-- drawn on screen would read net.players() and each runner's Score the
-- same way (docs/lua.md, "Players", has one).
function Runner:on_update(dt)
  -- A coin this runner took, shown once on every end: fresh answers when
  -- Took.tick has gone past every tick this end has seen there. A client
  -- hears of it in a snapshot; where the take was decided (the server,
  -- offline) coin.lua showed it already and marked it.
  if self:fresh("Took", "tick") then
    self:emit("pickup", { x = self:get("Took", "x"), y = self:get("Took", "y") })
  end
  if not self:is_mine() or not self.clock then
    return
  end
  local coins = self:get("Score", "coins")
  local round = self.clock:get("Round", "number")
  if round == 0 then
    return -- the server's word on the round has not come yet
  end
  if coins ~= self.told_coins or round ~= self.told_round then
    self.told_coins, self.told_round = coins, round
    local left = self.clock:get("Round", "left")
    print(string.format("round %d: you hold %d coin%s, %d s left", round, coins, coins == 1 and "" or "s", left))
  end
end

return Runner
