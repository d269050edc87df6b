package physics

import (
	"testing"

	"vkm/internal/entity"
)

// store is a map-backed entity store implementing Bodies.
type store struct {
	poses map[entity.ID]*pose
	off   map[entity.ID]bool // entities this peer does not simulate
}

type pose struct {
	t  entity.Transform
	rb entity.Rigidbody
}

func newStore() *store {
	return &store{poses: map[entity.ID]*pose{}, off: map[entity.ID]bool{}}
}

func (s *store) Simulates(id entity.ID) bool { return !s.off[id] }

func (s *store) Pose(id entity.ID) (*entity.Transform, *entity.Rigidbody) {
	p := s.poses[id]
	if p == nil {
		return nil, nil
	}
	return &p.t, &p.rb
}

// eid names slot n, generation 1.
func eid(n uint32) entity.ID { return entity.ID{Slot: n, Gen: 1} }

// box returns a W×H box shape with density 1 and friction 0.5.
func box(w, h float64) entity.Shape {
	return entity.Shape{Kind: entity.Box, W: w, H: h, Density: 1, Friction: 0.5}
}

// circle returns a circle shape with density 1 and friction 0.5.
func circle(r float64) entity.Shape {
	return entity.Shape{Kind: entity.Circle, Radius: r, Density: 1, Friction: 0.5}
}

// chain returns an open edge chain through pts.
func chain(pts ...entity.Vec2) entity.Shape {
	return entity.Shape{Kind: entity.Chain, Points: pts, Friction: 0.5}
}

// def returns a body def of type typ with gravity scale 1.
func def(typ entity.BodyType, shapes ...entity.Shape) *entity.BodyDef {
	return &entity.BodyDef{Type: typ, GravityScale: 1, Shapes: shapes}
}

// add puts id's body in w at (x, y), awake and at rest, and its components
// in s.
func add(tb testing.TB, w *World, s *store, id entity.ID, d *entity.BodyDef, x, y float64) *pose {
	tb.Helper()
	p := &pose{t: entity.Transform{X: x, Y: y, Scale: 1}, rb: entity.Rigidbody{Awake: true}}
	if err := w.Add(id, d, p.t, p.rb); err != nil {
		tb.Fatalf("Add(%v): %v", id, err)
	}
	s.poses[id] = p
	return p
}

// steps steps w n times.
func steps(w *World, s Bodies, n int) {
	for range n {
		w.Step(s)
	}
}

// gravityWorld is a side-view world at 64 Hz with earth gravity.
func gravityWorld() *World { return New(Config{GravityY: -10}) }

// addFloor adds a static 40 m wide, 1 m thick box floor whose top is y = 0.
func addFloor(tb testing.TB, w *World, s *store, id entity.ID) *pose {
	tb.Helper()
	return add(tb, w, s, id, def(entity.Static, box(40, 1)), 0, -0.5)
}

// collect gathers what a query reports.
func collect(ids *[]entity.ID) func(entity.ID) bool {
	return func(id entity.ID) bool {
		*ids = append(*ids, id)
		return true
	}
}
