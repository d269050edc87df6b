-- The turning world's entry script: one behavior, no components, watchers
-- for players, and 50 spinners on a 10 × 5 grid sixteen metres apart
-- (a circle is at most 14 m across, so none meets another).
local Spinner = import("scripts/spinner.lua")

local COLUMNS, ROWS, SPACING = 10, 5, 16.0

function vkmRegisterBehaviors(r)
  r.spinner = Spinner
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
      scene:spawn("prefabs/spinner.toml", x, y)
    end
  end
end
