-- Entry script of the arena (project.toml's entryScript), run first on every
-- end. It registers the behaviors the scene and prefabs name, the
-- components every end is told about, and the join handler.

local Walker = import("scripts/walker.lua")
local Pickup = import("scripts/pickup.lua")
local Spawner = import("scripts/spawner.lua")
-- Where a joining player's character starts. It has a file of its own so
-- that a project extending the arena (projects/crowd) seats its players
-- its own way by holding its own scripts/join.lua, with everything else
-- here unchanged.
local join = import("scripts/join.lua")
-- The chat's judge and the "ready" vote.
local talk = import("scripts/talk.lua")

-- An entity with `behavior = "walker"` in a scene or prefab runs Walker.
function vkmRegisterBehaviors(r)
  r.walker = Walker
  r.pickup = Pickup
  r.spawner = Spawner
end

function vkmSetupNetwork(net)
  -- The replicated components: their fields travel to every end in the
  -- server's snapshots, each within its range.
  net.component("Health", {
    {"hp", net.int(0, 100)},
  })
  net.component("Score", {
    {"kills", net.int(0, 65535)},
    {"deaths", net.int(0, 65535)},
  })
  -- Deadlines, as tick numbers: when the next shot may go, and when a dead
  -- character comes back (self:cooldown and self:remaining read them).
  net.component("Gun", {
    {"next", net.int(0, 4294967295)},
  })
  net.component("Life", {
    {"respawn", net.int(0, 4294967295)},
    -- who killed the character last: their player number, 0 for a fall
    {"killer", net.int(0, 65535)},
  })
  -- Causes of what is shown, not the effects: each end draws the tracer
  -- or the sparkle itself when a tick here goes past the last it showed
  -- (self:fresh in scripts/walker.lua's on_update).
  net.component("Shot", {
    {"tick", net.int(0, 4294967295)}, -- when: on the shooter's clock
    {"ax", net.fixed(-1, 1, 1 / 1024)}, -- where: the aim, a unit vector
    {"ay", net.fixed(-1, 1, 1 / 1024)},
  })
  net.component("Picked", {
    {"tick", net.int(0, 4294967295)}, -- when the character last took a pack
  })

  talk(net)
  net.on_join(join)
end
