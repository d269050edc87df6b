package physics

import (
	"math"
	"testing"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// character is a frictionless, upright 0.8×1.6 m character body.
func character(sh entity.Shape) *entity.BodyDef {
	sh.Friction = 0
	d := def(entity.Dynamic, sh)
	d.FixedRotation = true
	return d
}

// tuning is the controller tuning the tests use.
func tuning() entity.CharacterController {
	return entity.CharacterController{Speed: 6, Accel: 32, AirAccel: 8, JumpSpeed: 7}
}

func TestGrounded(t *testing.T) {
	floor := def(entity.Static, box(40, 1))   // top at y = 0 when placed at y = -0.5
	ceiling := def(entity.Static, box(40, 1)) // bottom at y = 3 when placed at y = 3.5
	wallDef := def(entity.Static, box(1, 40)) // right face at x = -3 when placed at x = -3.5
	sensor := box(10, 10)
	sensor.Sensor = true
	upright := box(0.8, 1.6)
	tests := []struct {
		name      string
		gx, gy    float64
		other     *entity.BodyDef // the body the character may touch
		otherAt   entity.Vec2
		char      entity.Shape
		charAt    entity.Vec2
		charFirst bool // create the character's body before the other's
		withFloor bool // add a static floor, top at y = 0, first
		want      bool
	}{
		{name: "in the air", gy: -10, char: upright, charAt: entity.Vec2{Y: 10}},
		{name: "box on box, floor first", gy: -10, other: floor, otherAt: entity.Vec2{Y: -0.5},
			char: upright, charAt: entity.Vec2{Y: 0.9}, want: true},
		{name: "box on box, character first", gy: -10, other: floor, otherAt: entity.Vec2{Y: -0.5},
			char: upright, charAt: entity.Vec2{Y: 0.9}, charFirst: true, want: true},
		{name: "circle on box", gy: -10, other: floor, otherAt: entity.Vec2{Y: -0.5},
			char: circle(0.5), charAt: entity.Vec2{Y: 0.6}, want: true},
		{name: "box on chain", gy: -10, other: def(entity.Static, chain(entity.Vec2{X: -20}, entity.Vec2{X: 20})),
			char: upright, charAt: entity.Vec2{Y: 0.9}, want: true},
		{name: "box on a crate", gy: -10, other: def(entity.Dynamic, box(2, 1)), otherAt: entity.Vec2{Y: 0.5},
			char: upright, charAt: entity.Vec2{Y: 2}, withFloor: true, want: true},
		{name: "under a ceiling, ceiling first", gy: 10, other: ceiling, otherAt: entity.Vec2{Y: 3.5},
			char: upright, charAt: entity.Vec2{Y: 2.1}},
		{name: "under a ceiling, character first", gy: 10, other: ceiling, otherAt: entity.Vec2{Y: 3.5},
			char: upright, charAt: entity.Vec2{Y: 2.1}, charFirst: true},
		{name: "against a wall", gx: -10, other: wallDef, otherAt: entity.Vec2{X: -3.5},
			char: upright, charAt: entity.Vec2{X: -2.5}},
		{name: "inside a sensor", other: def(entity.Static, sensor), char: upright},
	}
	sawCharA, sawCharB := false, false
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, s := New(Config{GravityX: tc.gx, GravityY: tc.gy}), newStore()
			if tc.withFloor {
				addFloor(t, w, s, eid(3))
			}
			addOther := func() {
				if tc.other != nil {
					add(t, w, s, eid(2), tc.other, tc.otherAt.X, tc.otherAt.Y)
				}
			}
			if !tc.charFirst {
				addOther()
			}
			p := add(t, w, s, eid(1), character(tc.char), tc.charAt.X, tc.charAt.Y)
			if tc.charFirst {
				addOther()
			}
			steps(w, s, 64)
			c := tuning()
			w.UpdateController(eid(1), &c, &p.rb)
			if c.Grounded != tc.want {
				t.Errorf("Grounded = %v, want %v (character at %+v)", c.Grounded, tc.want, p.t)
			}
			touching := false
			w.Touching(eid(1), func(entity.ID) bool { touching = true; return true })
			if tc.other != nil && !touching {
				t.Errorf("character does not touch the other body; the case tests nothing")
			}
			for e := w.byID[eid(1)].b.GetContactList(); e != nil; e = e.Next {
				if e.Contact.GetFixtureA().GetBody().GetType() == box2d.B2BodyType.B2_staticBody ||
					e.Contact.GetFixtureB().GetBody().GetType() == box2d.B2BodyType.B2_staticBody {
					if e.Contact.GetFixtureA().GetBody() == w.byID[eid(1)].b {
						sawCharA = true
					} else {
						sawCharB = true
					}
				}
			}
		})
	}
	// The normal's sign is flipped when the character owns fixture A; make
	// sure both sides of that branch were exercised.
	if !sawCharA || !sawCharB {
		t.Errorf("contacts seen with the character as fixture A: %v, as B: %v; want both", sawCharA, sawCharB)
	}
}

// controllerScene returns a world with a floor and a character either
// settled on it or falling high above it.
func controllerScene(tb testing.TB, onFloor bool) (*World, *store, *pose) {
	tb.Helper()
	w, s := gravityWorld(), newStore()
	addFloor(tb, w, s, eid(1))
	y := 0.9
	if !onFloor {
		y = 20
	}
	p := add(tb, w, s, eid(2), character(box(0.8, 1.6)), 0, y)
	steps(w, s, 64)
	return w, s, p
}

func TestControllerTick(t *testing.T) {
	const step = 1.0 / 64
	tests := []struct {
		name    string
		onFloor bool
		vx      float64
		move    float64
		jump    bool
		wantVX  float64
		jumps   bool
	}{
		{"ground run from rest", true, 0, 1, false, 32 * step, false},
		{"air run from rest", false, 0, 1, false, 8 * step, false},
		{"ground half stick", true, 0, 0.5, false, 32 * step, false},
		{"ground near target", true, 5.9, 1, false, 6, false},
		{"ground reverse", true, 2, -1, false, 2 - 32*step, false},
		{"ground stop", true, 0.1, 0, false, 0, false},
		{"air stop", false, 1, 0, false, 1 - 8*step, false},
		{"ground jump", true, 0, 0, true, 0, true},
		{"ground no jump", true, 0, 0, false, 0, false},
		{"air jump refused", false, 0, 0, true, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _, p := controllerScene(t, tc.onFloor)
			c := tuning()
			c.MoveX, c.Jump = tc.move, tc.jump
			rb := p.rb
			rb.VX = tc.vx
			vy := rb.VY
			w.UpdateController(eid(2), &c, &rb)
			if c.Grounded != tc.onFloor {
				t.Fatalf("Grounded = %v, want %v", c.Grounded, tc.onFloor)
			}
			if math.Abs(rb.VX-tc.wantVX) > 1e-12 {
				t.Errorf("VX = %.15g, want %.15g", rb.VX, tc.wantVX)
			}
			if tc.jumps && rb.VY != c.JumpSpeed {
				t.Errorf("VY = %g, want the jump speed %g", rb.VY, c.JumpSpeed)
			}
			if !tc.jumps && rb.VY != vy {
				t.Errorf("VY changed to %g without a jump", rb.VY)
			}
			if c.MoveX != 0 || c.Jump {
				t.Errorf("intent not cleared: MoveX = %g, Jump = %v", c.MoveX, c.Jump)
			}
		})
	}
}

func TestControllerRunAndJump(t *testing.T) {
	w, s, p := controllerScene(t, true)
	c := tuning()
	for tick := range 64 {
		c.MoveX = 1
		before := p.rb.VX
		w.UpdateController(eid(2), &c, &p.rb)
		if d := p.rb.VX - before; d > c.Accel*w.Config().Step+1e-12 {
			t.Fatalf("tick %d: VX jumped by %g, more than the accel limit", tick, d)
		}
		w.Step(s)
		if p.rb.VX > c.Speed {
			t.Fatalf("tick %d: VX = %g above the run speed", tick, p.rb.VX)
		}
	}
	if math.Abs(p.rb.VX-c.Speed) > 1e-9 {
		t.Errorf("after a second of running VX = %g, want %g", p.rb.VX, c.Speed)
	}

	// No intent: the controller brakes at the ground accel.
	w.UpdateController(eid(2), &c, &p.rb)
	if want := c.Speed - c.Accel*w.Config().Step; math.Abs(p.rb.VX-want) > 1e-9 {
		t.Errorf("without intent VX = %g, want %g", p.rb.VX, want)
	}

	// Jump: carried into the body by the gather, it leaves the floor, is
	// airborne on the next tick, and a second jump is refused mid-air.
	c.Jump = true
	w.UpdateController(eid(2), &c, &p.rb)
	steps(w, s, 1)
	// One tick after take-off the feet are a step's rise above the floor:
	// not grounded, so a second press does not jump again.
	c.Jump = true
	vy := p.rb.VY
	w.UpdateController(eid(2), &c, &p.rb)
	if c.Grounded || p.rb.VY != vy {
		t.Fatalf("one tick after take-off: Grounded = %v, VY %g → %g", c.Grounded, vy, p.rb.VY)
	}
	steps(w, s, 1)
	if p.rb.VY <= 0 || p.t.Y <= 0.9 {
		t.Fatalf("jump did not lift the character: %+v", *p)
	}
	steps(w, s, 4)
	c.Jump = true
	vy = p.rb.VY
	w.UpdateController(eid(2), &c, &p.rb)
	if c.Grounded || p.rb.VY != vy {
		t.Errorf("mid-air: Grounded = %v, VY %g → %g; want not grounded and no jump", c.Grounded, vy, p.rb.VY)
	}
	// It lands again.
	steps(w, s, 128)
	w.UpdateController(eid(2), &c, &p.rb)
	if !c.Grounded {
		t.Errorf("not grounded after landing: %+v", *p)
	}
}

func TestControllerWithoutBody(t *testing.T) {
	w := gravityWorld()
	c := tuning()
	c.MoveX, c.Jump, c.Grounded = 1, true, true
	var rb entity.Rigidbody
	w.UpdateController(eid(9), &c, &rb)
	if c.Grounded || rb.VY != 0 || rb.VX != 8.0/64 || c.MoveX != 0 || c.Jump {
		t.Errorf("no body: c = %+v, rb = %+v", c, rb)
	}
	w.UpdateController(eid(9), nil, nil) // must not panic
}
