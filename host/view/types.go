package view

import (
	"time"

	"vkm/internal/entity"
)

// Actions describes a project's input actions in command order: axis i is
// command slot i and button i is command bit i. The page binds keys and the
// mouse to them; the server reports input in the same order.
type Actions struct {
	Axes    []Axis
	Buttons []Button
	// Guests is how many players the page drives besides its own, 0 to
	// MaxLocal-1 (more are cut): with any, the page splits the keyboard
	// (the arrow-side keys drive guest 1) and reads gamepads (each drives
	// a guest from 2 on), and sends each local player's input apart
	// (TakeInputOf).
	Guests int
}

// MaxLocal is how many players one page drives: its own and seven guests.
const MaxLocal = 8

// Axis is an input action with a value in -1..1. The page sets it from keys
// (any of Negative held gives -1, any of Positive +1, both or neither 0) or,
// with Mouse "x" or "y", from the aim: the x or y component of the unit
// vector from the own entity's drawn position to the mouse pointer; with
// "point_x" or "point_y", the pointer's offset from that position over
// Reach metres, held to -1..1.
type Axis struct {
	Name     string
	Negative []string // KeyboardEvent.code names, e.g. "KeyA", "ArrowLeft"
	Positive []string
	Mouse    string  // "", "x", "y", "point_x" or "point_y"
	Reach    float64 // metres, with "point_x" and "point_y"
}

// Button is an input action that is held or not. The page holds it while
// any of Keys, or the mouse button named by Mouse, is down.
type Button struct {
	Name  string
	Keys  []string // KeyboardEvent.code names, e.g. "Space"
	Mouse string   // "", "left" or "right"
}

// Link is the link simulator's setting as the page's sliders show it. It
// mirrors the one-way figures of a simulated link: Latency is the delay,
// Jitter spreads it by ± Jitter, Loss is the share of datagrams dropped.
type Link struct {
	Latency time.Duration // 0..MaxLatency
	Jitter  time.Duration // 0..MaxJitter
	Loss    float64       // 0..MaxLoss, a share (0.02 is 2 %)
}

// Limits of the link sliders. A link message from the page is clamped to
// them before Config.OnLink sees it.
const (
	// MaxLatency is one second one way: far past any real route, still short
	// enough that a game shows what happens instead of freezing.
	MaxLatency = time.Second
	// MaxJitter is half of MaxLatency, so a setting can swing from nothing
	// to twice its latency.
	MaxJitter = 500 * time.Millisecond
	// MaxLoss is one datagram in two; past that nothing playable remains
	// to look at.
	MaxLoss = 0.5
)

// Camera is how the page frames the world (project.Camera): Mode
// "follow" centres on the own entity, "fixed" on Center, "fit" shows Box
// whole (the level when Box is zero). MinWidth and MaxWidth bound the
// mouse wheel's zoom and a fit camera's width; 0 is no bound.
type Camera struct {
	Mode               string
	Center             entity.Vec2
	Box                [2]entity.Vec2
	MinWidth, MaxWidth float64
}

// Sound is a sound the page plays for an event (project.Sound): File
// under /asset/, Volume 0..1, fading to silence Range metres from the
// middle of the view (0: unplaced).
type Sound struct {
	Event, File   string
	Volume, Range float64
	// Change, in place of Event, is the component field ("Type.field")
	// whose change plays it: the frame's "vkm.change" effect at the
	// entity, its field named in the effect's fields.
	Change string
}

// Scene is what the page draws entities with: one Body per drawn entity. A
// frame's pose for an entity without a Body is drawn as a small marker.
type Scene struct {
	Bodies []Body
}

// Body describes how one entity looks: its shapes in its own frame (before
// its pose's rotation and scale), a name and kind for the viewer, and an
// optional colour.
type Body struct {
	ID entity.ID
	// Name is the entity's or prefab's name, e.g. "player" or "crate".
	Name string
	// Kind is what kind of body it is, e.g. "static", "dynamic" or
	// "kinematic"; the page picks a colour by it when Color is "".
	Kind string
	// Color is a CSS colour, e.g. "#c84"; "" lets the page choose.
	Color string
	// Style is "fill" or "outline"; "" is "fill".
	Style string
	// Label is text drawn above the entity, e.g. its player's name.
	Label string
	// Order is the drawing order: lower first, so higher on top. Within
	// an order the page draws statics, then moving bodies, sensors,
	// other players and the own player last.
	Order int
	// Role is "own" for the local player's entity, "player" for another
	// player's, "" for the rest: the page's default colours tell them
	// apart from bodies of each Kind.
	Role   string
	Shapes []Shape
	// Sprite, when not nil, is drawn instead of Shapes once its image
	// has loaded.
	Sprite *Sprite
}

// Sprite is an image drawn for a Body (project.Sprite): Image is its path
// under the page's /asset/, W × H metres centred on Offset and turned by
// Angle in the body's frame; a sheet of Columns × Rows frames shows Frame,
// or loops the frames of the named Animation at FPS.
type Sprite struct {
	Image         string
	W, H          float64
	Offset        entity.Vec2
	Angle         float64
	Columns, Rows int
	Frame         int
	Animations    map[string][]int
	Animation     string
	FPS           float64
}

// Shape is one outline of a Body, in the body's own frame, y up, metres.
// Box: a rectangle of half extents HalfW × HalfH centred on Offset and turned
// by Angle. Circle: Radius around Offset. Polygon: Points moved by Offset,
// closed. Chain: a line through Points moved by Offset, closed when Loop.
type Shape struct {
	Kind         entity.ShapeKind
	HalfW, HalfH float64
	Radius       float64
	Points       []entity.Vec2
	Loop         bool
	Offset       entity.Vec2
	Angle        float64
	Sensor       bool // drawn see-through: it reports overlaps, never pushes
}

// ShapeOf describes a physics shape for drawing. entity.Shape gives a box's
// full width and height; Shape carries half extents.
func ShapeOf(s entity.Shape) Shape {
	return Shape{
		Kind:   s.Kind,
		HalfW:  s.W / 2,
		HalfH:  s.H / 2,
		Radius: s.Radius,
		Points: s.Points,
		Loop:   s.Loop,
		Offset: s.Offset,
		Angle:  s.Angle,
		Sensor: s.Sensor,
	}
}

// BodyOf describes the entity id with physics body def for drawing, with
// the body's type as Kind and the page's colour for it. def may be nil,
// which gives a Body without shapes.
func BodyOf(id entity.ID, name string, def *entity.BodyDef) Body {
	b := Body{ID: id, Name: name}
	if def == nil {
		return b
	}
	b.Kind = def.Type.String()
	b.Shapes = make([]Shape, len(def.Shapes))
	for i, s := range def.Shapes {
		b.Shapes[i] = ShapeOf(s)
	}
	return b
}

// Frame is what the client draws in one frame, published with
// Server.Publish. Poses are world poses from the client's drawing scope:
// predicted for the own entity and what it leases, interpolated for the
// rest, with smoothing offsets applied.
type Frame struct {
	// Tick is the simulation tick the frame shows.
	Tick uint32
	// Own is the local player's entity, entity.None when it has none.
	Own entity.ID
	// Entities are the drawn entities and their poses. A Scale of 0 draws
	// as 1, so a zero Transform draws unscaled.
	Entities []Pose
	// Dev is the developer panel's list of labelled numbers: the own
	// entity's component fields, a reload's tick.
	Dev []Stat
	// Errors are this end's newest script errors (at most MaxErrors, the
	// newest last), which a developer's page shows over the game; Errs is
	// how many there were in all.
	Errors []string
	Errs   int
	// Notice is what a dev server last told this client that the
	// developer should see (a reload it refused, and why: a
	// session.Client's DevNotices), until a reload takes effect; "" for
	// none. A developer's page shows it over the game, beside Errors.
	Notice string
	// Killcam is the player whose character a killcam follows while one
	// plays (net.killcam), 0 otherwise: the frame's entities are then
	// what this end drew that many seconds ago, Own that character.
	Killcam uint16
	// Looks are this frame's looks of the entities whose look changes as
	// the game runs (project.Look.Changes): each replaces the scene's
	// colour (when not "") and label, and hides the entity when not
	// Visible.
	Looks []Look
	// HUD is the game's own HUD, the project's [[hud]] items resolved for
	// this frame, drawn over the world.
	HUD []HUDItem
	// Net is the network panel's record; nil when playing offline.
	Net *NetStats
	// Debug overlays. Ghost is the server's last word on the own entity's
	// pose (nil when none); Leased are the bodies the own character leases;
	// Samples are the interpolation tracks' sample poses around the drawn
	// time.
	Ghost   *entity.Transform
	Leased  []entity.ID
	Samples []Pose
	// Effects are the presentation events to show: the game's events
	// (a shot, a hit, a death, a pickup) of this frame and of the last
	// few, since a page may miss a frame (see Effect.Seq).
	Effects []Effect
	// Messages are the project messages the server told this player
	// (net.tell), for the page's own code (vkm.onMessage): each an Effect
	// with its own Seq, the message's name and fields and no entity,
	// repeated by the frames of the next moment as effects are.
	Messages []Effect
	// Inspect is what the client knows of the entity the developer
	// inspects (inspect.go); nil for none.
	Inspect *Inspect
	// Joints are the drawn bodies' joints, each a line from one anchor
	// to the other in the world.
	Joints []JointLine
}

// JointLine is one joint as the page draws it: its kind ("revolute",
// "rope", "mouse", ...) and its two anchors in the world, in metres.
type JointLine struct {
	Kind           string
	AX, AY, BX, BY float64
}

// Look is one entity's look in one frame.
type Look struct {
	ID           entity.ID
	Color, Label string
	Visible      bool
	// State is the sprite's animation, "" for the scene's.
	State string
}

// MaxErrors bounds Frame.Errors: the page shows the newest; the rest are in
// the log.
const MaxErrors = 3

// Effect is one presentation event for the page to show once.
type Effect struct {
	// Seq numbers effects from 1 in the order they were emitted. The page
	// shows each Seq once, so a frame may carry an effect a frame before
	// it carried too: a page handed only the newest frame still sees it.
	Seq uint64
	// Name is the event's name, e.g. "shot".
	Name string
	// Entity emitted it (entity.None for none).
	Entity entity.ID
	// Fields are its payload: float64, string and bool values. The page
	// draws "shot" from x1, y1, x2, y2; "hit", "death" and "pickup" at
	// x, y; anything else with x, y as a labelled mark.
	Fields map[string]any
}

// Pose is an entity's drawn pose.
type Pose struct {
	ID entity.ID
	entity.Transform
}

// HUDItem is one item of the game's HUD as the page draws it: Kind "text"
// is Text; "bar" is a bar filled Value/Max with Text beside it; "list" is
// Lines under the heading Text. At is one of project.HUDPlaces.
type HUDItem struct {
	At, Kind, Text string
	Value, Max     float64
	Lines          []string
}

// Stat is one labelled number of the developer panel or the scoreboard.
type Stat struct {
	Label string
	Value float64
}

// NetStats is one frame's record for the network panel, which plots each
// field over the last 30 seconds.
type NetStats struct {
	RTTms            float64 // round-trip time, ms
	LossPermille     float64 // share of sent packets lost, ‰
	BytesInPerS      float64 // received, bytes a second
	BytesOutPerS     float64 // sent, bytes a second
	SnapshotsPerS    float64 // snapshots received a second
	CorrectionsPerS  float64 // reconciliations that replayed, a second
	PacingLowWater   float64 // server's command queue at its lowest, ticks
	PacingTarget     float64 // the cushion pacing steers toward, ticks
	TickSpeed        float64 // ticks run per tick of wall time (1 = real time)
	InterpDelayTicks float64 // how far interpolation draws behind, ticks
	InterpStalls     float64 // frames a moving body was drawn frozen
}

// Board is the scoreboard the page shows while Tab is held: a row for
// each player, in the order given, and the game's state below.
type Board struct {
	// Columns label the values of each row, e.g. "Score.kills".
	Columns []string
	Rows    []BoardRow
	// State is what entities other than the players' show, e.g. a round
	// timer's "Round.left".
	State []Stat
}

// BoardRow is one player's line of the board.
type BoardRow struct {
	Name string
	// Own marks the local player's row.
	Own bool
	// RTTms is the player's round trip as the server last measured it.
	RTTms float64
	// Values are in the order of Board.Columns; NaN (drawn as a dash)
	// where the player's entity lacks the component.
	Values []float64
}

// Correction is one of the client's latest corrections, for the network
// panel's list: which tick the server judged, which entity and what of it
// (a component field such as "Health.hp", or "pose") was wrong, by how
// much (millimetres of pose, or the field's difference), what it is put
// down to ("shove", "component", "lease", "teleport", "other") and
// whether another player's character touched the entity in that tick.
type Correction struct {
	Tick    uint32
	Entity  string
	What    string
	Size    float64
	Cause   string
	Touched bool
}
