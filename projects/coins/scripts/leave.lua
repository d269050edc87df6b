-- The leave handler (scripts/main.lua gives it to net.on_leave). It runs on
-- the server only, once, when a player leaves or is dropped, while their
-- runner is still alive and theirs. The coins the runner held fall to the
-- floor round where it stood, for the others to pick up; the runner itself
-- goes with its player: returning nothing lets the engine destroy it.

local RING = 1.0 -- metres from the runner to the coins it drops
local MOST = 16 -- at most this many coins are dropped

-- blocked says whether a coin at (x, y) would lie inside something solid
-- (a wall, a pillar): anything in the box but runners and coins.
local function blocked(runner, x, y)
  for _, e in ipairs(runner:query(x - 0.35, y - 0.35, x + 0.35, y + 0.35)) do
    if not e:has("Score") and not e:has("Coin") then
      return true
    end
  end
  return false
end

return function(player, runner)
  if not runner then
    return -- the game destroyed it already: nothing to drop
  end
  local coins = runner:get("Score", "coins")
  local x, y = runner:position()
  local n = math.min(coins, MOST)
  for i = 1, n do
    local a = 2 * math.pi * i / n
    local cx, cy = x + RING * math.cos(a), y + RING * math.sin(a)
    if blocked(runner, cx, cy) then
      cx, cy = x, y -- where the runner stood is free once it is gone
    end
    net.spawn("prefabs/coin.toml", cx, cy)
  end
  runner:log(string.format("player %d left, dropping %d coin%s", player, n, n == 1 and "" or "s"))
  -- The server never replays, so this event is counted once (vkmd --report).
  runner:emit("left", { player = player, coins = n, x = x, y = y })
end
