-- Entry script of the coin game (project.toml's entryScript), run first on
-- every end. It registers the behaviors the scene and prefabs name, the
-- components every end is told about, and what happens when a player
-- comes and goes.

local Runner = import("scripts/runner.lua")
local Coin = import("scripts/coin.lua")
local Mint = import("scripts/mint.lua")
local Round = import("scripts/round.lua")
local join = import("scripts/join.lua")
local leave = import("scripts/leave.lua")
local boost = import("scripts/boost.lua")

function vkmRegisterBehaviors(r)
  r.runner = Runner
  r.coin = Coin
  r.mint = Mint
  r.round = Round
end

-- A deadline is a tick number: 32 bits hold every tick a server will run.
local TICK = net.int(0, 4294967295)

function vkmSetupNetwork(net)
  -- The coins a runner holds this round.
  net.component("Score", {
    {"coins", net.int(0, 65535)},
  })
  -- The cause of the last coin a runner took, not its effect: when (a
  -- tick, which only rises) and where. The coin is gone by the time a
  -- client hears of it, so the cause lives on the runner, and every end
  -- shows the sparkle itself when the tick passes what it last showed
  -- (self:fresh in runner.lua's on_update).
  net.component("Took", {
    {"tick", TICK},
    {"x", net.fixed(-32, 32, 1 / 64)},
    {"y", net.fixed(-32, 32, 1 / 64)},
  })
  -- When a runner's next shove may come: a deadline, so that a client's
  -- replay meets the cooldown the server's snapshot says (see runner.lua).
  net.component("Shove", {
    {"next", TICK},
  })
  -- A tag: an entity has it or not. Every coin has it, so vkm.count("Coin")
  -- says how many lie about and vkm.each("Coin") finds them.
  net.component("Coin", {})
  -- When the mint puts down its next coin.
  net.component("Mint", {
    {"next", TICK},
  })
  -- The round: its number, its deadline, and the whole seconds left, which
  -- change once a second and tell every client what to show; and how the
  -- last round ended, for every end to show: its winner's player number
  -- (0 for none, or a shared win) and the most coins anyone held.
  net.component("Round", {
    {"number", net.int(0, 65535)},
    {"ends", TICK},
    {"left", net.int(0, 3600)},
    {"winner", net.int(0, 65535)},
    {"best", net.int(0, 65535)},
  })

  -- A runner's speed boost: when it ends (see scripts/boost.lua).
  net.component("Boost", {
    {"until", TICK},
  })
  -- A player asks to buy a boost; the server judges (scripts/boost.lua).
  net.message("boost")
  net.on_message("boost", boost)

  net.on_join(join)
  net.on_leave(leave)
end
