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
	// Decoration is no body at all: its shapes are drawn and never
	// simulated, touched or found by a query (pitch markings, a sign).
	Decoration // decoration
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

	// Category is the set of collision categories the shape is in, a bit
	// each, and Mask the set it collides with: two shapes collide when
	// each one's Mask holds a category of the other's. Zero is box2d's
	// default for each: category 1, and every category. Two shapes of the
	// same non-zero Group never collide when it is negative and always do
	// when it is positive, whatever their categories say.
	Category, Mask uint16
	Group          int16
	// OneWay makes the shape solid only to what meets it from the side
	// its body's +y faces (turned with the body): a platform a character
	// jumps up through and lands on.
	OneWay bool
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

// JointKind names the kind of a joint between two bodies. Its String is
// the name a scene file writes ("revolute"), the line comment below; the
// kinds and their words are box2d's.
type JointKind uint8

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=JointKind -linecomment

const (
	// Revolute pins the two bodies together at one point, each free to
	// turn about it: a hinge, a wheel's axle, a door. It may hold the
	// angle between Lower and Upper and drive it with a motor.
	Revolute JointKind = iota // revolute
	// Prismatic lets B slide along an axis fixed in A, without turning
	// against it: a piston, a lift, a drawer. It may hold the travel
	// between Lower and Upper and drive it with a motor.
	Prismatic // prismatic
	// Distance keeps the two anchors Length apart, rigidly or as a spring
	// (Frequency, DampingRatio).
	Distance // distance
	// Weld holds the bodies together at an anchor, neither sliding nor
	// turning; with Frequency the angle gives like a spring.
	Weld // weld
	// Wheel keeps B's anchor on a line along Axis through A's, sprung
	// along it (Frequency, DampingRatio), with B free to turn and driven by
	// a motor: a car's wheel on its suspension.
	Wheel // wheel
	// Motor drives B toward LinearOffset and AngularOffset in A's frame
	// with at most MaxForce and MaxTorque: a moving platform, a body held
	// where a hand puts it. A motor joint to the world drives A toward
	// that pose in the world.
	Motor // motor
	// Rope keeps the anchors at most Length apart, slack when closer.
	Rope // rope
	// Mouse pulls a point of A toward Target in the world with at most
	// MaxForce, springy (Frequency, DampingRatio): dragging with a pointer.
	Mouse // mouse
	// Friction resists B's sliding and turning against A with at most
	// MaxForce and MaxTorque: top-down friction, a body dragging on the
	// ground it is joined to.
	Friction // friction
)

// JointDef is the authored description of a joint between two bodies, A
// and B, each point given in its own body's frame (metres from the body's
// origin, turning with it), so that it means the same whatever pose the
// bodies stand in when the joint is made. Which fields a kind reads is
// said on each; the rest are ignored.
type JointDef struct {
	Kind JointKind
	// AnchorA and AnchorB are where the joint holds each body. Mouse: A's
	// point that is pulled.
	AnchorA, AnchorB Vec2
	// Axis is the direction in A's frame along which a prismatic joint
	// slides and a wheel's suspension travels; only its direction counts.
	Axis Vec2
	// ReferenceAngle is B's angle less A's when the joint is at its angle
	// 0 (revolute, prismatic, weld), in radians.
	ReferenceAngle float64
	// CollideConnected lets the two bodies collide with each other, which
	// joined bodies otherwise never do.
	CollideConnected bool

	// EnableLimit holds a revolute joint's angle (radians) or a prismatic
	// joint's travel (metres) within Lower..Upper.
	EnableLimit  bool
	Lower, Upper float64
	// EnableMotor drives a revolute, prismatic or wheel joint at
	// MotorSpeed (rad/s; prismatic: m/s) with at most MaxTorque (N·m;
	// prismatic: MaxForce, N).
	EnableMotor bool
	MotorSpeed  float64
	// MaxForce and MaxTorque bound what a motor joint applies, what a
	// mouse joint pulls with (MaxForce), and a revolute, wheel or
	// prismatic joint's motor.
	MaxForce, MaxTorque float64

	// Length is a distance joint's rest length and a rope's longest, in
	// metres.
	Length float64
	// Frequency (Hz) and DampingRatio (1 is critical) soften a distance
	// joint or a weld into a spring (Frequency 0 is rigid), set a wheel's
	// suspension and a mouse joint's pull.
	Frequency, DampingRatio float64

	// LinearOffset and AngularOffset are where a motor joint drives B: its
	// origin's position and its angle in A's frame (for a motor joint to
	// the world, A's in the world). CorrectionFactor (0..1) is how much of
	// the way it goes in each step.
	LinearOffset     Vec2
	AngularOffset    float64
	CorrectionFactor float64

	// Target is where a mouse joint pulls A's anchor to, in the world.
	Target Vec2
}

// JointSpec is a joint as an author writes it, every point and direction
// in one frame (a file's, or the world's for a behavior's), each optional
// field left nil taking its kind's default. The host turns it into a
// JointDef in the bodies' own frames (project.ResolveJoint), with one set
// of rules and defaults for files and behaviors alike.
type JointSpec struct {
	Kind             JointKind
	CollideConnected bool
	// Anchor is where a revolute, prismatic, weld or wheel joint pins the
	// bodies, and the point of A a mouse joint pulls; AnchorA and AnchorB
	// are a distance joint's or rope's two ends.
	Anchor, AnchorA, AnchorB *Vec2
	// Axis is the direction a prismatic joint slides along and a wheel's
	// suspension travels along.
	Axis *Vec2
	// Limits are the lower and upper angle (revolute) or travel
	// (prismatic); given, they hold.
	Limits *[2]float64
	// MotorSpeed, MaxTorque and MaxForce drive a motor, as JointDef says.
	MotorSpeed, MaxTorque, MaxForce *float64
	// Length, Frequency and Damping are JointDef's Length, Frequency and
	// DampingRatio.
	Length, Frequency, Damping *float64
	// Offset, AngularOffset and Correction are a motor joint's
	// LinearOffset, AngularOffset and CorrectionFactor; Target is where a
	// mouse joint pulls.
	Offset        *Vec2
	AngularOffset *float64
	Correction    *float64
	Target        *Vec2
}
