package scripting

import (
	"fmt"
	"testing"

	"vkm/internal/entity"
	"vkm/prediction"
)

// TestCommandTableRefilledOverWrites: self:command() hands out one table
// and refills only what differs from what it holds. Whatever a script
// wrote into it, a value or a whole part, the next call answers with the
// tick's command, the same one tick after tick included.
func TestCommandTableRefilledOverWrites(t *testing.T) {
	src := `
Meddle = {}
function Meddle:on_fixed_update(dt)
	local c = self:command()
	self:emit("seen", { move = c.axis.move, jump = c.held.jump, jump_pressed = c.pressed.jump, fire = c.held.fire })
	c.axis.move = 9
	c.held.jump = "yes"
	c.pressed = {}
	c.held.fire = nil
end
function vkmRegisterBehaviors(r) r.meddle = Meddle end
`
	r, w := newTest(t, src)
	attach(t, r, w.add("hero"), "meddle")
	w.command = &prediction.Command{Axes: [prediction.MaxAxes]float64{0.5}, Held: 0b11, Pressed: 0b01}
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false) // the same command: the writes above undone
	w.command = nil
	r.FixedUpdate(1.0/64, false)
	got := w.eventsNamed("seen")
	want := []string{
		"map[fire:true jump:true jump_pressed:true move:0.5]",
		"map[fire:true jump:true jump_pressed:true move:0.5]",
		"map[fire:false jump:false jump_pressed:false move:0]",
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if s := fmt.Sprint(got[i]); s != want[i] {
			t.Errorf("tick %d: %s, want %s", i, s, want[i])
		}
	}
}

// TestCommandTableOfEachEntity: each entity's self:command() refills a
// table of its own, so another entity's call between two of its ticks
// leaves its table holding its own command, and its next call only reads
// what stayed the same.
func TestCommandTableOfEachEntity(t *testing.T) {
	src := `
Keep = {}
function Keep:on_fixed_update(dt)
	if self.last then
		self:emit("kept", { move = self.last.axis.move, jump = self.last.held.jump })
	end
	local c = self:command()
	self:emit("seen", { same = c == self.last, move = c.axis.move, jump = c.held.jump })
	self.last = c
end
function vkmRegisterBehaviors(r) r.keep = Keep end
`
	r, w := newTest(t, src)
	a, b := w.add("a"), w.add("b")
	attach(t, r, a, "keep")
	attach(t, r, b, "keep")
	w.commands = map[entity.ID]*prediction.Command{
		a: {Axes: [prediction.MaxAxes]float64{0.5}, Held: 0b01},
		b: {Axes: [prediction.MaxAxes]float64{-1}},
	}
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false)
	for name, want := range map[string][]string{
		"seen": {
			"map[jump:true move:0.5 same:false]", "map[jump:false move:-1 same:false]",
			"map[jump:true move:0.5 same:true]", "map[jump:false move:-1 same:true]",
		},
		"kept": {"map[jump:true move:0.5]", "map[jump:false move:-1]"},
	} {
		got := w.eventsNamed(name)
		if len(got) != len(want) {
			t.Fatalf("%d %q events, want %d", len(got), name, len(want))
		}
		for i := range want {
			if s := fmt.Sprint(got[i]); s != want[i] {
				t.Errorf("%s %d: %s, want %s", name, i, s, want[i])
			}
		}
	}
}
