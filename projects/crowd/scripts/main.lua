-- Entry script of the crowd: the arena's rules for 64 players. The
-- behaviors are the engine's stock ones; the components and the join
-- handler are the arena's, with sixteen spawn points of four places each.

function vkmRegisterBehaviors(r)
  r.walker = vkm.stock("walker")
  r.pickup = vkm.stock("pickup")
  r.spawner = vkm.stock("spawner")
end

local SPAWNS = 16 -- spawn1 .. spawn16, two on each ledge
local SPACING = 1.0 -- metres between the four players a spawn point takes

function vkmSetupNetwork(net)
  net.component("Health", {
    {"hp", net.int(0, 100)},
  })
  net.component("Score", {
    {"kills", net.int(0, 65535)},
    {"deaths", net.int(0, 65535)},
  })

  -- Player n takes spawn point (n - 1) % 16 + 1, at one of four places
  -- side by side there, so sixty-four characters start apart.
  net.on_join(function(player)
    local i = (player - 1) % (SPAWNS * 4)
    local spawn = vkm.find("spawn" .. (i % SPAWNS + 1))
    local x, y = spawn:position()
    local place = math.floor(i / SPAWNS)
    return spawn:spawn("prefabs/player.toml", x + (place - 1.5) * SPACING, y)
  end)
end
