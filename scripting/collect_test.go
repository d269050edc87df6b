package scripting

import "testing"

// TestTouchingAllocatesItsListOnly: self:touching() and self:query() make
// the list they return and nothing else, however often a behavior asks (a
// health pack asks every tick): a call costs what a script's own empty
// table costs.
func TestTouchingAllocatesItsListOnly(t *testing.T) {
	src := `
Ask = {}
function Ask:on_fixed_update(dt)
	if self.mode == "touching" then
		self.got = self:touching()
	elseif self.mode == "query" then
		self.got = self:query(5, 5, 6, 6) -- nothing there
	else
		self.got = {}
	end
end
function vkmRegisterBehaviors(r) r.ask = Ask end
`
	allocs := map[string]float64{}
	for _, mode := range []string{"table", "touching", "query"} {
		r, w := newTest(t, src)
		if err := r.Attach(w.add("pack"), "ask", map[string]any{"mode": mode}); err != nil {
			t.Fatal(err)
		}
		r.FixedUpdate(1.0/64, false) // on_start
		allocs[mode] = testing.AllocsPerRun(100, func() { r.FixedUpdate(1.0/64, false) })
		if r.Errors() != 0 {
			t.Fatalf("%s: %d script errors", mode, r.Errors())
		}
	}
	for _, mode := range []string{"touching", "query"} {
		if allocs[mode] > allocs["table"] {
			t.Errorf("a tick asking %s allocates %.1f times, one making an empty table %.1f", mode, allocs[mode], allocs["table"])
		}
	}
}
