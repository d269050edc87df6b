-- The coin: the first runner to touch it takes it, and the coin is gone.
-- The mint (scripts/mint.lua) puts coins down from prefabs/coin.toml, whose
-- body is a sensor: it reports what overlaps it and stops nothing.
--
-- Props (prefabs/coin.toml's `props`):
--   value  coins a runner's Score gains      1

local VALUE = 1

---@class Coin: Behavior
---@field value integer? prop
local Coin = {}

function Coin:on_fixed_update(dt)
  -- is_simulated: only the server (or an offline game) decides who took a
  -- coin. A client is told by its snapshots: the runner's Score, and the
  -- coin's removal. Two runners reaching a coin in the same tick cannot
  -- both be paid by their own clients' guesses.
  if not self:is_simulated() then
    return
  end
  -- touching lists, in slot order (the same on every end), what overlaps
  -- the sensor; runners are the ones with a Score.
  for _, other in ipairs(self:touching()) do
    if other:has("Score") then
      local coins = math.min(65535, other:get("Score", "coins") + (self.value or VALUE))
      other:set("Score", "coins", coins)
      -- Presentation (a chime, a sparkle): never from a replayed tick, or
      -- a client that corrected itself would play it twice.
      if not self:is_replaying() then
        local x, y = self:position()
        self:emit("coin", { x = x, y = y, by = other:player(), coins = coins })
      end
      self:destroy()
      return
    end
  end
end

return Coin
