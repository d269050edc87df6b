package physics

import (
	"testing"

	"vkm/internal/entity"
)

// TestARestingCartFallsAsleep sets a cart on two sprung wheels (wheel
// joints, box2d's car suspension) on a floor and steps it with the wire's
// rounding: within a few seconds it stands still as the wire shows it and
// falls asleep, though the solver leaves its chassis a centimetre a second
// of velocity each step, and stays asleep; its joints keep what they last
// carried, so a sleeping wheel joint still reads the chassis' weight.
func TestARestingCartFallsAsleep(t *testing.T) {
	w, s := New(Config{GravityY: -10, Quantize: wireRound}), newStore()
	add(t, w, s, eid(1), def(entity.Static, box(40, 1)), 0, -0.5)
	chassis := add(t, w, s, eid(2), def(entity.Dynamic, box(2.4, 0.5)), 0, 0.9)
	var axles []JointID
	for i, x := range []float64{-0.9, 0.9} {
		add(t, w, s, eid(uint32(3+i)), def(entity.Dynamic, circle(0.35)), x, 0.35)
		axles = append(axles, addJoint(t, w, eid(2), eid(uint32(3+i)), entity.JointDef{
			Kind: entity.Wheel, AnchorA: entity.Vec2{X: x, Y: -0.55}, Axis: entity.Vec2{Y: 1},
			Frequency: 4, DampingRatio: 0.7,
		}))
	}
	asleepAt := -1
	for i := range 8 * 64 {
		w.Step(s)
		if !chassis.rb.Awake && asleepAt < 0 {
			asleepAt = i + 1
		}
		if chassis.rb.Awake && asleepAt >= 0 {
			t.Fatalf("tick %d: the cart woke again, unbidden", i+1)
		}
	}
	r, _ := w.JointReading(axles[0])
	t.Logf("asleep after %d ticks at y %.3f; a sleeping axle reads %.1f N", asleepAt, chassis.t.Y, r.ForceY)
	if asleepAt < 0 {
		t.Fatal("the cart never fell asleep")
	}
	if r.ForceY == 0 {
		t.Error("a sleeping joint forgot what it held")
	}
}
