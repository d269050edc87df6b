package game

import (
	"math"
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/prediction"
)

func loadHaul(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/haul")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// find returns the entity named name in g, failing the test without one.
func find(t testing.TB, g *Game, name string) entity.ID {
	t.Helper()
	id := g.World().Find(name)
	if id.IsNone() {
		t.Fatalf("no %q in the world", name)
	}
	return id
}

// haulGame is the haul offline, its local worker seated, settled for a
// second.
func haulGame(t testing.TB) *Game {
	t.Helper()
	g := newGame(t, loadHaul(t))
	if g.Own().IsNone() {
		t.Fatal("the join handler gave the local player no worker")
	}
	ticks(g, 64)
	return g
}

func ticks(g *Game, n int) {
	for range n {
		g.RunTick()
	}
}

// place teleports id to (x, y), at rest.
func place(g *Game, id entity.ID, x, y float64) {
	t := g.Store().Transform(id)
	t.X, t.Y = x, y
	if rb := g.Store().Rigidbody(id); rb != nil {
		*rb = entity.Rigidbody{Awake: true}
	}
}

// moveCart moves the cart and its wheels by (dx, dy).
func moveCart(t testing.TB, g *Game, dx, dy float64) {
	for _, n := range []string{"cart", "wheel_rear", "wheel_front"} {
		id := find(t, g, n)
		tr := g.Store().Transform(id)
		place(g, id, tr.X+dx, tr.Y+dy)
	}
}

// TestHaulPlatesWorkTheCraneAndTheDrawbridge stands the worker on each
// plate in turn: on the crane's, the boom lifts the block clear of the
// cart's way; off it, the block comes down; on the drawbridge's, the bridge
// comes down to lie across the gap, and goes back up when the worker
// leaves.
func TestHaulPlatesWorkTheCraneAndTheDrawbridge(t *testing.T) {
	g := haulGame(t)
	own, block, bridge := g.Own(), find(t, g, "block"), find(t, g, "drawbridge")
	low := g.Store().Transform(block).Y
	place(g, own, 11.5, 0.85)
	ticks(g, 3*64)
	high := g.Store().Transform(block).Y
	if down, _ := g.World().Component(find(t, g, "crane_plate"), g.Schema().Index("Plate"))[0], 0; down != 1 {
		t.Error("the crane plate is not down under the worker")
	}
	place(g, own, 24, 0.85)
	ticks(g, 4*64)
	back := g.Store().Transform(block).Y
	t.Logf("block: resting at y %.2f, lifted to %.2f, let down to %.2f", low, high, back)
	if high-low < 2.5 || math.Abs(back-low) > 0.2 {
		t.Errorf("the crane did not lift the block clear (%.2f → %.2f) and let it down again (%.2f)", low, high, back)
	}
	up := g.Store().Transform(bridge).Angle
	place(g, own, 26, 0.85)
	ticks(g, 3*64)
	down := g.Store().Transform(bridge).Angle
	place(g, own, 22, 0.85)
	ticks(g, 3*64)
	again := g.Store().Transform(bridge).Angle
	t.Logf("drawbridge: up at %.3f rad, let down to %.3f, raised again to %.3f", up, down, again)
	if up < 1.4 || math.Abs(down) > 0.05 || again < 1.4 {
		t.Errorf("the drawbridge did not come down for the plate and go back up")
	}
	for _, e := range g.ScriptErrors() {
		t.Error(e)
	}
}

// TestHaulCartCrossesTheBridgeAndIsDelivered puts the cart on the rope
// bridge's middle (it holds it), then in the depot: the depot counts it
// and sends it back to the start, wheels and all.
func TestHaulCartCrossesTheBridgeAndIsDelivered(t *testing.T) {
	g := haulGame(t)
	cart, depot := find(t, g, "cart"), find(t, g, "depot")
	home := *g.Store().Transform(cart)
	moveCart(t, g, 20, 0.3) // the bridge's middle
	ticks(g, 3*64)
	on := *g.Store().Transform(cart)
	if on.Y < -1 || math.Abs(on.X) > 1.5 {
		t.Errorf("the cart on the bridge's middle fell or rolled to (%.2f, %.2f)", on.X, on.Y)
	}
	tr := g.Store().Transform(cart)
	moveCart(t, g, 42-tr.X, 1.25-tr.Y+0.05)
	ticks(g, 64)
	delivered := g.World().Component(depot, g.Schema().Index("Haul"))[0]
	after := *g.Store().Transform(cart)
	wheel := *g.Store().Transform(find(t, g, "wheel_rear"))
	t.Logf("on the bridge the cart stood at (%.2f, %.2f); delivered %v; back at (%.2f, %.2f), its rear wheel at (%.2f, %.2f)",
		on.X, on.Y, delivered, after.X, after.Y, wheel.X, wheel.Y)
	if delivered != 1 {
		t.Errorf("delivered %v, want 1", delivered)
	}
	if math.Hypot(after.X-home.X, after.Y-home.Y) > 0.2 || math.Hypot(wheel.X-(home.X-1.1), wheel.Y-0.5) > 0.2 {
		t.Errorf("the cart was not sent back to its start with its wheels")
	}
	for _, e := range g.ScriptErrors() {
		t.Error(e)
	}
}

// TestHaulWorkerTowsTheCart ties the local worker's rope to the cart and
// runs right: the cart follows on the rope; a second press unties it.
func TestHaulWorkerTowsTheCart(t *testing.T) {
	g := haulGame(t)
	own, cart := g.Own(), find(t, g, "cart")
	place(g, own, -17.6, 0.85)
	ticks(g, 16)
	tow := 1 << g.Project().ButtonIndex("tow")
	g.SetCommand(prediction.Command{Pressed: uint32(tow), Held: uint32(tow)})
	g.RunTick()
	if n := g.Physics().JointCount(); n != 20 {
		t.Errorf("%d joints after the tow, want the scene's 19 and the rope", n)
	}
	start := g.Store().Transform(cart).X
	run := prediction.Command{}
	run.Axes[g.Project().AxisIndex("run")] = 1
	for range 2 * 64 {
		g.SetCommand(run)
		g.RunTick()
	}
	moved := g.Store().Transform(cart).X - start
	g.SetCommand(prediction.Command{Pressed: uint32(tow), Held: uint32(tow)})
	g.RunTick()
	t.Logf("towed 2 s: the cart moved %.2f m; %d joints after untying", moved, g.Physics().JointCount())
	if moved < 3 {
		t.Errorf("the cart moved %.2f m on the tow, want it pulled along", moved)
	}
	if g.Physics().JointCount() != 19 {
		t.Error("the rope was not untied")
	}
}

// TestHaulBotPlays plays haul offline with a wandering bot for a minute of
// ticks, three seeds: no script errors, and the bot's worker went places.
func TestHaulBotPlays(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		g := newGame(t, loadHaul(t))
		tally := runBot(t, g, seed, 60*64)
		t.Logf("seed %d: %.1f m travelled, events %v, %d script errors", seed, tally.Distance, tally.Events, len(g.ScriptErrors()))
		for _, e := range g.ScriptErrors() {
			t.Error(e)
		}
		if tally.Distance < 20 {
			t.Errorf("seed %d: the bot's worker travelled %.1f m", seed, tally.Distance)
		}
	}
}
