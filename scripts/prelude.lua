-- The vkm prelude: small helpers every behavior can use, run first in every
-- Lua state before the project's scripts. The runtime has already made the
-- global table `vkm` (with vkm.tick and vkm.find); this file adds to it.
-- Everything here is plain Lua arithmetic, so it is identical on every end.

local vkm = vkm
local sqrt = math.sqrt

-- vkm.clamp(x, lo, hi): x limited to [lo, hi].
function vkm.clamp(x, lo, hi)
  if x < lo then return lo end
  if x > hi then return hi end
  return x
end

-- vkm.lerp(a, b, t): the point a share t of the way from a to b.
function vkm.lerp(a, b, t)
  return a + (b - a) * t
end

-- vkm.sign(x): -1, 0 or 1.
function vkm.sign(x)
  if x > 0 then return 1 end
  if x < 0 then return -1 end
  return 0
end

-- vkm.approach(x, target, step): x moved toward target by at most step,
-- never past it (step is a magnitude).
function vkm.approach(x, target, step)
  if x < target then
    x = x + step
    if x > target then return target end
    return x
  end
  x = x - step
  if x < target then return target end
  return x
end

-- vkm.length(x, y): the length of the vector (x, y).
function vkm.length(x, y)
  return sqrt(x * x + y * y)
end

-- vkm.distance(x1, y1, x2, y2): the distance between two points.
function vkm.distance(x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  return sqrt(dx * dx + dy * dy)
end

-- vkm.normalize(x, y): the unit vector along (x, y) and the original
-- length; (0, 0, 0) for the zero vector.
function vkm.normalize(x, y)
  local n = sqrt(x * x + y * y)
  if n == 0 then return 0, 0, 0 end
  return x / n, y / n, n
end
