-- The speed boost, bought with coins through a message: a runner's player
-- presses boost, their client sends "boost" (runner.lua), and the server
-- judges it here: a runner holding BOOST_COST coins pays them and runs
-- faster until the deadline in its Boost component. The client does not
-- predict the purchase (a message is a request, not a command); it runs
-- faster once the server's snapshot brings Boost.until, and so does every
-- end, since runner.lua reads the speed from the component each tick.
-- Offline, net.send reaches this handler as player 1's.

local BOOST_COST = 3 -- coins a boost costs
local BOOST_SECONDS = 5 -- how long it lasts

return function(player)
  for _, p in ipairs(net.players()) do
    local runner = p.entity
    if p.number == player and runner then
      local coins = runner:get("Score", "coins") or 0
      local left = runner:remaining("Boost", "until") or 0
      if coins >= BOOST_COST and left == 0 then
        runner:set("Score", "coins", coins - BOOST_COST)
        runner:add("Boost")
        runner:set("Boost", "until", vkm.after(BOOST_SECONDS))
        print(string.format("player %d bought a boost: %d coins left", player, coins - BOOST_COST))
      end
    end
  end
end
