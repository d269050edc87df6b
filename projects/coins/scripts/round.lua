-- The round clock: a round lasts `length` seconds; when it is up, the
-- runner holding the most coins takes it. The server logs the scoreboard
-- and emits "round_over" naming the winner, every runner's coins go back to
-- 0, the coins on the floor are cleared away and the next round starts. It
-- is the "round" entity of scenes/yard.toml.
--
-- Props (the scene entity's `props`):
--   length  seconds a round lasts        60
--
-- The Round component is what every end sees: `number`, `ends` (the
-- deadline, a tick number on the server's clock) and `left`, the whole
-- seconds left, which changes once a second and so costs the snapshots
-- next to nothing. A client does not know the server's tick exactly, so it
-- shows `left` rather than working it out from `ends`. `winner` and `best`
-- say how the last round ended, so that every end can say it too.

local LENGTH = 60

---@class Round: Behavior
---@field length number? prop
---@field shown integer? the round number this end last showed
local Round = {}

-- coins says n coins in words: "1 coin", "3 coins".
local function coins(n)
  return n == 1 and "1 coin" or n .. " coins"
end

-- scoreboard returns every seated player as {number, name, coins}, most
-- coins first, then by player number.
local function scoreboard()
  local rows = {}
  -- net.players(): every seated player in number order, with the name the
  -- client joined with and the entity the join handler gave them.
  for _, p in ipairs(net.players()) do
    local held = 0
    if p.entity and p.entity:has("Score") then
      held = p.entity:get("Score", "coins")
    end
    rows[#rows + 1] = { number = p.number, name = p.name, coins = held }
  end
  table.sort(rows, function(a, b)
    if a.coins ~= b.coins then
      return a.coins > b.coins
    end
    return a.number < b.number
  end)
  return rows
end

-- winner names the player with the most coins ("bot1"), or those sharing
-- the most ("bot1 and bot3", and true), or "" when nobody holds a coin.
local function winner(rows)
  if #rows == 0 or rows[1].coins == 0 then
    return "", false
  end
  local names = {}
  for _, row in ipairs(rows) do
    if row.coins == rows[1].coins then
      names[#names + 1] = row.name
    end
  end
  return table.concat(names, " and "), #names > 1
end

-- begin starts round number n.
function Round:begin(n)
  self:set("Round", "number", n)
  -- vkm.after: the tick `length` seconds from now on this entity's clock
  -- (a scene entity's is the server's tick number).
  self:set("Round", "ends", vkm.after(self.length or LENGTH))
end

-- finish ends the round: the scoreboard to the log, the winner to an event,
-- then every score and coin cleared.
function Round:finish()
  local n = self:get("Round", "number")
  local rows = scoreboard()
  if #rows > 0 then
    local name, shared = winner(rows)
    if name == "" then
      self:log(string.format("round %d over: nobody took a coin", n))
    elseif shared then
      self:log(string.format("round %d over: %s share it with %s each", n, name, coins(rows[1].coins)))
    else
      self:log(string.format("round %d over: %s wins with %s", n, name, coins(rows[1].coins)))
    end
    for i, row in ipairs(rows) do
      self:log(string.format("  %d. %s (player %d): %s", i, row.name, row.number, coins(row.coins)))
    end
    if not self:is_replaying() then
      self:emit("round_over", { round = n, winner = name, coins = rows[1].coins })
    end
    self:set("Round", "winner", (name ~= "" and not shared) and rows[1].number or 0)
    self:set("Round", "best", rows[1].coins)
  else
    self:set("Round", "winner", 0)
    self:set("Round", "best", 0)
  end
  for runner in vkm.each("Score") do
    runner:set("Score", "coins", 0)
  end
  -- Collect the coins first, then destroy them: the loop is not disturbed
  -- either way (see docs/lua.md), but this reads as what it does.
  local lying = {}
  for coin in vkm.each("Coin") do
    lying[#lying + 1] = coin
  end
  for _, coin in ipairs(lying) do
    coin:destroy()
  end
end

function Round:on_fixed_update(dt)
  -- The server keeps the time; a client is told Round's fields.
  if not self:is_simulated() then
    return
  end
  if self:get("Round", "ends") == 0 then
    self:begin(1)
  elseif self:remaining("Round", "ends") == 0 then
    self:finish()
    self:begin(self:get("Round", "number") + 1)
  end
  -- remaining: seconds until the deadline, 0 once it has come.
  self:set("Round", "left", math.ceil(self:remaining("Round", "ends")))
end

-- on_update runs every frame on the ends that show the game (clients, and
-- offline), for presentation only: when the round's number moves on, it
-- says who took the last one. The server tells every end Round.winner, a
-- player number; net.players() turns it into the name that player joined
-- with, and net.local_player() says whether that is this end's player.
function Round:on_update(dt)
  local n, last = self:get("Round", "number"), self.shown
  self.shown = n
  -- Nothing to say on the first frame (last is nil), while the round goes
  -- on, or when the first round begins (last is 0: none before it).
  if not last or last == 0 or n <= last then
    return
  end
  local winner, best = self:get("Round", "winner"), self:get("Round", "best")
  if best == 0 then
    print(string.format("round %d over: nobody took a coin", n - 1))
  elseif winner == 0 then
    print(string.format("round %d over: shared, %s each", n - 1, coins(best)))
  elseif winner == net.local_player() then
    print(string.format("round %d over: you won it with %s", n - 1, coins(best)))
  else
    local name = "player " .. winner -- one who has left since
    for _, p in ipairs(net.players()) do
      if p.number == winner then
        name = p.name
      end
    end
    print(string.format("round %d over: %s won it with %s", n - 1, name, coins(best)))
  end
end

return Round
