package physics

import (
	"math"
	"slices"
	"testing"

	"vkm/internal/entity"
)

func TestRayCast(t *testing.T) {
	w, s := New(Config{}), newStore()
	sensor := box(1, 1)
	sensor.Sensor = true
	add(t, w, s, eid(4), def(entity.Static, sensor), 1.5, 0) // ignored: a sensor
	add(t, w, s, eid(1), def(entity.Static, box(1, 1)), 3, 0)
	add(t, w, s, eid(2), def(entity.Static, box(1, 1)), 6, 0)
	add(t, w, s, eid(3), def(entity.Dynamic, circle(0.5)), 9, 0)
	tests := []struct {
		name           string
		x1, y1, x2, y2 float64
		ignore         entity.ID
		want           entity.ID // None for no hit
		wantX, wantNX  float64
	}{
		{"closest", 0, 0, 12, 0, entity.None, eid(1), 2.5, -1},
		{"ignore the closest", 0, 0, 12, 0, eid(1), eid(2), 5.5, -1},
		{"ignore an absent entity", 0, 0, 12, 0, eid(99), eid(1), 2.5, -1},
		{"backwards hits the circle", 12, 0, 0, 0, entity.None, eid(3), 9.5, 1},
		{"starts inside the sensor", 1.5, 0, 12, 0, entity.None, eid(1), 2.5, -1},
		{"only a sensor on the way", 0, 0, 2, 0, entity.None, entity.None, 0, 0},
		{"misses", 0, 5, 12, 5, entity.None, entity.None, 0, 0},
		{"zero length", 3, 0, 3, 0, entity.None, entity.None, 0, 0},
		{"not finite", math.NaN(), 0, 12, 0, entity.None, entity.None, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hit, ok := w.RayCast(tc.x1, tc.y1, tc.x2, tc.y2, tc.ignore)
			if ok != !tc.want.IsNone() {
				t.Fatalf("RayCast = %+v, %v; want a hit on %v", hit, ok, tc.want)
			}
			if !ok {
				return
			}
			wantFraction := math.Abs(tc.wantX-tc.x1) / math.Abs(tc.x2-tc.x1)
			if hit.Entity != tc.want || math.Abs(hit.X-tc.wantX) > 1e-9 || math.Abs(hit.Y) > 1e-9 ||
				math.Abs(hit.NX-tc.wantNX) > 1e-9 || math.Abs(hit.NY) > 1e-9 ||
				math.Abs(hit.Fraction-wantFraction) > 1e-9 {
				t.Errorf("hit %+v, want %v at x = %g, normal x %g, fraction %g", hit, tc.want, tc.wantX, tc.wantNX, wantFraction)
			}
		})
	}
}

func TestQueryAABB(t *testing.T) {
	w, s := New(Config{}), newStore()
	// The query box is [-1, 1]×[-1, 1].
	add(t, w, s, eid(5), def(entity.Static, box(1, 1)), 0, 0)                 // inside
	add(t, w, s, eid(2), def(entity.Static, circle(0.5)), 1.3, 0)             // partly inside
	add(t, w, s, eid(7), def(entity.Static, box(1, 1)), 0, 1.55)              // 5 cm above the box
	add(t, w, s, eid(9), def(entity.Static, box(1, 1)), 10, 10)               // far away
	add(t, w, s, eid(6), def(entity.Static, circle(0.5)), 1.45, 1.45)         // off the corner, inside the bounds
	twoParts := def(entity.Static, offsetBox(-0.6, 0.6), offsetBox(0.6, 0.6)) // both parts inside
	add(t, w, s, eid(3), twoParts, 0, -0.2)
	floorChain := chain(entity.Vec2{X: -10, Y: -0.95}, entity.Vec2{X: 0, Y: -0.95}, entity.Vec2{X: 10, Y: -0.95})
	add(t, w, s, eid(4), def(entity.Static, floorChain), 0, 0) // middle edges inside
	nearChain := chain(entity.Vec2{X: -10, Y: -1.05}, entity.Vec2{X: 0, Y: -1.05}, entity.Vec2{X: 10, Y: -1.05})
	add(t, w, s, eid(8), def(entity.Static, nearChain), 0, 0) // 5 cm below the box

	// The near misses must be candidates of the broad phase (fat bounds),
	// or this test would not show the refinement.
	for _, id := range []entity.ID{eid(7), eid(6), eid(8)} {
		f := w.byID[id].b.GetFixtureList()
		fat := w.b2.M_contactManager.M_broadPhase.GetFatAABB(f.M_proxies[0].ProxyId)
		if !(fat.LowerBound.X < 1 && fat.UpperBound.X > -1 && fat.LowerBound.Y < 1 && fat.UpperBound.Y > -1) {
			t.Fatalf("%v's fat bounds %+v miss the query box; the case tests nothing", id, fat)
		}
	}

	var got []entity.ID
	w.QueryAABB(-1, -1, 1, 1, collect(&got))
	if want := []entity.ID{eid(2), eid(3), eid(4), eid(5)}; !slices.Equal(got, want) {
		t.Errorf("QueryAABB = %v, want %v", got, want)
	}

	got = nil
	w.QueryAABB(-1, -1, 1, 1, func(id entity.ID) bool {
		got = append(got, id)
		return false
	})
	if want := []entity.ID{eid(2)}; !slices.Equal(got, want) {
		t.Errorf("QueryAABB stopping at once = %v, want %v", got, want)
	}

	for _, q := range [][4]float64{{1, 1, -1, -1}, {math.Inf(-1), -1, 1, 1}, {math.NaN(), 0, 1, 1}} {
		got = nil
		w.QueryAABB(q[0], q[1], q[2], q[3], collect(&got))
		if len(got) != 0 {
			t.Errorf("QueryAABB%v = %v, want nothing", q, got)
		}
	}
}

// offsetBox is a 0.5 m box fixture centred at (x, y) in the body frame.
func offsetBox(x, y float64) entity.Shape {
	sh := box(0.5, 0.5)
	sh.Offset = entity.Vec2{X: x, Y: y}
	return sh
}

func TestTouching(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	pickup := box(2, 2)
	pickup.Sensor = true
	add(t, w, s, eid(2), def(entity.Static, pickup), 0, 1)
	add(t, w, s, eid(3), def(entity.Dynamic, box(0.8, 1.6)), 0, 0.9) // player, inside the pickup
	add(t, w, s, eid(4), def(entity.Dynamic, box(1, 1)), 5, 0.6)     // crate
	add(t, w, s, eid(5), def(entity.Dynamic, box(1, 1)), 10, 50)     // falling, touches nothing
	steps(w, s, 64)

	tests := []struct {
		id   entity.ID
		want []entity.ID
	}{
		{eid(2), []entity.ID{eid(3)}},         // the pickup sees the player
		{eid(3), []entity.ID{eid(1), eid(2)}}, // the player: floor and pickup
		{eid(1), []entity.ID{eid(3), eid(4)}}, // the floor: player and crate, not the static sensor
		{eid(4), []entity.ID{eid(1)}},
		{eid(5), nil},
		{eid(99), nil},
	}
	for _, tc := range tests {
		var got []entity.ID
		w.Touching(tc.id, collect(&got))
		if !slices.Equal(got, tc.want) {
			t.Errorf("Touching(%v) = %v, want %v", tc.id, got, tc.want)
		}
	}

	var got []entity.ID
	w.Touching(eid(1), func(id entity.ID) bool {
		got = append(got, id)
		return false
	})
	if want := []entity.ID{eid(3)}; !slices.Equal(got, want) {
		t.Errorf("Touching stopping at once = %v, want %v", got, want)
	}
}

func TestQueryCallbacksMayChangeTheWorld(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	for i := range uint32(4) {
		add(t, w, s, eid(10+i), def(entity.Dynamic, box(1, 1)), float64(i)*2, 0.6)
	}
	steps(w, s, 32)
	var outer, inner []entity.ID
	w.Touching(eid(1), func(id entity.ID) bool {
		outer = append(outer, id)
		w.Remove(id) // the pickup pattern: collect and destroy
		w.QueryAABB(-10, -10, 10, 10, collect(&inner))
		return true
	})
	if want := []entity.ID{eid(10), eid(11), eid(12), eid(13)}; !slices.Equal(outer, want) {
		t.Errorf("outer Touching = %v, want %v", outer, want)
	}
	// Nested queries saw the removals so far: 4 + 3 + 2 + 1 entities
	// including the floor each time.
	if len(inner) != 4+3+2+1 || w.Len() != 1 {
		t.Errorf("nested queries reported %d entities, world has %d bodies", len(inner), w.Len())
	}
	steps(w, s, 1)
}
