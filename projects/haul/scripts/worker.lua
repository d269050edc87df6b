-- The worker: a player's character. It runs and jumps, and ties a rope to
-- the cart when the tow button is pressed within reach of it (a rope joint,
-- made with vkm.joint), or unties it.
--
-- One copy of this code runs on every end: on the server, on the client of
-- the player it belongs to (which predicts its own worker ahead of the
-- server, and replays ticks when the server corrects it), on every other
-- client, and offline. A joint a behavior makes exists only where the code
-- making it runs, so the rope is kept in step with a replicated component:
-- the press decides, where the worker's command is known (the server, and
-- the player's own client predicting it), whether the worker has the cart
-- in tow and how long the rope is, and writes that in Tow; every end then
-- ties or unties its own rope to match Tow. So every end holds the same
-- rope, and a client that leases the cart (its worker pushing it, or
-- towing it) predicts it on the rope the server has.
--
-- What it reads from elsewhere: the input actions run, jump and tow of
-- project.toml; the Tow component (scripts/main.lua); the cart entity of the
-- scene, named "cart", and the start spawn1.
--
-- Props (prefabs/worker.toml): reach, how far from the cart's centre a
-- worker may tie on (m); slack, how much longer than the distance at the
-- press the rope is (m).

local REACH = 3.0
local SLACK = 0.5

-- Not props: below this height a worker has fallen into the chasm, and
-- goes back to the start.
local FALLEN = -6

local Worker = {}

function Worker:on_fixed_update(dt)
  if self:is_simulated() then
    local _, y = self:position()
    if y < FALLEN then
      self:back_to_start()
    end
    local c = self:command()
    self:move(c.axis.run)
    if c.pressed.jump then
      self:jump()
    end
    -- A press is an edge: true in exactly one tick. A replay of that tick
    -- starts from the server's word on Tow, so it decides as the first run
    -- did.
    if c.pressed.tow then
      if self:get("Tow", "on") then
        self:untie()
      else
        self:tie()
      end
    end
  end
  self:keep_rope()
end

-- tie takes the cart in tow if it is within reach and nobody has it in tow
-- already (the cart takes one rope: two workers pulling one cart would each
-- be predicted pulling against a guess of the other): Tow says so, with the
-- rope's length, and keep_rope makes the rope.
function Worker:tie()
  local cart = vkm.find("cart")
  if not cart or cart:joint("tow") then return end
  local x, y = self:position()
  local cx, cy = cart:position()
  local d = vkm.distance(x, y, cx, cy)
  if d > (self.reach or REACH) then return end
  self:set("Tow", "length", d + (self.slack or SLACK))
  self:set("Tow", "on", true)
  -- Shown here, at once, and remembered as shown (fresh), so that
  -- on_update does not show it again when the server's word arrives.
  if not self:is_replaying() then
    self:emit("tow", { x = x, y = y })
    self:fresh("Tow", "on")
  end
end

-- untie lets the cart go.
function Worker:untie()
  self:set("Tow", "on", false)
  self:keep_rope()
end

-- keep_rope ties or unties this end's rope to match Tow. The rope runs from
-- the worker's centre to the cart's, at Tow's length (quantised by its
-- codec, so the same number on every end), so it is the same joint wherever
-- the two stand when an end makes it.
function Worker:keep_rope()
  local on = self:get("Tow", "on")
  local tied = self.rope and self.rope:alive()
  if on and not tied then
    local cart = vkm.find("cart")
    if not cart then return end
    local x, y = self:position()
    local cx, cy = cart:position()
    self.rope = vkm.joint("rope", self, cart, {
      anchor_a = {x, y}, anchor_b = {cx, cy},
      length = self:get("Tow", "length"), name = "tow",
    })
  elseif not on and tied then
    self.rope:destroy()
    self.rope = nil
  end
end

-- back_to_start puts a fallen worker back at the first start, untied.
function Worker:back_to_start()
  self:untie()
  local x, y = vkm.find("spawn1"):position()
  self:set_position(x, y)
  self:set_velocity(0, 0)
end

-- on_update runs on every end that draws, for every worker, simulated or
-- not: a tow another player tied, which this end did not run, is shown when
-- the Tow component's word arrives (fresh: once, the first time it turns
-- true after this end last saw it).
function Worker:on_update(dt)
  if self:fresh("Tow", "on") then
    local x, y = self:position()
    self:emit("tow", { x = x, y = y })
  end
end

return Worker
