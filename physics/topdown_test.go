package physics

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// topDownTuning is the top-down controller tuning the tests use.
func topDownTuning() entity.CharacterController {
	return entity.CharacterController{Mode: entity.TopDown, Speed: 6, Accel: 32, Friction: 16}
}

// topDownScene returns a world without gravity holding a 0.8 m round
// character at the origin, floating (gravity scale 0, as the project loader
// makes it) and at rest, and a static room around it 20 m wide and tall
// with a 1×1 m pillar at (4, 4).
func topDownScene(tb testing.TB) (*World, *store, *pose) {
	tb.Helper()
	w, s := New(Config{}), newStore()
	room := def(entity.Static, box(20, 1), box(20, 1), box(1, 20), box(1, 20), box(1, 1))
	room.Shapes[0].Offset = entity.Vec2{Y: -10}
	room.Shapes[1].Offset = entity.Vec2{Y: 10}
	room.Shapes[2].Offset = entity.Vec2{X: -10}
	room.Shapes[3].Offset = entity.Vec2{X: 10}
	room.Shapes[4].Offset = entity.Vec2{X: 4, Y: 4}
	add(tb, w, s, eid(1), room, 0, 0)
	d := character(circle(0.4))
	d.GravityScale = 0
	p := add(tb, w, s, eid(2), d, 0, 0)
	return w, s, p
}

func TestTopDownControllerTick(t *testing.T) {
	const step = 1.0 / 64
	r := math.Sqrt(0.5)
	tests := []struct {
		name           string
		vx, vy         float64 // velocity before
		mx, my         float64 // intent
		jump           bool
		wantVX, wantVY float64
	}{
		{"right from rest", 0, 0, 1, 0, false, 32 * step, 0},
		{"up from rest", 0, 0, 0, 1, false, 0, 32 * step},
		{"diagonal from rest", 0, 0, 1, 1, false, 32 * step * r, 32 * step * r},
		{"half stick", 0, 0, -0.5, 0, false, -32 * step, 0},
		{"near the target", 5.9, 0, 1, 0, false, 6, 0},
		{"at full diagonal speed", 6 * r, 6 * r, 1, 1, false, 6 * r, 6 * r},
		{"reverse", 2, 0, -1, 0, false, 2 - 32*step, 0},
		{"turn a corner", 6, 0, 0, 1, false, 6 - 32*step*r*6/6, 32 * step * r},
		{"friction", 3, 4, 0, 0, false, 3 - 16*step*0.6, 4 - 16*step*0.8},
		{"friction to rest", 0.1, 0, 0, 0, false, 0, 0},
		{"jump does nothing", 0, 0, 0, 0, true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _, p := topDownScene(t)
			c := topDownTuning()
			c.Grounded = true // the controller must clear it
			c.MoveX, c.MoveY, c.Jump = tc.mx, tc.my, tc.jump
			rb := p.rb
			rb.VX, rb.VY = tc.vx, tc.vy
			w.UpdateController(eid(2), &c, &rb)
			if c.Grounded {
				t.Error("Grounded top-down")
			}
			if math.Abs(rb.VX-tc.wantVX) > 1e-12 || math.Abs(rb.VY-tc.wantVY) > 1e-12 {
				t.Errorf("V = (%.15g, %.15g), want (%.15g, %.15g)", rb.VX, rb.VY, tc.wantVX, tc.wantVY)
			}
			if c.MoveX != 0 || c.MoveY != 0 || c.Jump {
				t.Errorf("intent not cleared: MoveX = %g, MoveY = %g, Jump = %v", c.MoveX, c.MoveY, c.Jump)
			}
		})
	}
}

// TestTopDownDiagonalIsNoFaster holds the stick in a corner, even past the
// unit circle as a set() may write it, for half a second in open space: the
// character reaches the run speed, not √2 times it, heading at 45°, and
// every tick its speed grows by at most Accel·step.
func TestTopDownDiagonalIsNoFaster(t *testing.T) {
	for _, move := range [][2]float64{{1, 1}, {-3, -3}} {
		w, s, p := topDownScene(t)
		c := topDownTuning()
		for tick := range 32 {
			c.MoveX, c.MoveY = move[0], move[1]
			before := math.Hypot(p.rb.VX, p.rb.VY)
			w.UpdateController(eid(2), &c, &p.rb)
			if d := math.Hypot(p.rb.VX, p.rb.VY) - before; d > c.Accel*w.Config().Step+1e-12 {
				t.Fatalf("move %v, tick %d: speed grew by %g, more than the accel limit", move, tick, d)
			}
			w.Step(s)
		}
		if v := math.Hypot(p.rb.VX, p.rb.VY); math.Abs(v-c.Speed) > 1e-9 {
			t.Errorf("move %v: speed %g after half a second, want %g", move, v, c.Speed)
		}
		if p.rb.VX != p.rb.VY {
			t.Errorf("move %v: velocity (%g, %g) is off the diagonal", move, p.rb.VX, p.rb.VY)
		}
		if p.t.Y != p.t.X {
			t.Errorf("move %v: position (%g, %g) is off the diagonal", move, p.t.X, p.t.Y)
		}
		// Let go: friction brings it to rest within Speed/Friction seconds.
		for range int(c.Speed/c.Friction*64) + 1 {
			w.UpdateController(eid(2), &c, &p.rb)
			w.Step(s)
		}
		if p.rb.VX != 0 || p.rb.VY != 0 {
			t.Errorf("move %v: still moving at (%g, %g) after friction had time to stop it", move, p.rb.VX, p.rb.VY)
		}
	}
}

// TestTopDownSlidesAlongAWall runs at a slant into the room's right wall:
// the character stops against it on x and goes on down along it at the
// commanded speed on y, as no gravity pulls it.
func TestTopDownSlidesAlongAWall(t *testing.T) {
	w, s, p := topDownScene(t)
	c := topDownTuning()
	for range 4 * 64 {
		c.MoveX, c.MoveY = 1, -0.2
		w.UpdateController(eid(2), &c, &p.rb)
		w.Step(s)
	}
	// The wall's inner face is at x = 9.5; the character's radius is 0.4.
	if math.Abs(p.t.X-9.1) > 0.02 || math.Abs(p.rb.VX) > 1e-9 {
		t.Errorf("at x = %g moving at %g, want stopped against the wall at 9.1", p.t.X, p.rb.VX)
	}
	// The stick (1, -0.2) is longer than 1: it is scaled to length 1, so
	// the character goes down at 6·0.2/|(1, -0.2)| m/s, for four seconds
	// less the fifth of a second it took to reach that speed.
	vy := -6 * 0.2 / math.Hypot(1, 0.2)
	if math.Abs(p.rb.VY-vy) > 1e-9 || p.t.Y > 4*vy+0.15 || p.t.Y < 4*vy {
		t.Errorf("at y = %g moving at %g, want about %g m down at %g m/s", p.t.Y, p.rb.VY, 4*vy, vy)
	}
}

// topDownIntent is the scripted stick of the replay test at tick n: a
// diagonal run into the pillar and along it, a turn, a stop, a run up the
// room, a stop in open space.
func topDownIntent(n int) (x, y float64) {
	switch {
	case n < 80:
		return 1, 1
	case n < 110:
		return 0.3, -1
	case n < 140:
		return 0, 0
	case n < 200:
		return -0.6, 0.8
	default:
		return 0, 0
	}
}

// TestTopDownReplayFromARestoredStateIsExact plays 260 scripted ticks,
// keeping the character's components after each, then for several restore
// ticks k puts the components kept at k back (as a client does with the
// server's answer), places the body there, and plays ticks k+1.. again
// with the same intent: every tick's position and velocity repeats bit for
// bit. The controller keeps nothing between ticks but the Rigidbody, so
// the components are the whole state it needs. Awake is not compared: when
// a body at rest falls asleep is box2d's own timer, history no component
// carries, and a body at rest is where it is either way (a prediction is
// judged by its position).
func TestTopDownReplayFromARestoredStateIsExact(t *testing.T) {
	const ticks = 260
	w, s, p := topDownScene(t)
	c := topDownTuning()
	run := func(from, to int, check func(tick int)) {
		for n := from; n < to; n++ {
			c.MoveX, c.MoveY = topDownIntent(n)
			w.UpdateController(eid(2), &c, &p.rb)
			w.Step(s)
			check(n)
		}
	}
	var kept [ticks]pose
	touched := 0
	run(0, ticks, func(n int) {
		kept[n] = *p
		w.Touching(eid(2), func(entity.ID) bool { touched++; return false })
	})
	if touched == 0 {
		t.Fatal("the character never touched the pillar or a wall: the test proves nothing")
	}
	if kept[ticks-1].t == kept[0].t {
		t.Fatal("the character did not move")
	}
	for _, k := range []int{10, 79, 95, 139, 150, 230} {
		*p = kept[k]
		w.Place(eid(2), &p.t, &p.rb)
		replayed := 0
		run(k+1, ticks, func(n int) {
			got, want := *p, kept[n]
			got.rb.Awake, want.rb.Awake = false, false
			if !sameBits(&got, &want) {
				t.Fatalf("restored at tick %d: tick %d differs: %+v, first time %+v", k, n, *p, kept[n])
			}
			replayed++
		})
		t.Logf("restored at tick %d (%+v): %d ticks replayed bit for bit", k, kept[k].t, replayed)
	}
	t.Logf("the character touched the pillar or a wall on %d of %d ticks", touched, ticks)
}
