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

---An impulse (N·s) through the centre of mass of a dynamic body, or at the
---world point (px, py), which turns it too. On a client, pushing a body it does
---not simulate from something it does leases the body.
---@param ix number
---@param iy number
---@param px? number
---@param py? number
function Entity:apply_impulse(ix, iy, px, py) end

---A force (N) for this tick's step, through the centre of mass or at the world
---point (px, py). A force lasts one step: apply it every tick it pushes.
---@param fx number
---@param fy number
---@param px? number
---@param py? number
function Entity:apply_force(fx, fy, px, py) end

---A torque (N·m, counter-clockwise) for this tick's step.
---@param torque number
function Entity:apply_torque(torque) end

---An angular impulse (N·m·s): changes the spin at once.
---@param impulse number
function Entity:apply_angular_impulse(impulse) end

---The body's mass in kg (0 unless dynamic).
---@return number?
function Entity:mass() end

---The body's rotational inertia about its centre of mass, kg·m².
---@return number?
function Entity:inertia() end

---The body's centre of mass in the world.
---@return number x
---@return number y
function Entity:center_of_mass() end

---"static", "dynamic", "kinematic" or "decoration".
---@return string?
function Entity:body_type() end

---Makes the body static, dynamic or kinematic.
---@param type "static"|"dynamic"|"kinematic"
function Entity:set_body_type(type) end

---Whether the body takes part in the world.
---@return boolean?
function Entity:enabled() end

---Takes the body out of the world (false) or puts it back.
---@param on boolean
function Entity:set_enabled(on) end

---The body's linear and angular damping (1/s).
---@return number linear
---@return number angular
function Entity:damping() end

---Sets the body's damping; angular stays as it is when left out.
---@param linear number
---@param angular? number
function Entity:set_damping(linear, angular) end

---How much of the scene's gravity pulls the body.
---@return number?
function Entity:gravity_scale() end

---Sets how much of the scene's gravity pulls the body (0 floats).
---@param scale number
function Entity:set_gravity_scale(scale) end

---How many shapes the body (or decoration) has.
---@return integer
function Entity:shape_count() end

---A shape for add_shape: exactly one of box, circle, polygon, chain, and what a
---scene file's [[entity.body.shape]] may say.
---@class ShapeSpec
---@field box? number[] {w, h}
---@field circle? number radius
---@field polygon? number[][] {{x, y}, ...}
---@field chain? number[][] {{x, y}, ...}
---@field loop? boolean
---@field offset? number[] {x, y}
---@field angle? number
---@field density? number default 1
---@field friction? number default 0.6
---@field restitution? number default 0
---@field sensor? boolean
---@field category? string|string[]
---@field mask? string|string[]
---@field group? integer
---@field one_way? boolean

---Adds a shape to the body (to an entity with no body: a decoration's shape,
---only drawn) and returns its number, from 1.
---@param spec ShapeSpec
---@return integer
function Entity:add_shape(spec) end

---Removes shape i (from 1); the later shapes move down one.
---@param i integer
function Entity:remove_shape(i) end

---A shape's collision filter.
---@class Filter
---@field category? string|string[] the categories it is in
---@field mask? string|string[] the categories it collides with
---@field group? integer

---Shape i's (default 1) collision filter, categories by name.
---@param i? integer
---@return Filter?
function Entity:filter(i) end

---Changes the collision filter of shape i, or of every shape; what the table
---leaves out stays.
---@param filter Filter
---@param i? integer
function Entity:set_filter(filter, i) end

---The joints of the body, in the order they are solved.
---@return Joint[]
function Entity:joints() end

---The first of the body's joints with that name (from its scene, its prefab or
---vkm.joint), or nil.
---@param name string
---@return Joint?
function Entity:joint(name) end

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
---On a client with guests (several players on one screen) it is true for
---each of this client's players' characters, the guests' included.
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
---join handler returned), or 0 when no player drives it. The same on every end;
---a guest's character is the guest's own number.
---@return integer
function Entity:player() end

-------------------------------------------------------------------------------
-- Joints
-------------------------------------------------------------------------------

---What vkm.joint takes besides the kind and the bodies, every point in the
---world where the bodies stand now; each key left out takes its kind's default,
---as a scene's [[joint]] does.
---@class JointOptions
---@field anchor? number[] {x, y}: revolute, prismatic, weld, wheel, friction; mouse: the point of a pulled
---@field anchor_a? number[] distance, rope: a's end
---@field anchor_b? number[] distance, rope: b's end, or the world point hung from
---@field axis? number[] prismatic, wheel: the direction b moves along
---@field limits? number[] {lower, upper}: revolute (radians), prismatic (m)
---@field motor_speed? number rad/s (prismatic: m/s)
---@field max_torque? number N·m
---@field max_force? number N
---@field length? number distance, rope
---@field frequency? number Hz
---@field damping? number
---@field offset? number[] motor
---@field angular_offset? number motor
---@field correction? number motor, 0..1
---@field target? number[] mouse
---@field collide_connected? boolean
---@field name? string

---A joint between two bodies, or a body and the world: from vkm.joint,
---self:joints() or self:joint(name). Handles compare with ==. Once the joint is
---gone (destroyed, or one of its bodies), every method returns nil and alive()
---false.
---@class Joint
local Joint = {}

---Whether the joint still exists.
---@return boolean
function Joint:alive() end

---"revolute", "prismatic", "distance", "weld", "wheel", "motor", "rope", "mouse" or "friction".
---@return string?
function Joint:kind() end

---Its name ("" for none).
---@return string?
function Joint:name() end

---The two joined entities; b is nil for the world.
---@return Entity? a
---@return Entity? b
function Joint:bodies() end

---Removes the joint.
function Joint:destroy() end

---The force (N) the joint applied to b in the last step (a mouse or motor joint
---to the world: to a); break a joint pulled too hard with it.
---@return number fx
---@return number fy
function Joint:reaction_force() end

---The torque (N·m) it applied to b in the last step.
---@return number?
function Joint:reaction_torque() end

---What its motor applied in the last step: N·m (prismatic: N).
---@return number?
function Joint:motor_torque() end

---b's angle less a's less the reference angle, radians.
---@return number?
function Joint:angle() end

---How fast it turns (rad/s) or slides (prismatic: m/s).
---@return number?
function Joint:speed() end

---How far b's anchor stands along the axis (prismatic, wheel), m.
---@return number?
function Joint:translation() end

---The distance between the anchors now, m.
---@return number?
function Joint:distance() end

---The anchors in the world now (a mouse joint's b: its target).
---@return number ax
---@return number ay
---@return number bx
---@return number by
function Joint:anchors() end

---The motor's speed.
---@return number?
function Joint:motor_speed() end

---Drives the motor at speed (and turns it on).
---@param speed number
function Joint:set_motor_speed(speed) end

---Whether the motor runs.
---@return boolean?
function Joint:motor_enabled() end

---Turns the motor on or off.
---@param on boolean
function Joint:set_motor_enabled(on) end

---The most torque the motor (or a motor joint) applies, N·m.
---@return number?
function Joint:max_torque() end

---@param torque number
function Joint:set_max_torque(torque) end

---The most force a prismatic motor, a motor joint or a mouse joint applies, or a
---friction joint resists sliding with, N.
---@return number?
function Joint:max_force() end

---@param force number
function Joint:set_max_force(force) end

---The limits: lower and upper.
---@return number lower
---@return number upper
function Joint:limits() end

---Sets the limits (lower first) and turns them on.
---@param lower number
---@param upper number
function Joint:set_limits(lower, upper) end

---Whether the limits hold.
---@return boolean?
function Joint:limits_enabled() end

---@param on boolean
function Joint:set_limits_enabled(on) end

---A distance joint's rest length, a rope's longest, m.
---@return number?
function Joint:length() end

---@param length number
function Joint:set_length(length) end

---The spring's frequency, Hz (0: rigid).
---@return number?
function Joint:frequency() end

---@param hz number
function Joint:set_frequency(hz) end

---The spring's damping ratio.
---@return number?
function Joint:damping() end

---@param ratio number
function Joint:set_damping(ratio) end

---Where a mouse joint pulls to, in the world.
---@return number x
---@return number y
function Joint:target() end

---Moves a mouse joint's target: drag it with the pointer.
---@param x number
---@param y number
function Joint:set_target(x, y) end

---A motor joint's offset: b's target position in a's frame (joined to the
---world: a's in the world) and angle.
---@return number x
---@return number y
---@return number angle
function Joint:offset() end

---@param x number
---@param y number
---@param angle? number
function Joint:set_offset(x, y, angle) end

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

---What on_contact is told of a touch, from the side of the entity it runs for.
---@class ContactInfo
---@field begin boolean true when the shapes began to touch, false when they stopped
---@field sensor boolean either shape is a sensor
---@field shape integer which of this entity's shapes, from 1
---@field other_shape integer which of the other's shapes, from 1
---@field x number where they touch (at a begin; 0 at an end)
---@field y number
---@field nx number the unit normal from this entity toward the other (at a begin)
---@field ny number
---@field speed number how fast the two were closing along the normal, m/s (at a begin)

---When one of the entity's shapes begins or stops touching another's, after
---the tick's physics step, on the ends that simulate the entity, never during
---a replay. `other` may already be destroyed at an end.
---@param other Entity
---@param info ContactInfo
function Behavior:on_contact(other, info) end

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

---Joins a's body to b's (nil: to the world) with a joint of kind, and returns
---it. Every point in opts is in the world, where the bodies stand now; each
---option left out takes its kind's default, as a scene's [[joint]] does. Make
---joints where every end makes them (code every end runs), as bodies are.
---@param kind "revolute"|"prismatic"|"distance"|"weld"|"wheel"|"motor"|"rope"|"mouse"|"friction"
---@param a Entity
---@param b Entity?
---@param opts? JointOptions
---@return Joint
function vkm.joint(kind, a, b, opts) end

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

---Declares a message type (only inside vkmSetupNetwork): fields is a list of
---{name, codec} pairs, as a component's, at most 32; none is an empty message.
---The project's messages are part of its schema: a peer with others is refused.
---@param name string
---@param fields? [string, Codec][]
function net.message(name, fields) end

---Sets the handler of a declared message (only inside vkmSetupNetwork). On the
---server fn(player, fields) runs for each one a player sent; on a client
---fn(nil, fields) for each one the server sent. It runs at the top of the next
---tick, before behaviors, never during a replay.
---@param name string
---@param fn fun(player: integer?, fields: table<string, number|boolean>)
function net.on_message(name, fn) end

---Sends a message to the server (a client; offline, to this end's handler as
---player 1). Returns false, sending nothing, during a replay or when the session
---is lost. The server judges: a message is a request, not a command.
---@param name string
---@param fields? table<string, number|boolean>
---@return boolean
function net.send(name, fields) end

---Sends a message to a player or a list of players (the server; offline, to
---this end's handler when the local player is among them).
---@param player integer|integer[]
---@param name string
---@param fields? table<string, number|boolean>
---@return boolean
function net.send_to(player, name, fields) end

---Sends a message to a player, a list of them, or "all" (the server): net.send_to
---or net.broadcast by its first argument.
---@param to integer|integer[]|"all"
---@param name string
---@param fields? table<string, number|boolean>
---@return boolean
function net.tell(to, name, fields) end

---Sends a message to every seated player (the server; offline, to this end's
---handler).
---@param name string
---@param fields? table<string, number|boolean>
---@return boolean
function net.broadcast(name, fields) end

---Sets the chat's judge (only inside vkmSetupNetwork): on the server,
---fn(player, text) runs for every line a player types, and returns the line to
---send every player (text, or another to rewrite it), false to refuse it, or
---nothing to keep it as typed; and after it, optionally, the player numbers to
---send it to alone (a team's channel).
---@param fn fun(player: integer, text: string): (string|false|nil), integer[]?
function net.on_chat(fn) end

---The voice's judge (with [voice] in project.toml): the server calls it a few
---times a second for each pair of seated players, and forwards speaker's voice
---to listener at the gain it returns (0..2.55; true is 1), not at all for false,
---or as [voice]'s mode says for nil. Replace it to decide per pair:
---`function net.voice_hears(listener, speaker) return 1 end`. The default
---returns nil. It runs on the server alone.
---@param listener integer
---@param speaker integer
---@return number|boolean|nil
function net.voice_hears(listener, speaker) end

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

---One spectator as net.spectators() lists it: it watches, holds no seat and
---has no entity.
---@class vkm.Spectator
---@field number integer its number, from the same numbers as the players'
---@field name string
---@field follows integer the player it follows, 0 for the whole level

---Every spectator watching, in number order: on the server only (a client
---and a replay list none). For showing only: a recording does not hold
---spectators, so the simulation must not depend on them.
---@return vkm.Spectator[]
function net.spectators() end

---Shows this end's player the last seconds again from another player's
---character (a killcam): on a client, its view plays back what it drew over
---the last seconds with the camera on player's character, then goes back
---to the game, which plays on meanwhile. Presentation only: a server, an
---offline game and a replay have no view, and it returns false there.
---@param player integer the player whose character the camera follows
---@param seconds number above 0, at most 10
---@return boolean shown true on a client
function net.killcam(player, seconds) end

---The part this end plays: "server", "client" or "offline" (a client that
---lost its session is still "client").
---@return "server"|"client"|"offline"
function net.role() end

---This client's player number: 0 on a server, 1 offline once joined. On a
---client with guests, its own player's number (not a guest's).
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
