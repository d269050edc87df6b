-- The busy world's entry script: one behavior, no components, watchers
-- for players, and 500 orbiters on a 25 × 20 grid four metres apart.
local Orbiter = import("scripts/orbiter.lua")

local COLUMNS, ROWS, SPACING = 25, 20, 4.0

function vkmRegisterBehaviors(r)
  r.orbiter = Orbiter
end

function vkmSetupNetwork(net)
  net.on_join(function(player)
    return net.spawn("prefabs/watcher.toml", 0, 0)
  end)
end

function vkmBuildScene(scene)
  for row = 0, ROWS - 1 do
    for col = 0, COLUMNS - 1 do
      local x = (col - (COLUMNS - 1) / 2) * SPACING
      local y = (row - (ROWS - 1) / 2) * SPACING
      scene:spawn("prefabs/orbiter.toml", x, y)
    end
  end
end
