// Package physics wraps the box2d port (github.com/ByteArena/box2d) behind
// vkm's own types: one body per entity, joints between them (joint.go), a
// fixed step, gather and writeback gated by the one predicate simulates()
// (DESIGN.md, "The one predicate"), the character controller (side view or
// top-down), ray casts and overlap queries, the islands a client leases
// (over contacts and joints), and the State a client's replay restores so
// that it steps to the bits it stepped to before (state.go).
//
// No box2d type crosses this package's API. The known defects of the port
// are worked around here, in one place: the contact filter is installed
// explicitly, every fixture gets a real filter, the world is never copied,
// and the lazily built contact registry is filled once before any world is
// used. box2d's step itself runs here (b2step.go), from the port's exported
// parts, to the same bits as B2World.Step but with its scratch kept between
// steps, since the port's own allocates as it goes; so do its ray cast
// (raycast.go), its body placement (setTransform), its contact update
// (collide.go) and its contact solver's iterations (solver.go), whose
// getters copy their receivers, and, by box2d's arithmetic on plain
// numbers rather than its vector helpers, two polygons' manifold
// (polygon.go) and the broad phase's tree updates (tree.go). Times of
// impact that could only answer "none" are not asked for (toi.go).
//
// A client predicts with the same physics its server runs, so a step must
// depend on the world's state and not on how a world came to hold it:
// Step rounds what it writes back as the wire does (Config.Quantize),
// orders box2d's lists by slot (canon.go) and each body's joints by the
// entities they join (joint.go), and keeps sleeping bodies free of history
// (sleep.go).
package physics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// Defaults used when a Config field is zero.
const (
	// DefaultStep is one tick of the project default tick rate (64 Hz).
	DefaultStep = 1.0 / 64
	// DefaultVelocityIterations is box2d's recommended velocity solver
	// iteration count.
	DefaultVelocityIterations = 8
	// DefaultPositionIterations is box2d's recommended position solver
	// iteration count.
	DefaultPositionIterations = 3
)

// Config describes a World. The zero Config is a world without gravity
// stepped at DefaultStep with the default iteration counts.
type Config struct {
	// GravityX and GravityY are the world's gravity in m/s², y up, so a
	// side-view game sets GravityY < 0. Zero means no gravity on that axis.
	GravityX, GravityY float64

	// Step is the time one Step simulates, in seconds (1/tickRate). It never
	// varies during a world's life: box2d scales warm-starting impulses by
	// the ratio of successive steps, and replays must see the same step.
	// Zero means DefaultStep (1/64 s).
	Step float64

	// VelocityIterations and PositionIterations are the solver's iteration
	// counts per step. Zero means DefaultVelocityIterations (8) and
	// DefaultPositionIterations (3).
	VelocityIterations int
	PositionIterations int

	// Quantize, when set, rounds the pose and motion of every body a Step
	// writes back, and the body itself is set to the rounded values: a
	// host passes what its wire can say, so the state a tick leaves is
	// exactly what a snapshot carries. A server whose bodies kept more
	// precision than its snapshots could never be matched by a client
	// that starts from one, and a client predicting through the same
	// rounding leaves the same state the server does. Nil keeps box2d's
	// values.
	Quantize func(*entity.Transform, *entity.Rigidbody)
}

// withDefaults fills the zero fields of cfg and panics on a config no
// simulation could run with, which is a programmer error.
func (cfg Config) withDefaults() Config {
	if cfg.Step == 0 {
		cfg.Step = DefaultStep
	}
	if cfg.VelocityIterations == 0 {
		cfg.VelocityIterations = DefaultVelocityIterations
	}
	if cfg.PositionIterations == 0 {
		cfg.PositionIterations = DefaultPositionIterations
	}
	if !finite(cfg.GravityX, cfg.GravityY, cfg.Step) || cfg.Step < 0 ||
		cfg.VelocityIterations < 0 || cfg.PositionIterations < 0 {
		panic(fmt.Sprintf("physics: invalid config %+v", cfg))
	}
	return cfg
}

// World is the physics of one simulation: a box2d world whose bodies are
// named by entity IDs. The zero value is not usable; build one with New.
//
// A World is not safe for concurrent use: each simulation goroutine owns its
// own World. Two Worlds built and stepped the same way give bit-identical
// results.
type World struct {
	cfg Config

	// b2 points at the box2d world. box2d bodies keep a pointer back to
	// their world, so the B2World value must never be copied.
	b2 *box2d.B2World

	byID map[entity.ID]*body
	// order holds every body sorted by slot, then generation: the one
	// deterministic iteration order for Step and for query results.
	order []*body

	// island is Island's reusable search state; a search takes it (leaving
	// nil) so a nested one, made from a callback, makes its own.
	island *islandScratch

	// contacts and madeRanks are canonicalize's reusable scratch.
	contacts  []contactRank
	madeRanks []contactRank
	// filter counts the contacts box2d made, and reordered whether a body
	// was added or removed, since canonicalize last ran: with neither, the
	// lists are still in order.
	filter    *countingFilter
	reordered bool
	// sleepers is noteSleepers' reusable record, for keepAsleep.
	sleepers []sleeper
	// poses is Step's reusable list of the bodies it gathers and writes
	// back.
	poses []simPose
	// aabb is setTransform's bounding box and box grounded's, kept here
	// because box2d's shapes take them through an interface, which would
	// put a local on the heap at every call; aabb2 is the second box of
	// stepB2's fixture synchronisation.
	aabb  box2d.B2AABB
	aabb2 box2d.B2AABB
	box   box2d.B2AABB
	// b2island, islandStack, solver and pairStack are stepB2's scratch:
	// the island it builds, the stack of its search, the contact solver
	// and the broad-phase query's node stack.
	b2island    box2d.B2Island
	islandStack []*box2d.B2Body
	// islandFrom is where each body of the island being solved stood when
	// the step began, for the rest rule (restsJointed).
	islandFrom []stood
	solver     box2d.B2ContactSolver
	// turns remembers the rotations of the angles the step turned last.
	turns     rotCache
	pairStack []int
	// toiIsland, toiInput and toiOutput are solveTOI's island and the
	// record of its time-of-impact queries.
	toiIsland box2d.B2Island
	toiInput  box2d.B2TOIInput
	toiOutput box2d.B2TOIOutput
	// toiContacts and toiMade are solveTOI's list of the contacts that may
	// need a time of impact and of those an event made.
	toiContacts []box2d.B2ContactInterface
	toiMade     []box2d.B2ContactInterface
	// apartPairs counts the times of impact apart found need not be
	// computed, over the World's life (for tests).
	apartPairs int
	// rayOut is the hit of castRay and of RayCastMoved's moved fixtures,
	// kept here for the same reason; each reads it before anything else
	// can cast.
	rayOut box2d.B2RayCastOutput

	// scratch is reused by queries to collect entities before calling back
	// into user code. A query takes it (leaving nil) so a nested query made
	// from the callback allocates its own instead of clobbering it.
	scratch []entity.ID
	// rayStack is castRay's node stack, kept between casts, and rayLeaves
	// the leaves grounded's probes look among.
	rayStack  []int
	rayLeaves []*box2d.B2TreeNode

	// counts is what the last step did (LastStep).
	counts StepCounts

	// joints holds every joint by ID, and jointList the same in jointCmp
	// order; nextJoint is the last ID given out.
	joints    map[JointID]*joint
	jointList []*joint
	nextJoint JointID
	// ground is the static body without fixtures that a joint to the
	// world holds on to, made with the first such joint. It is no
	// entity's, and canonicalize keeps it last in box2d's body list.
	ground *box2d.B2Body

	// listener is box2d's contact listener (contact.go), and events the
	// contacts it recorded since Contacts last ran.
	listener listener
	events   []Contact

	// restoreWant, restoreHeld, restoreFound, restoreGone and restoreMoves
	// are Restore's scratch: the saved contacts by pair, the bodies the
	// State holds (then those it put back whole), the World's contact for
	// each saved one, those to destroy, and the moves pending before it.
	restoreWant  map[pairKey]int
	restoreHeld  map[entity.ID]bool
	restoreFound []box2d.B2ContactInterface
	restoreGone  []box2d.B2ContactInterface
	restoreMoves []int
}

// StepCounts is what one step of the world did: the work that sets its
// cost beside the number of bodies, for telling a slow step's cause.
type StepCounts struct {
	// Contacts are the pairs of fixtures whose boxes overlapped after the
	// broad phase, touching or not.
	Contacts int
	// Islands are the groups of awake bodies in touch that were solved,
	// with IslandBodies bodies and IslandContacts touching contacts among
	// them in all.
	Islands, IslandBodies, IslandContacts int
	// TOIQueries are the times of impact computed for fast or kinematic
	// bodies, and TOIEvents the sub-steps solved at one of them.
	TOIQueries, TOIEvents int
}

// LastStep is what the last Step (or PlaceAndStep) did. Counting costs a
// few additions a step.
func (w *World) LastStep() StepCounts { return w.counts }

// body is one entity's box2d body.
type body struct {
	id   entity.ID
	kind entity.BodyType
	b    *box2d.B2Body // its user data is this body, and each fixture's its index

	// rank and tail are canonicalize's scratch: the body's place in slot
	// order (current while the World is not reordered) and the last edge
	// of the contact list being rebuilt or checked.
	rank int32
	tail *box2d.B2ContactEdge
	// rest is where the body stood when restSleepers last cleared its
	// contacts.
	rest restPose
	// settled is what the last settle left in the body and its
	// components, and fixed whether that settle changed nothing.
	settled settledPose
	fixed   bool
	// oneWay marks, by shape index, the body's one-way shapes; nil when it
	// has none.
	oneWay []bool
	// wake says the body was woken since the last Step (a joint changed,
	// a force): that Step's gather sets its Rigidbody.Awake before
	// gathering it, which would otherwise put it back to sleep. left is
	// whether box2d had it awake when the last Step ended: one asleep then
	// and awake now was woken by box2d itself in between (a body it rested
	// on removed or disabled, a shape of its taken away), which the
	// gather must not undo either.
	wake, left bool
}

// New returns an empty World. It panics if cfg has a negative or non-finite
// field, which is a programmer error.
func New(cfg Config) *World {
	warmUp()
	cfg = cfg.withDefaults()
	filter := new(countingFilter)
	w := &World{
		cfg:    cfg,
		b2:     newB2World(cfg.GravityX, cfg.GravityY, filter),
		filter: filter,
		byID:   make(map[entity.ID]*body),
	}
	w.listener.w = w
	w.b2.SetContactListener(&w.listener)
	return w
}

// newB2World is the one place box2d world settings are chosen. Settings stay
// at box2d's defaults: warm starting, continuous physics and sleeping on.
// Warm starting is history (each contact starts from the impulse of the
// step before), but without it piles never settle: in the arena two stacks
// of three crates went on trembling at 1 cm/s and never slept. Sleeping
// bodies are cleared of it instead (sleep.go).
func newB2World(gx, gy float64, filter *countingFilter) *box2d.B2World {
	w := box2d.MakeB2World(box2d.MakeB2Vec2(gx, gy))
	world := &w // from here on only the pointer is used: never copy w
	// Without an explicit contact filter the port ignores filter bits.
	world.SetContactFilter(filter)
	return world
}

// countingFilter is box2d's own contact filter, counting the contacts it
// lets box2d make. Every new contact passes through it, and a contact made
// is the one thing that puts box2d's lists out of the order canonicalize
// leaves them in (a destroyed one is unlinked, which keeps the rest in
// order), so while it counts none there is nothing to reorder.
type countingFilter struct {
	box2d.B2ContactFilter
	made int
}

func (f *countingFilter) ShouldCollide(a, b *box2d.B2Fixture) bool {
	ok := f.B2ContactFilter.ShouldCollide(a, b)
	if ok {
		f.made++
	}
	return ok
}

var warmOnce sync.Once

// warmUp steps a throw-away world holding an overlapping pair once, so
// box2d's lazily initialised contact registry (package globals written on
// the first contact ever created) is filled before two worlds on two
// goroutines could race to fill it.
func warmUp() {
	warmOnce.Do(func() {
		world := newB2World(0, -10, new(countingFilter))
		shape := box2d.MakeB2PolygonShape()
		shape.SetAsBox(0.5, 0.5)
		for range 2 {
			bd := box2d.MakeB2BodyDef()
			bd.Type = box2d.B2BodyType.B2_dynamicBody
			b := world.CreateBody(&bd)
			fd := box2d.MakeB2FixtureDef()
			fd.Filter = box2d.MakeB2Filter()
			fd.Shape = &shape
			fd.Density = 1
			b.CreateFixtureFromDef(&fd)
		}
		box2dGlobals.Lock()
		world.Step(DefaultStep, DefaultVelocityIterations, DefaultPositionIterations)
		box2dGlobals.Unlock()
	})
}

// Config returns the world's configuration with defaults filled in.
func (w *World) Config() Config { return w.cfg }

// Has reports whether id has a body in w.
func (w *World) Has(id entity.ID) bool {
	_, ok := w.byID[id]
	return ok
}

// Len returns the number of bodies in w.
func (w *World) Len() int { return len(w.order) }

// Remove destroys id's body, with its fixtures, contacts and joints. It
// does nothing if id has no body. Bodies touching or joined to it are
// woken, as box2d does.
func (w *World) Remove(id entity.ID) {
	r, ok := w.byID[id]
	if !ok {
		return
	}
	for e := r.b.M_jointList; e != nil; e = e.Next {
		w.forgetJoint(e.Joint.GetUserData().(*joint)) // box2d destroys them with the body
	}
	w.b2.DestroyBody(r.b)
	w.reordered = true
	delete(w.byID, id)
	if i, found := slices.BinarySearchFunc(w.order, id, bodyCmp); found {
		w.order = slices.Delete(w.order, i, i+1)
	}
}

// Mass returns the mass of id's body in kg: 0 for a static or kinematic
// body, or when id has no body. A dynamic body whose fixtures all have zero
// density weighs 1 kg, as box2d decides.
func (w *World) Mass(id entity.ID) float64 {
	r, ok := w.byID[id]
	if !ok || r.kind != entity.Dynamic {
		return 0
	}
	return r.b.GetMass()
}

// insert records r in the lookup map and in slot order.
func (w *World) insert(r *body) {
	w.byID[r.id] = r
	i, _ := slices.BinarySearchFunc(w.order, r.id, bodyCmp)
	w.order = slices.Insert(w.order, i, r)
}

// bodyCmp orders bodies by slot, then generation.
func bodyCmp(r *body, id entity.ID) int { return idCmp(r.id, id) }

// idCmp orders IDs by slot, then generation.
func idCmp(a, b entity.ID) int {
	if c := cmp.Compare(a.Slot, b.Slot); c != 0 {
		return c
	}
	return cmp.Compare(a.Gen, b.Gen)
}

// entityOf returns the entity owning a box2d body, or None for a body this
// World did not create.
func (w *World) entityOf(b *box2d.B2Body) entity.ID {
	if r, ok := b.M_userData.(*body); ok {
		return r.id
	}
	return entity.None
}

// finite reports whether every value is neither NaN nor infinite.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
