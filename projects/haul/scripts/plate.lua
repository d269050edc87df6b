-- A pressure plate: a static sensor that is down while a worker stands on
-- it. The server decides (a static plate is simulated there and nowhere
-- else) and says so in the plate's Plate component, which every end reads:
-- the crane and the drawbridge set their motors from it on every end, so a
-- client that leases the block or the bridge predicts it moving as the
-- server moves it.
--
-- It counts the workers on it from on_contact, which tells it each time one
-- of its shapes begins or stops touching another's, once each; `touching`
-- would tell it the same by asking every tick.

local Plate = {}

function Plate:on_start()
  self.on = 0 -- workers standing on the plate, on the server
end

function Plate:on_contact(other, info)
  if not other:alive() or not other:has("Worker") then return end
  if info.begin then
    self.on = self.on + 1
  else
    self.on = math.max(0, self.on - 1)
  end
  self:set("Plate", "down", self.on > 0)
end

return Plate
