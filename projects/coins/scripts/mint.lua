-- The mint: puts coins into the yard. Every `every` seconds, while fewer
-- than `most` coins lie about, it spawns one at a random free spot of its
-- area. It is an entity of the scene with no body ("mint" in
-- scenes/yard.toml), whose props say what and where.
--
-- Props (the scene entity's `props`):
--   prefab  the file to spawn                                  "prefabs/coin.toml"
--   every   seconds between two coins                          1
--   most    how many coins may lie about at once               8
--   area    where coins may appear: {minx, miny, maxx, maxy}   (required)

local PREFAB = "prefabs/coin.toml"
local EVERY = 1
local MOST = 8
local TRIES = 8 -- random spots tried before waiting for the next deadline
local CLEAR = 0.45 -- half the side of the box a coin's spot must find empty

---@class Mint: Behavior
---@field prefab string? prop
---@field every number? prop
---@field most integer? prop
---@field area number[] prop: {minx, miny, maxx, maxy}
local Mint = {}

-- spot returns a random point of the area with nothing in a box round it
-- (no pillar, runner or coin), or nil when every try hit something.
function Mint:spot()
  local a = self.area
  for _ = 1, TRIES do
    -- math.random is deterministic: the same rolls for this entity and
    -- tick on every end, so a recorded game repeats.
    local x = a[1] + (a[3] - a[1]) * math.random()
    local y = a[2] + (a[4] - a[2]) * math.random()
    if #self:query(x - CLEAR, y - CLEAR, x + CLEAR, y + CLEAR) == 0 then
      return x, y
    end
  end
  return nil
end

function Mint:on_fixed_update(dt)
  -- Only the server (or an offline game) spawns; a client builds each new
  -- coin from the server's snapshots, in the server's slots.
  if not self:is_simulated() then
    return
  end
  -- vkm.count walks the live entities with the Coin tag: coins collected
  -- (destroyed by scripts/coin.lua) or dropped by a leaving player are
  -- counted alike, with no list to keep.
  if vkm.count("Coin") >= (self.most or MOST) then
    return
  end
  -- The deadline lives in the Mint component: cooldown is true when it has
  -- come (or is 0, so the first coin comes at once) and sets the next.
  if not self:cooldown("Mint", "next", self.every or EVERY) then
    return
  end
  local x, y = self:spot()
  if x then
    self:spawn(self.prefab or PREFAB, x, y)
  end
end

return Mint
