// Package entity holds the vocabulary every simulation package shares: how an
// entity is named (slot and generation) and the engine's component values.
// It has no behavior of its own, so physics, scripting, replication and host
// can all speak of the same entity without importing one another.
package entity

import (
	"fmt"
	"math"
)

// ID names one occupant of one slot. A slot is an entity's name on the wire;
// the generation tells two occupants of the same slot apart, so a handle to a
// destroyed entity never reaches the entity that took its slot later.
// Generations start at 1; the zero ID names nothing.
type ID struct {
	Slot uint32
	Gen  uint32
}

// None is the zero ID, which names no entity.
var None ID

// IsNone reports whether id names no entity.
func (id ID) IsNone() bool { return id.Gen == 0 }

func (id ID) String() string {
	if id.IsNone() {
		return "none"
	}
	return fmt.Sprintf("%d#%d", id.Slot, id.Gen)
}

// MaxSlot bounds slot numbers so an ID packs into a float64 exactly
// (Pack) and a scene cannot ask for an absurd allocation.
const MaxSlot = 1<<24 - 1

// Pack folds id into one integer-valued float64, exact for every slot up to
// MaxSlot and generation below 2^29, which is how Lua holds an entity.
func (id ID) Pack() float64 { return float64(uint64(id.Gen)<<24 | uint64(id.Slot)) }

// Unpack reverses Pack. A value that is not an exact packed ID yields None.
func Unpack(f float64) ID {
	if !(f >= 0 && f < 1<<53) || f != float64(uint64(f)) {
		return None
	}
	u := uint64(f)
	return ID{Slot: uint32(u & MaxSlot), Gen: uint32(u >> 24)}
}

// Transform is an entity's pose relative to its parent (for a root entity,
// the world). Scale is visual only: physics never reads it.
type Transform struct {
	X, Y  float64 // metres, y up
	Angle float64 // radians, counter-clockwise
	Scale float64 // 1 when not scaled
}

// Identity is the transform of an entity placed at the origin, unrotated and
// unscaled.
var Identity = Transform{Scale: 1}

// Rigidbody is the motion state of an entity's physics body.
type Rigidbody struct {
	VX, VY          float64 // metres per second
	AngularVelocity float64 // radians per second
	Awake           bool
}

// CharacterController drives a player's character. In side view
// (SideView) it runs along x toward a commanded speed and jumps on a
// button edge when grounded, gravity doing the rest; top-down (TopDown) it
// moves on both axes toward a commanded velocity and has no ground and no
// jump. Grounded is the replicated state; the rest is tuning from the
// scene and the intent a behavior writes for the next tick.
type CharacterController struct {
	// Grounded is set by the controller at the top of its tick, from the
	// contacts of the step before. Always false top-down.
	Grounded bool

	// Tuning (from the scene, not replicated).
	Mode      ControllerMode
	Speed     float64 // run speed (top-down: the speed at full stick, any direction), m/s
	Accel     float64 // acceleration toward the commanded velocity (side view: on the ground), m/s²
	AirAccel  float64 // side view: acceleration while not grounded, m/s²
	JumpSpeed float64 // side view: upward speed set by a jump, m/s
	Friction  float64 // top-down: deceleration while there is no intent, m/s²

	// Intent for the coming tick, written by behaviors and consumed (cleared)
	// by the controller.
	MoveX float64 // -1..1, share of Speed to run toward along x
	MoveY float64 // top-down: share of Speed along y; (MoveX, MoveY) is at most 1 long
	Jump  bool    // side view: an edge, jump now if grounded
}

// Move sets the intent to move toward (x, y) shares of Speed, as the mode
// reads it: in side view x is clamped to -1..1 and y is ignored (a
// behavior written for both modes may pass both axes); top-down a vector
// longer than 1 is scaled to length 1, so a diagonal is no faster than a
// straight line.
func (c *CharacterController) Move(x, y float64) {
	if c.Mode == TopDown {
		c.MoveX, c.MoveY = ClampUnit(x, y)
		return
	}
	c.MoveX, c.MoveY = math.Max(-1, math.Min(1, x)), 0
}

// ClampUnit returns (x, y) scaled down to length 1 when it is longer, and
// unchanged otherwise. Each product is rounded on its own (no fused
// multiply-add), so every build computes the same bits.
func ClampUnit(x, y float64) (float64, float64) {
	n2 := float64(x*x) + float64(y*y)
	if n2 <= 1 {
		return x, y
	}
	n := math.Sqrt(n2)
	return x / n, y / n
}

// ControllerMode says how a CharacterController moves its character. Its
// String is the name a scene file writes ("topdown"), the line comment
// below.
type ControllerMode uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=ControllerMode -linecomment

const (
	// SideView runs along x under gravity and jumps: a platformer.
	SideView ControllerMode = iota // side
	// TopDown moves on both axes with no ground and no jump: a game seen
	// from above.
	TopDown // topdown
)

// BodyType says how a body moves. Its String is the name a scene file
// writes ("dynamic"), the line comment below.
type BodyType uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=BodyType -linecomment

const (
	// Static never moves; level geometry.
	Static BodyType = iota // static
	// Dynamic is moved by forces, contacts and the solver.
	Dynamic // dynamic
	// Kinematic is moved only by its velocity.
	Kinematic // kinematic
)

// ShapeKind names a collision shape's geometry. Its String is the name a
// scene file writes ("box"), the line comment below.
type ShapeKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=ShapeKind -linecomment

const (
	// Box is a W×H rectangle centred on Offset, turned by Angle.
	Box ShapeKind = iota // box
	// Circle is Radius around Offset.
	Circle // circle
	// Polygon is convex, 3..8 Points, in either winding.
	Polygon // polygon
	// Chain is an edge chain through Points (Loop closes it); for level
	// geometry.
	Chain // chain
)

// Vec2 is a point or size in metres.
type Vec2 struct{ X, Y float64 }

// Shape is one fixture of a body, in the body's own frame.
type Shape struct {
	Kind        ShapeKind
	W, H        float64 // Box
	Radius      float64 // Circle
	Points      []Vec2  // Polygon, Chain
	Loop        bool    // Chain: join the last point to the first
	Offset      Vec2
	Angle       float64 // Box only
	Density     float64 // kg/m²
	Friction    float64
	Restitution float64
	Sensor      bool // reports overlaps, never pushes
}

// BodyDef is the authored description of an entity's physics body. It is not
// replicated: both ends load it from the same scene or prefab file.
type BodyDef struct {
	Type           BodyType
	FixedRotation  bool
	Bullet         bool
	LinearDamping  float64
	AngularDamping float64
	GravityScale   float64 // 1 for normal gravity
	Shapes         []Shape
}

// Values holds the fields of one project component in its type's field order.
// Every field kind (bool, integer, quantised number) is carried as a float64,
// which is exact for all of them.
type Values []float64

// NetSpawn is what a spawned root is: the prefab it was built from, the pose
// it was built at (whole floats, never quantised: it is said once and a
// rounded pose would be a difference no later packet corrects) and the slot
// each entity of the instance took, by the prefab's uids. A client builds
// the same prefab into the same slots from it, so only the root is ever
// described.
type NetSpawn struct {
	Prefab string
	Pose   Transform
	Slots  []SpawnSlot // by uid; empty when the instance had too many to say
}

// SpawnSlot is the slot one prefab entity (by uid) took in an instance.
type SpawnSlot struct {
	UID  uint32
	Slot uint32
}
