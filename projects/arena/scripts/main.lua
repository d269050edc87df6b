-- Entry script of the arena: registers the behaviors, the replicated
-- components and the join handler.

local Walker = import("scripts/walker.lua")
local Pickup = import("scripts/pickup.lua")
local Spawner = import("scripts/spawner.lua")

function vkmRegisterBehaviors(r)
  r.walker = Walker
  r.pickup = Pickup
  r.spawner = Spawner
end

function vkmSetupNetwork(net)
  net.component("Health", {
    {"hp", net.int(0, 100)},
  })
  net.component("Score", {
    {"kills", net.int(0, 65535)},
    {"deaths", net.int(0, 65535)},
  })

  -- Each joining player gets a character at a spawn point; player 1 is the
  -- local player when the game is played offline.
  net.on_join(function(player)
    local spawn = vkm.find("spawn" .. ((player - 1) % 4 + 1))
    local x, y = spawn:position()
    return spawn:spawn("prefabs/player.toml", x, y)
  end)
end
