package physics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
)

// jointScene is a small world built around one kind of joint, loaded so
// that the joint works in every step: a motor against gravity, a limit
// leaned on, a spring swinging.
type jointScene struct {
	kind  entity.JointKind
	build func(tb testing.TB, w *World, s *store) JointID
}

// addJoint joins a and b with d, failing the test on an error.
func addJoint(tb testing.TB, w *World, a, b entity.ID, d entity.JointDef) JointID {
	tb.Helper()
	id, err := w.AddJoint(a, b, &d)
	if err != nil {
		tb.Fatalf("AddJoint(%v, %v, %v): %v", a, b, d.Kind, err)
	}
	return id
}

// jointScenes has one scene per kind, each with more than one constraint
// on a body (a chain, a load, a contact), so that the solver's iterations
// start from what the joints carried over: a single constraint on a
// single body is solved exactly whatever it starts from. Slot 1 is a
// static floor whose top is y = 0, slot 2 a static post 4 m high at x = 0.
var jointScenes = []jointScene{
	{entity.Revolute, func(tb testing.TB, w *World, s *store) JointID {
		// A door hinged at its top corner to the post, pushed by a weak
		// motor against gravity into its upper limit, a flap hinged to its
		// end, and a loose box they knock.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(2, 0.3)), 1, 4)
		add(tb, w, s, eid(4), def(entity.Dynamic, box(0.5, 0.5)), 2.2, 0.26)
		add(tb, w, s, eid(5), def(entity.Dynamic, box(1, 0.2)), 2.5, 4)
		addJoint(tb, w, eid(3), eid(5), entity.JointDef{Kind: entity.Revolute,
			AnchorA: entity.Vec2{X: 1}, AnchorB: entity.Vec2{X: -0.5}})
		return addJoint(tb, w, eid(2), eid(3), entity.JointDef{Kind: entity.Revolute,
			AnchorA: entity.Vec2{Y: 2}, AnchorB: entity.Vec2{X: -1},
			EnableLimit: true, Lower: -1.2, Upper: 0.3,
			EnableMotor: true, MotorSpeed: 1.5, MaxTorque: 4})
	}},
	{entity.Prismatic, func(tb testing.TB, w *World, s *store) JointID {
		// A lift sliding up a slanted rail off the post with a crate on
		// it, driven up by a motor that can barely lift both, stopped by
		// its limits, and a piston sliding in the lift.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(1.6, 0.3)), 1.2, 1)
		add(tb, w, s, eid(4), def(entity.Dynamic, box(0.5, 0.5)), 1.2, 1.41)
		add(tb, w, s, eid(5), def(entity.Dynamic, box(0.2, 0.6)), 1.8, 0.5)
		addJoint(tb, w, eid(3), eid(5), entity.JointDef{Kind: entity.Prismatic,
			AnchorA: entity.Vec2{X: 0.6}, Axis: entity.Vec2{Y: 1}, EnableLimit: true, Lower: -0.6, Upper: 0.1})
		return addJoint(tb, w, eid(2), eid(3), entity.JointDef{Kind: entity.Prismatic,
			AnchorA: entity.Vec2{X: 1.2, Y: -1}, Axis: entity.Vec2{X: 0.3, Y: 1},
			EnableLimit: true, Lower: -0.8, Upper: 1.5,
			EnableMotor: true, MotorSpeed: 2, MaxForce: 9})
	}},
	{entity.Distance, func(tb testing.TB, w *World, s *store) JointID {
		// Three boxes bouncing on soft springs below the post's top, the
		// last one rigid, the lowest dragging on the floor.
		spring := entity.JointDef{Kind: entity.Distance, AnchorB: entity.Vec2{Y: 0.3}, Length: 1.2, Frequency: 2, DampingRatio: 0.1}
		var first JointID
		prev, anchor := eid(2), entity.Vec2{Y: 2}
		for i := range uint32(3) {
			add(tb, w, s, eid(3+i), def(entity.Dynamic, box(0.6, 0.6)), 1.5+0.8*float64(i), 3-1.2*float64(i))
			spring.AnchorA = anchor
			if i == 2 {
				spring.Frequency = 0
			}
			id := addJoint(tb, w, prev, eid(3+i), spring)
			if i == 0 {
				first = id
			}
			prev, anchor = eid(3+i), entity.Vec2{Y: -0.3}
		}
		return first
	}},
	{entity.Weld, func(tb testing.TB, w *World, s *store) JointID {
		// A soft cantilever welded to the post, with a second plank welded
		// rigidly to its end, bending under their weight and a crate's.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(2, 0.2)), 1, 3)
		add(tb, w, s, eid(4), def(entity.Dynamic, box(2, 0.2)), 3, 3)
		add(tb, w, s, eid(5), def(entity.Dynamic, box(0.5, 0.5)), 3, 3.5)
		addJoint(tb, w, eid(3), eid(4), entity.JointDef{Kind: entity.Weld,
			AnchorA: entity.Vec2{X: 1}, AnchorB: entity.Vec2{X: -1}})
		return addJoint(tb, w, eid(2), eid(3), entity.JointDef{Kind: entity.Weld,
			AnchorA: entity.Vec2{Y: 1}, AnchorB: entity.Vec2{X: -1},
			Frequency: 3, DampingRatio: 0.2})
	}},
	{entity.Wheel, func(tb testing.TB, w *World, s *store) JointID {
		// A cart: a chassis on two sprung wheels, the rear one driven,
		// dropped onto the floor.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(2, 0.4)), 3, 1.2)
		add(tb, w, s, eid(4), def(entity.Dynamic, circle(0.3)), 2.3, 0.6)
		add(tb, w, s, eid(5), def(entity.Dynamic, circle(0.3)), 3.7, 0.6)
		wheel := entity.JointDef{Kind: entity.Wheel, Axis: entity.Vec2{Y: 1}, Frequency: 4, DampingRatio: 0.7}
		wheel.AnchorA = entity.Vec2{X: 0.7, Y: -0.6}
		addJoint(tb, w, eid(3), eid(5), wheel)
		wheel.AnchorA = entity.Vec2{X: -0.7, Y: -0.6}
		wheel.EnableMotor, wheel.MotorSpeed, wheel.MaxTorque = true, -8, 15
		return addJoint(tb, w, eid(3), eid(4), wheel)
	}},
	{entity.Motor, func(tb testing.TB, w *World, s *store) JointID {
		// A platform driven from the floor toward a point above it,
		// carrying a crate, and a second platform driven by the first.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(1.5, 0.3)), 2, 0.5)
		add(tb, w, s, eid(4), def(entity.Dynamic, box(0.5, 0.5)), 2, 0.91)
		add(tb, w, s, eid(5), def(entity.Dynamic, box(1.5, 0.3)), 4, 0.5)
		addJoint(tb, w, eid(3), eid(5), entity.JointDef{Kind: entity.Motor,
			LinearOffset: entity.Vec2{X: 2}, MaxForce: 20, MaxTorque: 2, CorrectionFactor: 0.5})
		return addJoint(tb, w, eid(1), eid(3), entity.JointDef{Kind: entity.Motor,
			LinearOffset: entity.Vec2{X: 3, Y: 2.5}, AngularOffset: 0.4,
			MaxForce: 60, MaxTorque: 5, CorrectionFactor: 0.3})
	}},
	{entity.Rope, func(tb testing.TB, w *World, s *store) JointID {
		// Two boxes swung out on ropes from the post's top, the second
		// tied to the first, hitting the floor at the bottom of the swing.
		p := add(tb, w, s, eid(3), def(entity.Dynamic, box(0.5, 0.5)), 2.5, 3.5)
		p.rb.VX = 4
		add(tb, w, s, eid(4), def(entity.Dynamic, box(0.5, 0.5)), 4, 3.5)
		addJoint(tb, w, eid(3), eid(4), entity.JointDef{Kind: entity.Rope, Length: 2})
		return addJoint(tb, w, eid(2), eid(3), entity.JointDef{Kind: entity.Rope,
			AnchorA: entity.Vec2{Y: 2}, Length: 3})
	}},
	{entity.Mouse, func(tb testing.TB, w *World, s *store) JointID {
		// A box dragged by its corner along the floor toward a point
		// above the far end, pushing another box.
		add(tb, w, s, eid(3), def(entity.Dynamic, box(0.8, 0.8)), 2, 0.41)
		add(tb, w, s, eid(4), def(entity.Dynamic, box(0.8, 0.8)), 3, 0.41)
		return addJoint(tb, w, eid(3), entity.None, entity.JointDef{Kind: entity.Mouse,
			AnchorA: entity.Vec2{X: 0.4, Y: 0.4}, Target: entity.Vec2{X: 6, Y: 2},
			MaxForce: 25, Frequency: 3, DampingRatio: 0.5})
	}},
	{entity.Friction, func(tb testing.TB, w *World, s *store) JointID {
		// Two boxes thrown spinning along the floor, the first dragged by
		// a friction joint to the post, the second by one to the first,
		// knocking into a third.
		p := add(tb, w, s, eid(3), def(entity.Dynamic, box(0.6, 0.6)), 1.5, 0.31)
		p.rb.VX, p.rb.AngularVelocity = 6, 4
		q := add(tb, w, s, eid(4), def(entity.Dynamic, box(0.6, 0.6)), 2.5, 1.5)
		q.rb.VX, q.rb.AngularVelocity = 3, -6
		add(tb, w, s, eid(5), def(entity.Dynamic, box(0.5, 0.5)), 4, 0.26)
		addJoint(tb, w, eid(3), eid(4), entity.JointDef{Kind: entity.Friction, MaxForce: 3, MaxTorque: 0.5})
		return addJoint(tb, w, eid(2), eid(3), entity.JointDef{Kind: entity.Friction,
			AnchorA: entity.Vec2{X: 1.5, Y: -3.69}, MaxForce: 4, MaxTorque: 1})
	}},
}

// jointWorld builds sc's world: a floor, a post, and sc's bodies and joint.
func jointWorld(tb testing.TB, sc jointScene) (*World, *store, JointID) {
	tb.Helper()
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	addFloor(tb, w, s, eid(1))
	add(tb, w, s, eid(2), def(entity.Static, box(0.2, 4)), 0, 2)
	return w, s, sc.build(tb, w, s)
}

// snapshot is the store's components, copied.
func snapshot(s *store) map[entity.ID]pose {
	m := map[entity.ID]pose{}
	for id, p := range s.poses {
		m[id] = *p
	}
	return m
}

// putBack sets the store's components to m.
func putBack(s *store, m map[entity.ID]pose) {
	for id, p := range m {
		*s.poses[id] = p
	}
}

// TestJointReplayIsExact runs each kind of joint for 40 ticks, saves the
// world, runs 20 more recording the hash after each, then restores the
// save (and the components, as a client's correction does) and runs the
// 20 ticks again: every replayed tick hashes as the first run did. A
// second world built the same way steps to the same hashes too (a server
// and its client). Putting back only the components, as a replay without
// Restore would, loses the joints' carried impulses and the contacts'
// manifolds, and the replay parts from the run it repeats.
func TestJointReplayIsExact(t *testing.T) {
	const lead, replay = 40, 20
	for _, sc := range jointScenes {
		t.Run(sc.kind.String(), func(t *testing.T) {
			w, s, _ := jointWorld(t, sc)
			twin, ts, _ := jointWorld(t, sc)
			steps(w, s, lead)
			steps(twin, ts, lead)
			var st State
			w.Save(&st)
			comps := snapshot(s)
			var first []uint64
			for i := range replay {
				w.Step(s)
				twin.Step(ts)
				first = append(first, w.Hash())
				if h := twin.Hash(); h != first[i] {
					t.Fatalf("tick %d: the twin world hashes %x, the world %x", lead+i+1, h, first[i])
				}
			}
			moved := moving(w)

			w.Restore(&st)
			putBack(s, comps)
			for i := range replay {
				w.Step(s)
				if h := w.Hash(); h != first[i] {
					t.Fatalf("replayed tick %d hashes %x, the first run %x", lead+i+1, h, first[i])
				}
			}

			// The components alone.
			putBack(s, comps)
			parted := -1
			for i := range replay {
				w.Step(s)
				if w.Hash() != first[i] && parted < 0 {
					parted = i + 1
				}
			}
			t.Logf("%s: %d bodies moving, replay of %d ticks exact; from the components alone it parts at replayed tick %d",
				sc.kind, moved, replay, parted)
			if parted < 0 {
				t.Errorf("a replay from the components alone repeated the run: the scene does not test the joint's carried state")
			}
		})
	}
}

// moving counts w's dynamic bodies that are awake.
func moving(w *World) int {
	n := 0
	for _, r := range w.order {
		if r.kind == entity.Dynamic && isAwake(r.b) {
			n++
		}
	}
	return n
}

// TestJointsSolveInAnOrderOfTheirOwn builds a chain of links joined to one
// another and to the world, in one world in slot order and in another with
// the bodies added in reverse and the joints made in reverse: both step
// to the same hash every tick, because each body's joints are solved in
// the order of the entities they join, not the order they were made.
func TestJointsSolveInAnOrderOfTheirOwn(t *testing.T) {
	const links = 6
	build := func(reverse bool) (*World, *store) {
		w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
		order := []uint32{1}
		for i := range uint32(links) {
			order = append(order, 2+i)
		}
		if reverse {
			for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, slot := range order {
			if slot == 1 {
				addFloor(t, w, s, eid(1))
				continue
			}
			add(t, w, s, eid(slot), def(entity.Dynamic, box(0.9, 0.2)), float64(slot-2)+0.5, 4)
		}
		var pairs [][2]uint32
		for i := range uint32(links - 1) {
			pairs = append(pairs, [2]uint32{2 + i, 3 + i})
		}
		if reverse {
			for i, j := 0, len(pairs)-1; i < j; i, j = i+1, j-1 {
				pairs[i], pairs[j] = pairs[j], pairs[i]
			}
		}
		link := entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{X: 0.5}, AnchorB: entity.Vec2{X: -0.5}}
		pin := entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{X: -0.5}, AnchorB: entity.Vec2{X: 0, Y: 4}}
		if reverse {
			for _, p := range pairs {
				addJoint(t, w, eid(p[0]), eid(p[1]), link)
			}
			addJoint(t, w, eid(2), entity.None, pin)
			// A second joint between the same two links, made after the
			// first in both worlds.
			addJoint(t, w, eid(2), eid(3), entity.JointDef{Kind: entity.Rope, AnchorA: entity.Vec2{X: -0.5}, AnchorB: entity.Vec2{X: 0.5}, Length: 1.9})
		} else {
			addJoint(t, w, eid(2), entity.None, pin)
			for _, p := range pairs {
				addJoint(t, w, eid(p[0]), eid(p[1]), link)
			}
			addJoint(t, w, eid(2), eid(3), entity.JointDef{Kind: entity.Rope, AnchorA: entity.Vec2{X: -0.5}, AnchorB: entity.Vec2{X: 0.5}, Length: 1.9})
		}
		return w, s
	}
	a, sa := build(false)
	b, sb := build(true)
	for tick := 1; tick <= 120; tick++ {
		a.Step(sa)
		b.Step(sb)
		if ha, hb := a.Hash(), b.Hash(); ha != hb {
			t.Fatalf("tick %d: the world built in slot order hashes %x, the one built in reverse %x", tick, ha, hb)
		}
		b.canonicalize() // what the next step starts with
		if err := inCanonicalOrder(b); err != nil {
			t.Fatalf("tick %d: %v", tick, err)
		}
	}
	end := sa.poses[eid(2+links-1)].t
	t.Logf("%d links, 120 ticks, same hash every tick; the last link swung to (%.3f, %.3f)", links, end.X, end.Y)
	if end.Y > 3 {
		t.Errorf("the chain's free end is still at y = %.3f: it should have swung down", end.Y)
	}
}

// TestJointsJoinIslands checks that a jointed group is one island for
// leases: from one link of a chain hanging from a static beam, the island
// holds every other link, not the beam, and not a box that touches
// nothing.
func TestJointsJoinIslands(t *testing.T) {
	w, s := gravityWorld(), newStore()
	add(t, w, s, eid(1), def(entity.Static, box(1, 0.2)), 0, 6)
	for i := range uint32(4) {
		add(t, w, s, eid(2+i), def(entity.Dynamic, box(0.2, 0.9)), 0, 5.5-float64(i))
	}
	add(t, w, s, eid(9), def(entity.Dynamic, box(0.5, 0.5)), 5, 3)
	addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{Y: 0}, AnchorB: entity.Vec2{Y: 0.5}})
	for i := range uint32(3) {
		addJoint(t, w, eid(2+i), eid(3+i), entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{Y: -0.5}, AnchorB: entity.Vec2{Y: 0.5}})
	}
	got := island(w, eid(4))
	want := []entity.ID{eid(2), eid(3), eid(5)}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("island of the middle link: %v, want %v", got, want)
	}
	if got := island(w, eid(9)); len(got) != 0 {
		t.Errorf("island of the loose box: %v, want nothing", got)
	}
}

// TestJointsHold checks what each kind of joint is for, with a tolerance
// of box2d's slop: a pendulum's pin holds its weight and says so in its
// reaction force, a limit holds an angle, a motor reaches its speed, a
// slider stops at its limit, a rope never stretches, a weld keeps its
// angle, a cart drives, a motor joint and a mouse joint bring a body where
// they aim.
func TestJointsHold(t *testing.T) {
	t.Run("revolute holds its weight", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		add(t, w, s, eid(1), def(entity.Static, box(1, 0.2)), 0, 6)
		p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 5)
		id := addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Revolute, AnchorB: entity.Vec2{Y: 0.5}, AnchorA: entity.Vec2{Y: -0.5}})
		steps(w, s, 64)
		r, _ := w.JointReading(id)
		weight := w.Mass(eid(2)) * 10
		t.Logf("pendulum at rest: force (%.4f, %.4f) N for a weight of %.4f N; anchors (%.3f, %.3f) (%.3f, %.3f)", r.ForceX, r.ForceY, weight, r.AX, r.AY, r.BX, r.BY)
		if math.Abs(r.ForceY-weight) > 0.01*weight || math.Abs(r.ForceX) > 0.01*weight {
			t.Errorf("reaction force (%g, %g), want (0, %g) within 1%%", r.ForceX, r.ForceY, weight)
		}
		if math.Abs(p.t.Y-5) > slop {
			t.Errorf("pendulum hangs at y = %g, want 5", p.t.Y)
		}
	})
	t.Run("revolute limit and motor", func(t *testing.T) {
		w, s := New(Config{}), newStore()
		add(t, w, s, eid(1), def(entity.Static, box(0.2, 0.2)), 0, 0)
		add(t, w, s, eid(2), def(entity.Dynamic, box(2, 0.2)), 1, 0)
		id := addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Revolute, AnchorB: entity.Vec2{X: -1},
			EnableMotor: true, MotorSpeed: 3, MaxTorque: 1000})
		steps(w, s, 8)
		if r, _ := w.JointReading(id); math.Abs(r.Speed-3) > 0.01 {
			t.Errorf("motor at %g rad/s, want 3", r.Speed)
		}
		d, _ := w.Joint(id)
		d.EnableLimit, d.Lower, d.Upper = true, -0.5, 0.25
		d.MotorSpeed = 2
		if err := w.SetJoint(id, &d); err == nil {
			// The arm is past the new upper limit: it is pushed back.
			steps(w, s, 64)
		} else {
			t.Fatal(err)
		}
		r, _ := w.JointReading(id)
		t.Logf("arm driven at 2 rad/s into a 0.25 rad limit: angle %.4f, motor torque %.1f N·m", r.Angle, r.Motor)
		if r.Angle > 0.25+2*angularSlop || r.Angle < 0.2 {
			t.Errorf("angle %g, want at the upper limit 0.25", r.Angle)
		}
	})
	t.Run("prismatic limit", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		add(t, w, s, eid(1), def(entity.Static, box(0.2, 0.2)), 0, 5)
		add(t, w, s, eid(2), def(entity.Dynamic, box(0.5, 0.5)), 0, 5)
		id := addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Prismatic, Axis: entity.Vec2{Y: 2}, EnableLimit: true, Lower: -1.5, Upper: 1, CollideConnected: false})
		steps(w, s, 128)
		r, _ := w.JointReading(id)
		t.Logf("slider fallen onto its lower limit: translation %.4f m", r.Translation)
		if math.Abs(r.Translation+1.5) > slop {
			t.Errorf("translation %g, want -1.5", r.Translation)
		}
	})
	t.Run("rope", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		add(t, w, s, eid(1), def(entity.Static, box(0.2, 0.2)), 0, 10)
		p := add(t, w, s, eid(2), def(entity.Dynamic, box(0.5, 0.5)), 1, 9)
		p.rb.VX = 12
		id := addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Rope, Length: 3})
		longest := 0.0
		for range 200 {
			w.Step(s)
			r, _ := w.JointReading(id)
			longest = math.Max(longest, r.Length)
		}
		t.Logf("rope of 3 m thrown at 12 m/s: longest %.4f m", longest)
		if longest > 3+2*slop || longest < 2.9 {
			t.Errorf("longest %g, want 3 within the slop", longest)
		}
	})
	t.Run("weld", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		add(t, w, s, eid(1), def(entity.Static, box(0.2, 0.2)), 0, 5)
		add(t, w, s, eid(2), def(entity.Dynamic, box(3, 0.2)), 1.5, 5)
		id := addJoint(t, w, eid(1), eid(2), entity.JointDef{Kind: entity.Weld, AnchorB: entity.Vec2{X: -1.5}})
		steps(w, s, 64)
		r, _ := w.JointReading(id)
		t.Logf("rigid weld holding a 3 m plank: angle %.5f rad, torque %.2f N·m", r.Angle, r.Torque)
		if math.Abs(r.Angle) > 0.01 {
			t.Errorf("weld bent by %g rad", r.Angle)
		}
	})
	t.Run("wheel drives", func(t *testing.T) {
		w, s, _ := jointWorld(t, jointScenes[4])
		start := s.poses[eid(3)].t.X
		steps(w, s, 128)
		end := s.poses[eid(3)].t.X
		t.Logf("cart driven 2 s: from x %.3f to %.3f", start, end)
		if end-start < 1 {
			t.Errorf("cart moved %g m, want at least 1", end-start)
		}
	})
	t.Run("motor joint and mouse joint", func(t *testing.T) {
		w, s := gravityWorld(), newStore()
		addFloor(t, w, s, eid(1))
		add(t, w, s, eid(3), def(entity.Dynamic, box(1.5, 0.3)), 2, 0.5)
		addJoint(t, w, eid(1), eid(3), entity.JointDef{Kind: entity.Motor,
			LinearOffset: entity.Vec2{X: 3, Y: 2.5}, AngularOffset: 0.4,
			MaxForce: 60, MaxTorque: 5, CorrectionFactor: 0.3})
		steps(w, s, 192)
		// The floor's origin is half a metre below its top.
		if p := s.poses[eid(3)].t; math.Hypot(p.X-3, p.Y-2) > 0.05 || math.Abs(p.Angle-0.4) > 0.02 {
			t.Errorf("motor joint's platform at (%g, %g, %g), want (3, 2, 0.4)", p.X, p.Y, p.Angle)
		}
		w, s = gravityWorld(), newStore()
		add(t, w, s, eid(3), def(entity.Dynamic, box(1.5, 0.3)), 2, 0.5)
		addJoint(t, w, eid(3), entity.None, entity.JointDef{Kind: entity.Motor,
			LinearOffset: entity.Vec2{X: -3, Y: 4}, AngularOffset: -0.6,
			MaxForce: 60, MaxTorque: 5, CorrectionFactor: 0.3})
		steps(w, s, 192)
		if p := s.poses[eid(3)].t; math.Hypot(p.X+3, p.Y-4) > 0.05 || math.Abs(p.Angle+0.6) > 0.02 {
			t.Errorf("motor joint to the world left its box at (%g, %g, %g), want (-3, 4, -0.6)", p.X, p.Y, p.Angle)
		}
		w, s, id := jointWorld(t, jointScenes[7])
		w.RemoveJoint(id + 0) // keep the scene's box, drag it alone
		w.Remove(eid(4))
		id = addJoint(t, w, eid(3), entity.None, entity.JointDef{Kind: entity.Mouse,
			AnchorA: entity.Vec2{X: 0.4, Y: 0.4}, Target: entity.Vec2{X: 6, Y: 2},
			MaxForce: 25, Frequency: 3, DampingRatio: 0.5})
		steps(w, s, 256)
		r, _ := w.JointReading(id)
		t.Logf("dragged box's corner at (%.3f, %.3f), target (%.1f, %.1f)", r.AX, r.AY, r.BX, r.BY)
		if r.Length > 0.3 {
			t.Errorf("dragged corner %g m from its target", r.Length)
		}
	})
}

// angularSlop is box2d's angular tolerance (2°).
const angularSlop = 2.0 / 180 * math.Pi

// TestSetJoint checks what may change on a running joint, that a change
// wakes a sleeping pair through the next step's gather, and what may not.
func TestSetJoint(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	p := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	add(t, w, s, eid(3), def(entity.Dynamic, circle(0.3)), 0.8, 0.3)
	id := addJoint(t, w, eid(2), eid(3), entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{X: 0.8, Y: -0.2}})
	steps(w, s, 192)
	if p.rb.Awake {
		t.Fatal("the pair never fell asleep")
	}
	d, _ := w.Joint(id)
	d.EnableMotor, d.MotorSpeed, d.MaxTorque = true, -6, 50
	if err := w.SetJoint(id, &d); err != nil {
		t.Fatal(err)
	}
	w.Step(s)
	if !p.rb.Awake {
		t.Error("turning the motor on left the pair asleep")
	}
	steps(w, s, 64)
	if r, _ := w.JointReading(id); math.Abs(r.Speed+6) > 0.1 {
		t.Errorf("the wheel turns at %g rad/s against the box, want the motor's -6", r.Speed)
	}
	if got, _ := w.Joint(id); got != d {
		t.Errorf("Joint reads back %+v, want %+v", got, d)
	}

	for _, tc := range []struct {
		name   string
		change func(*entity.JointDef)
		want   string
	}{
		{"anchor", func(d *entity.JointDef) { d.AnchorA.X = 0 }, "fixed"},
		{"kind", func(d *entity.JointDef) { d.Kind = entity.Weld }, "fixed"},
		{"collide", func(d *entity.JointDef) { d.CollideConnected = true }, "fixed"},
		{"limits", func(d *entity.JointDef) { d.Lower, d.Upper = 1, -1 }, "limits: [1, -1] is the wrong way round"},
		{"torque", func(d *entity.JointDef) { d.MaxTorque = -1 }, "maxTorque"},
	} {
		bad := d
		tc.change(&bad)
		err := w.SetJoint(id, &bad)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: SetJoint returned %v, want an error saying %q", tc.name, err, tc.want)
		}
		if got, _ := w.Joint(id); got != d {
			t.Errorf("%s: a refused SetJoint changed the joint to %+v", tc.name, got)
		}
	}
	if err := w.SetJoint(99, &d); err == nil {
		t.Error("SetJoint of an unknown joint succeeded")
	}
}

// TestAddJointRejects checks every refusal of AddJoint and CheckJoint, by
// the key the error names.
func TestAddJointRejects(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	add(t, w, s, eid(2), def(entity.Static, box(1, 1)), 3, 3)
	add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 0, 3)
	add(t, w, s, eid(4), def(entity.Dynamic, box(1, 1)), 0, 3)
	rev := entity.JointDef{Kind: entity.Revolute}
	for _, tc := range []struct {
		name string
		a, b entity.ID
		d    entity.JointDef
		key  string // the JointError's key, or "" for another error
		want string
	}{
		{"kind", eid(3), eid(4), entity.JointDef{Kind: 42}, "kind", "not a joint kind"},
		{"anchor", eid(3), eid(4), entity.JointDef{Kind: entity.Revolute, AnchorA: entity.Vec2{X: math.NaN()}}, "anchorA", "out of range"},
		{"far target", eid(3), entity.None, entity.JointDef{Kind: entity.Mouse, Target: entity.Vec2{Y: 2e6}}, "target", "out of range"},
		{"no axis", eid(3), eid(4), entity.JointDef{Kind: entity.Prismatic}, "axis", "no direction"},
		{"wheel axis", eid(3), eid(4), entity.JointDef{Kind: entity.Wheel, Axis: entity.Vec2{X: 1e-9}}, "axis", "no direction"},
		{"limits", eid(3), eid(4), entity.JointDef{Kind: entity.Revolute, Lower: 0.5, Upper: -0.5}, "limits", "wrong way round"},
		{"prismatic limits", eid(3), eid(4), entity.JointDef{Kind: entity.Prismatic, Axis: entity.Vec2{X: 1}, Lower: 2, Upper: 1}, "limits", "wrong way round"},
		{"speed", eid(3), eid(4), entity.JointDef{Kind: entity.Revolute, MotorSpeed: math.Inf(1)}, "motorSpeed", "out of range"},
		{"force", eid(3), eid(4), entity.JointDef{Kind: entity.Motor, MaxForce: -1}, "maxForce", "out of range"},
		{"length", eid(3), eid(4), entity.JointDef{Kind: entity.Distance, Length: -1}, "length", "out of range"},
		{"frequency", eid(3), eid(4), entity.JointDef{Kind: entity.Distance, Length: 1, Frequency: math.NaN()}, "frequency", "out of range"},
		{"correction", eid(3), eid(4), entity.JointDef{Kind: entity.Motor, CorrectionFactor: 1.5}, "correction", "out of range"},
		{"short rope", eid(3), eid(4), entity.JointDef{Kind: entity.Rope}, "length", "shorter than 5 mm"},
		{"same body", eid(3), eid(3), rev, "", "two different bodies"},
		{"unknown a", eid(7), eid(3), rev, "", "7#1 has no body"},
		{"unknown b", eid(3), eid(7), rev, "", "7#1 has no body"},
		{"static pair", eid(1), eid(2), rev, "", "neither body is dynamic"},
		{"static to world", eid(2), entity.None, rev, "", "neither body is dynamic"},
		{"mouse with b", eid(3), eid(4), entity.JointDef{Kind: entity.Mouse}, "", "no second body"},
	} {
		id, err := w.AddJoint(tc.a, tc.b, &tc.d)
		if err == nil {
			t.Errorf("%s: AddJoint made joint %d", tc.name, id)
			continue
		}
		var je *JointError
		if errors.As(err, &je) != (tc.key != "") || (je != nil && je.Key != tc.key) {
			t.Errorf("%s: %v: want a JointError with key %q", tc.name, err, tc.key)
		}
		if !strings.HasPrefix(err.Error(), "physics: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q, want it to start physics: and say %q", tc.name, err, tc.want)
		}
	}
	if _, err := w.AddJoint(eid(3), eid(4), nil); err == nil {
		t.Error("a nil def made a joint")
	}
	if w.JointCount() != 0 {
		t.Errorf("%d joints made by refused calls", w.JointCount())
	}
}

// TestRemovingJoints checks that removing a joint or one of its bodies
// removes it, wakes what it held, and lets the bodies collide again.
func TestRemovingJoints(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	a := add(t, w, s, eid(2), def(entity.Dynamic, box(1, 1)), 0, 0.5)
	add(t, w, s, eid(3), def(entity.Dynamic, box(1, 1)), 0.9, 0.5) // overlapping a, allowed by the joint
	j1 := addJoint(t, w, eid(2), eid(3), entity.JointDef{Kind: entity.Weld, AnchorA: entity.Vec2{X: 0.45}, AnchorB: entity.Vec2{X: -0.45}})
	j2 := addJoint(t, w, eid(3), entity.None, entity.JointDef{Kind: entity.Rope, AnchorB: entity.Vec2{X: 0.9, Y: 3}})
	var got []JointID
	w.JointsOf(eid(3), func(id JointID) bool { got = append(got, id); return true })
	if len(got) != 2 || got[0] != j1 || got[1] != j2 {
		t.Errorf("joints of 3: %v, want the weld to 2 first, then the rope to the world (%d, %d)", got, j1, j2)
	}
	steps(w, s, 200)
	if a.rb.Awake {
		t.Fatal("the welded pair never slept")
	}
	if !w.RemoveJoint(j1) || w.RemoveJoint(j1) {
		t.Error("RemoveJoint did not report removing the weld once")
	}
	w.Step(s)
	if !a.rb.Awake {
		t.Error("removing the weld left its bodies asleep")
	}
	steps(w, s, 64)
	if d := s.poses[eid(3)].t.X - a.t.X; d < 1-2*skin-slop {
		t.Errorf("the unwelded boxes overlap: %g m apart, want about 1", d)
	}
	w.Remove(eid(3))
	if _, _, ok := w.JointBodies(j2); ok || w.JointCount() != 0 {
		t.Errorf("removing a body kept its joint (%d joints)", w.JointCount())
	}
	w.Step(s) // the ground stays last, alone
	if err := inCanonicalOrder(w); err != nil {
		t.Error(err)
	}
}
