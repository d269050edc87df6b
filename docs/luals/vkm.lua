---@meta vkm
-- The vkm Lua API, annotated for the Lua language server (LuaLS): completion,
-- hover text and type checks for a project's scripts in an editor. Nothing
-- runs this file; docs/lua.md is the full description of each function.
--
-- Point an editor at it with a .luarc.json in the project folder:
--   { "runtime.version": "Lua 5.1", "workspace.library": ["../../docs/luals"] }
-- (projects/arena ships one). A test in scripting holds this file to the
-- runtime: every name the runtime registers is annotated here, and nothing
-- else is.
--
-- To type a behavior, declare its table as a Behavior:
--   ---@class Walker: Behavior
--   local Walker = {}
--   function Walker:on_fixed_update(dt) local c = self:command() end

---A path inside the project folder, with forward slashes: "prefabs/pickup.toml".
---@alias vkm.Path string

---A value a component field holds: a number, or a boolean for a net.bool field.
---@alias vkm.FieldValue number|boolean

---A codec: how a component field goes on the wire. Made by net.bool,
---net.float32, net.int and net.fixed.
---@class Codec

---The command driving an entity this tick, named after project.toml's input
---actions. The same table is refilled on every self:command() call: read it,
---don't keep it.
---@class Command
---@field axis table<string, number> each axis, -1..1: `c.axis.run`
---@field held table<string, boolean> each button, true while it is down: `c.held.fire`
---@field pressed table<string, boolean> each button, true in the one tick it went down: `c.pressed.jump`

---What self:raycast hit.
---@class Hit
---@field entity Entity the entity whose fixture was hit
---@field x number where, in metres
---@field y number
---@field nx number the surface normal there
---@field ny number
---@field fraction number how far along the segment, 0..1

-------------------------------------------------------------------------------
-- Entities
-------------------------------------------------------------------------------

---An entity handle: `self` in a behavior, and what spawn, find, raycast,
---touching, query and parent return. Handles are unique per entity, so
---`a == b` compares entities. On a destroyed entity every method returns nil
---(alive() returns false) and does nothing.
---@class Entity
local Entity = {}

---The entity's slot: its name on the wire.
---@return integer
function Entity:id() end

---Its name from the scene or prefab ("" when it has none).
---@return string
function Entity:name() end

---Whether it still exists.
---@return boolean
function Entity:alive() end

---The parent's handle, or nil for a root.
---@return Entity?
function Entity:parent() end

---Position in metres, relative to the parent (the world for a root).
---@return number x
---@return number y
function Entity:position() end

---Teleports the entity (and wakes its body).
---@param x number
---@param y number
function Entity:set_position(x, y) end

---Rotation in radians, counter-clockwise.
---@return number
function Entity:angle() end

---Sets the rotation in radians.
---@param a number
function Entity:set_angle(a) end

---Linear velocity in m/s.
---@return number vx
---@return number vy
function Entity:velocity() end

---Sets the linear velocity in m/s; a non-zero velocity wakes the body.
---@param vx number
---@param vy number
function Entity:set_velocity(vx, vy) end

---Angular velocity in rad/s.
---@return number
function Entity:angular_velocity() end

---Sets the angular velocity in rad/s.
---@param w number
function Entity:set_angular_velocity(w) end

---An impulse (N·s) through the centre of mass of a dynamic body. On a client,
---pushing a body it does not simulate from something it does leases the body.
---@param ix number
---@param iy number
function Entity:apply_impulse(ix, iy) end

---Whether the character stood on something at the top of the last controller tick.
---@return boolean
function Entity:grounded() end

---Run toward x × the controller's speed this tick (x is clamped to -1..1).
---@param x number
function Entity:move(x) end

---Jump this tick, if grounded.
function Entity:jump() end

---A component field's value, or nil when the entity lacks the component.
---Engine components: Transform (x, y, angle, scale), Rigidbody (vx, vy,
---angular_velocity, awake), CharacterController (grounded, move_x, jump,
---speed, accel, air_accel, jump_speed).
---@param type string
---@param field string
---@return vkm.FieldValue?
function Entity:get(type, field) end

---Sets a field, quantised by its codec; an error if the entity lacks the component.
---@param type string
---@param field string
---@param value vkm.FieldValue
function Entity:set(type, field, value) end

---Whether the entity has the component.
---@param type string
---@return boolean
function Entity:has(type) end

---Attaches a project component: zeroed, then the given fields.
---@param type string
---@param fields? table<string, vkm.FieldValue>
function Entity:add(type, fields) end

---Removes a project component.
---@param type string
function Entity:remove(type) end

---A new table with every field of the component (allocates: prefer get in a tick).
---@param type string
---@return table<string, vkm.FieldValue>?
function Entity:component(type) end

---Builds a prefab with its root at the pose and returns the root. A connected
---client cannot spawn (the server does).
---@param prefab vkm.Path
---@param x number
---@param y number
---@param angle? number radians
---@param scale? number
---@return Entity
function Entity:spawn(prefab, x, y, angle, scale) end

---Destroys the entity and everything below it; their on_destroy runs first.
function Entity:destroy() end

---The closest solid fixture on the segment, ignoring this entity's own.
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@return Hit?
function Entity:raycast(x1, y1, x2, y2) end

---Every entity with a fixture overlapping the box, once each, in slot order
---(sensors and the caller included).
---@param minx number
---@param miny number
---@param maxx number
---@param maxy number
---@return Entity[]
function Entity:query(minx, miny, maxx, maxy) end

---The entities whose fixtures touch this one's, sensors included.
---@return Entity[]
function Entity:touching() end

---A presentation event for this tick (never sent to another end). Emit only
---when not is_replaying().
---@param name string
---@param fields? table<string, number|string|boolean>
function Entity:emit(name, fields) end

---A log line tagged with the entity.
---@param ... any
function Entity:log(...) end

---May this end write the entity's state? Server and offline: true; a client:
---its own entity and what it leases.
---@return boolean
function Entity:is_simulated() end

---Is this the local player's entity? (camera, HUD). Always false on a server.
---@return boolean
function Entity:is_mine() end

---This tick's input for the entity: its player's command, or an empty one.
---@return Command
function Entity:command() end

---Is this tick a replay? (skip sounds and effects)
---@return boolean
function Entity:is_replaying() end

---True when the deadline tick the component field holds has come (or it holds
---0); it then stores a new deadline `seconds` from now. False otherwise,
---changing nothing. The field must hold any tick exactly (net.int(0, 4294967295)).
---@param type string a component type
---@param field string
---@param seconds number
---@return boolean
function Entity:cooldown(type, field, seconds) end

---The seconds until the deadline tick the component field holds; 0 once it has
---come; nil without the component.
---@param type string
---@param field string
---@return number?
function Entity:remaining(type, field) end

---The field's value when it is greater than every value this end has seen in
---it through fresh before (true for a boolean turning true); nil otherwise,
---and nil on the first call for an entity and field, which only records (on a
---client, again after the server's first word on the entity). For on_update:
---present a replicated cause (a shot's tick, a pickup count) once.
---@param type string
---@param field string
---@return number|boolean|nil
function Entity:fresh(type, field) end

---The number of the player whose commands drive this entity (the entity the
---join handler returned), or 0 when no player drives it. The same on every end.
---@return integer
function Entity:player() end

-------------------------------------------------------------------------------
-- Behaviors
-------------------------------------------------------------------------------

---A behavior: a table of callbacks, registered in vkmRegisterBehaviors and
---named on an entity with `behavior = "..."`. Its instance is the entity's
---handle, with the entity's props as fields. Every callback is optional.
---@class Behavior: Entity
local Behavior = {}

---Once, after the entity is built, before its first tick.
function Behavior:on_start() end

---Every tick, in slot order: the game's rules.
---@param dt number seconds, 1 / tickRate
function Behavior:on_fixed_update(dt) end

---Every drawn frame, after the frame's ticks: presentation only; methods that
---change the world raise an error here.
---@param dt number the frame's wall time in seconds
function Behavior:on_update(dt) end

---When the entity (or an ancestor) is destroyed, while it can still be read.
function Behavior:on_destroy() end

---On a dev server and its dev clients, right after a hot reload re-pointed the
---instance to its new code (its fields are kept).
function Behavior:on_reload() end

---What vkmRegisterBehaviors receives: `r.walker = Walker` or
---`r:register("walker", Walker)` registers a behavior; `r.walker` reads it back.
---@class Registry
---@field [string] Behavior
local Registry = {}

---Registers class under name; a name registered twice is an error.
---@param name string
---@param class table
function Registry:register(name, class) end

---What vkmBuildScene receives.
---@class Scene
local Scene = {}

---Builds a prefab into the scene and returns its root.
---@param prefab vkm.Path
---@param x number
---@param y number
---@param angle? number
---@param scale? number
---@return Entity
function Scene:spawn(prefab, x, y, angle, scale) end

---The first live entity with that name, or nil.
---@param name string
---@return Entity?
function Scene:find(name) end

-------------------------------------------------------------------------------
-- The entry script's functions (project.toml's entryScript defines them)
-------------------------------------------------------------------------------

---Registers the project's behaviors; runs once at load and on every reload.
---@param r Registry
function vkmRegisterBehaviors(r) end

---Registers the replicated component types and the join handler; runs after
---registration and whenever the schema is rebuilt. Without it a project plays
---offline only.
---@param net net
function vkmSetupNetwork(net) end

---Adds to the entry scene from code, before the scene's on_start.
---@param scene Scene
function vkmBuildScene(scene) end

-------------------------------------------------------------------------------
-- Globals
-------------------------------------------------------------------------------

---Runs another script of the project once and returns what it returned (later
---imports return the same value).
---@param path vkm.Path a .lua file, relative to the project folder
---@return any
function import(path) end

---Logs a line, tagged with the entity whose callback is running (never stdout).
---@param ... any
function print(...) end

---The engine's helpers.
---@class vkm
vkm = {}

---The number of the tick being run.
---@return integer
function vkm.tick() end

---An iterator over the live entities with that component, in slot order,
---bodies or not: `for e in vkm.each("Coin") do ... end`.
---@param type string
---@return fun(): Entity?
function vkm.each(type) end

---An iterator over the live entities with exactly that name, in slot order.
---@param name string
---@return fun(): Entity?
function vkm.named(name) end

---How many live entities have that component.
---@param type string
---@return integer
function vkm.count(type) end

---The tick number `seconds` from now on the calling entity's clock, rounded up
---to a whole tick: a deadline to keep in a component field.
---@param seconds number
---@return integer
function vkm.after(seconds) end

---How many seconds that many ticks last at the project's tick rate.
---@param ticks integer
---@return number
function vkm.seconds(ticks) end

---The first live entity with that name, in slot order, or nil.
---@param name string
---@return Entity?
function vkm.find(name) end

---x limited to lo..hi.
---@param x number
---@param lo number
---@param hi number
---@return number
function vkm.clamp(x, lo, hi) end

---The point share t of the way from a to b.
---@param a number
---@param b number
---@param t number
---@return number
function vkm.lerp(a, b, t) end

---The sign of x: -1, 0 or 1.
---@param x number
---@return integer
function vkm.sign(x) end

---x moved toward target by at most step, never past it.
---@param x number
---@param target number
---@param step number
---@return number
function vkm.approach(x, target, step) end

---The length of the vector (x, y).
---@param x number
---@param y number
---@return number
function vkm.length(x, y) end

---The distance between two points.
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@return number
function vkm.distance(x1, y1, x2, y2) end

---The unit vector along (x, y) and the original length; 0, 0, 0 for the zero vector.
---@param x number
---@param y number
---@return number ux
---@return number uy
---@return number length
function vkm.normalize(x, y) end

---The session and the network schema: passed to vkmSetupNetwork, and a global
---for behaviors. Reading any other field is an error.
---@class net
net = {}

---Codec of a true/false field.
---@type Codec
net.bool = nil

---Codec of a number carried as a 32-bit float.
---@type Codec
net.float32 = nil

---Codec of a whole number in min..max.
---@param min integer
---@param max integer
---@return Codec
function net.int(min, max) end

---Codec of a number in min..max in multiples of step (zero is exact).
---@param min number
---@param max number
---@param step number
---@return Codec
function net.fixed(min, max, step) end

---Registers a replicated component type (only inside vkmSetupNetwork). fields
---is a list of {name, codec} pairs, in wire order; it may be empty (a tag).
---@param name string
---@param fields [string, Codec][]
function net.component(name, fields) end

---Sets the join handler (only inside vkmSetupNetwork): fn(player) returns the
---player's entity, or nil to refuse the join.
---@param fn fun(player: integer): Entity?
function net.on_join(fn) end

---Sets the leave handler (only inside vkmSetupNetwork): fn(player, entity)
---runs on the server while the leaving player's entity is still alive; the
---entity is destroyed afterwards unless fn returns true.
---@param fn fun(player: integer, entity: Entity?): boolean?
function net.on_leave(fn) end

---Sets the drain handler (only inside vkmSetupNetwork): fn(seconds_left) runs
---once, on the server, when it starts to stop: it takes no new players, and
---sends the ones still seated away once they have all left or seconds_left
---has passed. A game ends its round here.
---@param fn fun(seconds_left: number)
function net.on_drain(fn) end

---One player as net.players() lists it. number, name and entity are the same
---on every end; rtt is for showing only.
---@class vkm.Player
---@field number integer
---@field name string
---@field entity Entity? nil until this end holds the player's entity
---@field rtt number round trip in seconds, as the server measures it

---Every seated player, in player-number order.
---@return vkm.Player[]
function net.players() end

---The part this end plays: "server", "client" or "offline" (a client that
---lost its session is still "client").
---@return "server"|"client"|"offline"
function net.role() end

---This client's player number: 0 on a server, 1 offline once joined.
---@return integer
function net.local_player() end

---Builds a prefab like self:spawn, for code with no entity at hand.
---@param prefab vkm.Path
---@param x number
---@param y number
---@param angle? number
---@param scale? number
---@return Entity
function net.spawn(prefab, x, y, angle, scale) end

---True once this client's session was lost or refused.
---@return boolean
function net.is_disconnected() end

---Why the session ended, as a sentence a player can read; "" while nothing went wrong.
---@return string
function net.last_error() end

---fn(...)'s results, with every other player back where the calling entity's
---player saw them (lag compensation on a server; a plain call elsewhere).
---@generic R
---@param fn fun(...): R
---@param ... any
---@return R
function net.rewind(fn, ...) end
