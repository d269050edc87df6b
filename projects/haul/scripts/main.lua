-- Entry script of haul (project.toml's entryScript), run first on every
-- end. It registers the behaviors the scene and the worker prefab name, the
-- components every end is told about, and the join handler.

local Worker = import("scripts/worker.lua")
local Cart = import("scripts/cart.lua")
local Plate = import("scripts/plate.lua")
local Crane = import("scripts/crane.lua")
local Drawbridge = import("scripts/drawbridge.lua")
local Depot = import("scripts/depot.lua")

function vkmRegisterBehaviors(r)
  r.worker = Worker
  r.cart = Cart
  r.plate = Plate
  r.crane = Crane
  r.drawbridge = Drawbridge
  r.depot = Depot
end

function vkmSetupNetwork(net)
  -- A worker's tag, for plates and the tow to tell workers from crates.
  net.component("Worker", {})
  -- Whether the worker has the cart in tow, and on how long a rope: every
  -- end ties its own rope to match (scripts/worker.lua), and shows the tow
  -- when it begins.
  net.component("Tow", {
    {"on", net.bool()},
    {"length", net.fixed(0, 8, 1 / 1024)},
  })
  -- A pressure plate's state, decided by the server (the plate is static,
  -- so no client simulates it) and read on every end by what the plate
  -- works: the crane's boom and the drawbridge set their motors from it.
  net.component("Plate", {
    {"down", net.bool()},
  })
  -- How many carts the team has delivered: the scoreboard shows it.
  net.component("Haul", {
    {"delivered", net.int(0, 65535)},
  })

  -- Each joining player gets a worker at one of the four starts.
  net.on_join(function(player)
    local spawn = vkm.find("spawn" .. ((player - 1) % 4 + 1))
    local x, y = spawn:position()
    return spawn:spawn("prefabs/worker.toml", x, y)
  end)
end
