package game

import (
	"testing"

	"vkm/internal/entity"
	"vkm/prediction"
)

// contactProject has a bouncing ball, a sensor goal it falls through on
// its way to the floor, and a floor, each behavior emitting an event for
// every on_contact it is given.
func contactProject(t testing.TB) map[string]string {
	return map[string]string{
		"scene.toml": `[[entity]]
id = 1
name = "floor"
behavior = "reporter"
[entity.body]
type = "static"
[[entity.body.shape]]
box = [40.0, 1.0]
[[entity]]
id = 2
name = "goal"
behavior = "reporter"
transform = { x = 0.0, y = 3.0 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [2.0, 1.0]
sensor = true
[[entity]]
id = 3
name = "ball"
behavior = "reporter"
transform = { x = 0.3, y = 6.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.3
restitution = 0.6
`,
		"scripts/main.lua": `
local Reporter = {}
function Reporter:on_contact(other, info)
  self:emit("contact", { other = other:name(), begin = info.begin, sensor = info.sensor,
    speed = info.speed, nx = info.nx, ny = info.ny, y = info.y, shape = info.shape,
    replaying = self:is_replaying() })
end
function vkmRegisterBehaviors(r) r.reporter = Reporter end
`,
	}
}

// TestOnContactBeginsAndEndsOnce drops a ball through a sensor goal onto a
// floor it bounces on: every side of every touch is told it began and then
// that it ended, once each, the ball with the normal pointing from itself
// toward what it hit and the speed it hit at; a replay of the same ticks
// tells nobody anything.
func TestOnContactBeginsAndEndsOnce(t *testing.T) {
	p := miniProject(t, contactProject(t))
	g, err := New(Config{Project: p, Authority: func(g *Game) Authority { return told{offline{g}} }})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	type side struct{ self, other string }
	open := map[side]int{}
	begins, ends := map[side]int{}, map[side]int{}
	firstHit := 0.0
	check := func(name string, f map[string]any) {
		s := side{name, f["other"].(string)}
		if f["replaying"] == true {
			t.Errorf("%v told during a replay", s)
		}
		if f["begin"] == true {
			open[s]++
			begins[s]++
			if open[s] > 1 {
				t.Errorf("%v began twice without ending", s)
			}
		} else {
			open[s]--
			ends[s]++
			if open[s] < 0 {
				t.Errorf("%v ended without beginning", s)
			}
		}
		if s == (side{"ball", "floor"}) && f["begin"] == true {
			if ny := f["ny"].(float64); ny > -0.99 {
				t.Errorf("the ball's normal toward the floor is (%v, %v), want down", f["nx"], ny)
			}
			if firstHit == 0 {
				firstHit = f["speed"].(float64)
			}
		}
		if s == (side{"floor", "ball"}) && f["begin"] == true && f["ny"].(float64) < 0.99 {
			t.Errorf("the floor's normal toward the ball is (%v, %v), want up", f["nx"], f["ny"])
		}
	}
	g.WatchEvents(func(name string, id entity.ID, f map[string]any) { check(g.Store().Name(id), f) })
	for range 4 * 64 {
		g.RunTick()
	}
	t.Logf("begins %v, ends %v, still touching %v; the ball hit the floor first at %.2f m/s", begins, ends, open, firstHit)
	for _, s := range []side{{"ball", "goal"}, {"goal", "ball"}, {"ball", "floor"}, {"floor", "ball"}} {
		if begins[s] == 0 {
			t.Errorf("%v never began", s)
		}
	}
	if begins[side{"ball", "floor"}] < 2 {
		t.Errorf("the ball hit the floor %d times, want it to bounce", begins[side{"ball", "floor"}])
	}
	if g := (side{"ball", "goal"}); ends[g] != begins[g] || open[g] != 0 {
		t.Errorf("the ball passed through the goal %d times and was told it left %d times", begins[g], ends[g])
	}
	// Free fall from 6 m to the floor's top, less the ball's radius, under
	// the default gravity of 20 m/s²: v² = 2gh.
	if firstHit < 14 || firstHit > 14.6 {
		t.Errorf("first hit at %g m/s, want about 14.4", firstHit)
	}
	before := len(begins) + len(ends)
	n := g.Replay(g.Tick()-200, g.Tick(), func(uint32) (prediction.Command, bool) { return prediction.Command{}, true }, func(*Game) {})
	if n != 201 || len(begins)+len(ends) != before {
		t.Errorf("a replay of %d ticks told behaviors of contacts", n)
	}
}

// skipping is an end that simulates everything but one entity.
type skipping struct {
	offline
	not entity.ID
}

func (s skipping) Simulates(id entity.ID, _ uint32) bool { return id != s.not }

// TestOnContactRunsWhereTheEntityIsSimulated: an end that does not
// simulate the floor never tells the floor's behavior, and tells the
// ball's all the same.
func TestOnContactRunsWhereTheEntityIsSimulated(t *testing.T) {
	p := miniProject(t, contactProject(t))
	var floor entity.ID
	g, err := New(Config{Project: p, Authority: func(g *Game) Authority {
		return skipping{offline{g}, entity.ID{Slot: 1, Gen: 1}}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	floor = g.SceneIDs()[0]
	told := map[string]int{}
	g.WatchEvents(func(_ string, id entity.ID, f map[string]any) { told[g.Store().Name(id)+"/"+f["other"].(string)]++ })
	for range 2 * 64 {
		g.RunTick()
	}
	t.Logf("told %v (the floor is %v, not simulated)", told, floor)
	if told["floor/ball"] != 0 || told["ball/floor"] == 0 {
		t.Errorf("told %v: want the ball told of the floor, and the floor told nothing", told)
	}
}
