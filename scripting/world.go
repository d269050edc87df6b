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
