-- The entry script (project.toml's entryScript), run first on every end:
-- the server, every client, and offline. It registers the behaviors the
-- scene and prefabs name, the components every end is told about, and the
-- join handler.

local Runner = import("scripts/runner.lua")
local join = import("scripts/join.lua")

-- An entity with `behavior = "runner"` (prefabs/player.toml) runs Runner.
function vkmRegisterBehaviors(r)
  r.runner = Runner
end

function vkmSetupNetwork(net)
  -- Replicated components: their fields travel to every end in the
  -- server's snapshots, each within the range given.
  net.component("Stats", {
    {"dashes", net.int(0, 65535)},
  })
  -- When the next dash may come: a deadline as a tick number, so that a
  -- client's replay meets the cooldown the server's snapshot says.
  net.component("Dash", {
    {"next", net.int(0, 4294967295)},
  })
  -- Who gets what when they join (scripts/join.lua).
  net.on_join(join)
end
