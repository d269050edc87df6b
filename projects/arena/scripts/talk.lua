-- The arena's chat and its "ready" vote (scripts/main.lua calls this from
-- vkmSetupNetwork). Every line a player types reaches the server first,
-- and net.on_chat decides what the others see: a line with a blocked word
-- is refused (nobody sees it), and "/ready" is a vote, rewritten into what
-- everyone is told. The server also tells every client the tally in a
-- "ready" message, which a client's handler prints; a game with a lobby
-- would start its round there.

local BLOCKED = { "darn" } -- words a line may not hold (lower case)

-- ready[player] is true once the player voted; only the server keeps it.
local ready = {}

return function(net)
  net.message("ready", {
    {"ready", net.int(0, 256)},   -- players who voted
    {"players", net.int(0, 256)}, -- players seated
  })
  -- On a client: the server's tally. (A message is not a command: it is
  -- shown when it comes, never predicted or replayed.)
  net.on_message("ready", function(from, m)
    if from == nil then
      print(string.format("%d of %d players ready", m.ready, m.players))
    end
  end)
  net.on_chat(function(player, text)
    local lower = string.lower(text)
    for _, word in ipairs(BLOCKED) do
      if lower:find(word, 1, true) then
        return false
      end
    end
    if lower ~= "/ready" then
      return -- kept as typed
    end
    ready[player] = true
    local n, total = 0, 0
    for _, p in ipairs(net.players()) do
      total = total + 1
      if ready[p.number] then
        n = n + 1
      end
    end
    net.broadcast("ready", { ready = n, players = total })
    if n == total then
      return string.format("is ready: all %d are, fight!", total)
    end
    return string.format("is ready (%d of %d)", n, total)
  end)
end
