package scripting

import (
	"vkm/internal/entity"
	"vkm/prediction"
)

// World is everything a behavior can reach outside Lua. The host implements
// it over its entity store and physics world; scripting never sees either
// directly, so the same runtime serves a server, a client and offline play.
//
// Engine components are returned as pointers into the store: a behavior's
// write lands in the component at once, and physics picks it up at the next
// gather. A nil pointer means the entity has no such component. Pointers are
// valid until the next structural change (spawn, destroy); the runtime never
// keeps one across calls.
type World interface {
	// Tick is the number of the tick being run (or last run, during a frame).
	Tick() uint32
	// RollTick is the tick number that keys id's math.random in
	// on_fixed_update: the tick, except on a server for an entity a
	// player's commands drive, where it is the client tick of the command
	// being run. A client numbers its ticks its own way, and its
	// prediction of its character rolled by them; the server must roll
	// the same numbers for the same command.
	RollTick(id entity.ID) uint32

	Alive(id entity.ID) bool
	Name(id entity.ID) string
	Parent(id entity.ID) entity.ID
	// Find returns the first live entity with the given name, in slot order.
	Find(name string) entity.ID
	// Next returns the live entity in the lowest slot at or above from, or
	// None: vkm.each, vkm.named and vkm.count walk the world with it, one
	// entity a call, in the slot order every end shares.
	Next(from uint32) entity.ID

	Transform(id entity.ID) *entity.Transform
	Rigidbody(id entity.ID) *entity.Rigidbody
	Controller(id entity.ID) *entity.CharacterController

	// Component returns the values of project component type typ (an index
	// into the schema) on id, or nil if it has none. AddComponent returns the
	// existing values or attaches zeroed ones.
	Component(id entity.ID, typ int) entity.Values
	AddComponent(id entity.ID, typ int) entity.Values
	RemoveComponent(id entity.ID, typ int)

	// Spawn builds the prefab at path (relative to the project folder) with
	// its root at pose and returns the root. Destroy removes id and its
	// subtree at once, calling the runtime's Detach for each of them first,
	// while they are still alive, so on_destroy can read its entity.
	Spawn(path string, pose entity.Transform) (entity.ID, error)
	Destroy(id entity.ID)

	// ApplyImpulse changes id's velocity by an impulse (N·s) through its
	// centre of mass, applied by the behavior of entity by (None: no
	// entity's). It does nothing for a body that is not dynamic. On a
	// client, a body this end does not simulate is leased first when by is
	// one it does: the own character's shot knocks a crate at once, as a
	// push does, instead of waiting for the server to say so.
	ApplyImpulse(by, id entity.ID, ix, iy float64)
	// RayCast returns the closest solid (non-sensor) fixture hit on the
	// segment, ignoring fixtures of ignore.
	RayCast(x1, y1, x2, y2 float64, ignore entity.ID) (Hit, bool)
	// QueryBox calls fn for each entity with a fixture overlapping the box,
	// once each, until fn returns false.
	QueryBox(minX, minY, maxX, maxY float64, fn func(entity.ID) bool)
	// Touching calls fn once for each entity whose fixtures touch id's,
	// sensors included, until fn returns false.
	Touching(id entity.ID, fn func(entity.ID) bool)

	// The four questions a networked behavior asks (see docs/lua.md).
	Simulates(id entity.ID) bool
	IsMine(id entity.ID) bool
	// Command returns the command driving id this tick, or nil for none.
	Command(id entity.ID) *prediction.Command
	IsReplaying() bool

	// Disconnected reports whether this end lost its session (or was
	// refused): the world holds still and nothing is simulated. LastError
	// says why, as a sentence; it is empty while nothing went wrong.
	Disconnected() bool
	LastError() string

	// Who plays (see docs/lua.md, "Players"). Player returns the number of
	// the player whose commands drive id: the entity the join handler gave
	// them; 0 for any other entity. Players appends every seated player to
	// dst in number order. Role says which end this is; LocalPlayer is this
	// end's own player number (0: none, as on a server).
	Player(id entity.ID) uint16
	Players(dst []PlayerInfo) []PlayerInfo
	Role() Role
	LocalPlayer() uint16

	// Rewind calls fn with the other players back where the client
	// driving caller drew them when it made this tick's command, for
	// exactly the length of the call (lag compensation, on a server). Where
	// there is nothing to rewind it just calls fn.
	Rewind(caller entity.ID, fn func())

	// Physics beyond the components (docs/lua.md, "Physics bodies" and
	// "Joints"). Body describes id's body (false: it has none). Push
	// applies a force or an impulse to id's body on behalf of by, as
	// ApplyImpulse does. The setters change the body for the next step;
	// each returns an error a behavior is told of.
	Body(id entity.ID) (BodyInfo, bool)
	Push(by, id entity.ID, p Push)
	SetBodyType(id entity.ID, t entity.BodyType) error
	SetEnabled(id entity.ID, on bool)
	SetDamping(id entity.ID, linear, angular, gravityScale float64) error
	// Shape returns shape i (from 0) of id's body or decoration; AddShape
	// adds one (to an entity with no body, a decoration's) and returns
	// its place; RemoveShape removes one; SetShapeFilter changes one's
	// collision filter.
	Shape(id entity.ID, i int) (entity.Shape, bool)
	AddShape(id entity.ID, s entity.Shape) (int, error)
	RemoveShape(id entity.ID, i int) error
	SetShapeFilter(id entity.ID, i int, category, mask uint16, group int16) error

	// Joints. MakeJoint joins a's body to b's (b None: to the world) as
	// spec says, every point in it in the world where the bodies stand
	// now, and returns the joint's number (never 0, never reused).
	// Joint describes joint j, false once it is gone; SetJoint changes
	// what a running joint may change; JointsOf calls fn with id's joints.
	MakeJoint(a, b entity.ID, spec *entity.JointSpec, name string) (uint32, error)
	RemoveJoint(j uint32)
	Joint(j uint32) (JointInfo, bool)
	SetJoint(j uint32, d entity.JointDef) error
	JointsOf(id entity.ID, fn func(uint32) bool)

	// Emit records a presentation event (a shot, a hit, a pickup).
	Emit(ev Event)
	// Log records a line a behavior wrote with self:log.
	Log(id entity.ID, msg string)
}

// Hit is where a ray met a fixture.
type Hit struct {
	Entity   entity.ID
	X, Y     float64 // the point hit
	NX, NY   float64 // the surface normal there
	Fraction float64 // share of the segment travelled
}

// Event is a presentation event a behavior emitted: something to show or
// play, never something the simulation depends on.
type Event struct {
	Name   string
	Entity entity.ID
	Tick   uint32
	// Fields holds the event's payload: float64, string and bool values.
	Fields map[string]any
}

// BodyInfo is what a behavior reads of a body beyond its components.
type BodyInfo struct {
	Type    entity.BodyType
	Enabled bool
	// Mass (kg) and Inertia (kg·m², about the centre of mass), 0 for a
	// body that is not dynamic; CenterX, CenterY is the centre of mass in
	// the world.
	Mass, Inertia    float64
	CenterX, CenterY float64
	// LinearDamping, AngularDamping and GravityScale as they are now.
	LinearDamping, AngularDamping, GravityScale float64
	// Shapes is how many shapes the body has.
	Shapes int
}

// Push is a force or an impulse a behavior applies to a body: (X, Y)
// through the centre of mass, or at the world point (PX, PY) when At, and
// Turn about the centre of mass. A force (N, N·m) acts in the coming step;
// an impulse (N·s, N·m·s) changes the velocity at once.
type Push struct {
	Impulse bool
	X, Y    float64
	At      bool
	PX, PY  float64
	Turn    float64
}

// JointInfo is a joint as a behavior reads it.
type JointInfo struct {
	Kind entity.JointKind
	// A and B are the joined entities, B None for the world; Name is what
	// a scene, a prefab or MakeJoint named it.
	A, B entity.ID
	Name string
	// Def is the joint's definition as it stands.
	Def entity.JointDef
	// What it did in the last step and where it stands (physics.JointReading).
	ForceX, ForceY, Torque, Motor     float64
	Angle, Translation, Speed, Length float64
	AX, AY, BX, BY                    float64
}
