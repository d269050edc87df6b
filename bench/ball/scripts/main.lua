-- The ball game's entry script: a runner for each player, goals that send
-- the ball back to the middle, and players seated at four places along
-- the floor.

local Runner = {}

-- A runner moves on the run axis and jumps on the jump button, on the end
-- that simulates it.
function Runner:on_fixed_update(dt)
  if not self:is_simulated() then
    return
  end
  local c = self:command()
  self:move(c.axis.run)
  if c.pressed.jump then
    self:jump()
  end
end

local Goal = {}

-- A ball in a goal goes back to the middle, at rest: on the server, which
-- simulates the goal (a client leasing the ball is told so).
function Goal:on_contact(other, info)
  if not info.begin or other:name() ~= "ball" or not self:is_simulated() then
    return
  end
  other:set_position(0, 3)
  other:set_velocity(0, 0)
end

function vkmRegisterBehaviors(r)
  r.runner = Runner
  r.goal = Goal
end

local STARTS = { -5, 5, -2, 2 }

function vkmSetupNetwork(net)
  net.on_join(function(player)
    local x = STARTS[(player - 1) % 4 + 1]
    return vkm.find("cage"):spawn("prefabs/player.toml", x, 0.9)
  end)
end
