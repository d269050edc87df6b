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
      -- The cause, for every end to show (runner.lua's on_update).
      local x, y = self:position()
      other:set("Took", "tick", vkm.after(0))
      other:set("Took", "x", x)
      other:set("Took", "y", y)
      -- Here, on the end that decided it, the sparkle is shown now; fresh
      -- marks this cause as shown, so on_update does not show it again.
      -- Never from a replayed tick, or it would play twice.
      if not self:is_replaying() then
        self:emit("coin", { x = x, y = y, by = other:player(), coins = coins })
        other:fresh("Took", "tick")
      end
      self:destroy()
      return
    end
  end
end

return Coin
