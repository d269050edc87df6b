package scripting

import (
	"runtime"
	"testing"
)

// TestInstanceTablesSmall: an instance whose behavior keeps a few fields
// holds them in a small table. gopher-lua's own tables start with room for
// 32 keys (eight groups of Go's map behind a directory, and 32 array
// slots), which a busy world's tick read cold at every instance.
func TestInstanceTablesSmall(t *testing.T) {
	const n = 200
	r, w := newTest(t, `
local Keeper = {}
function Keeper:on_start()
  self.a, self.b, self.c, self.d, self.e = 1, 2, 3, 4, 5
end
function vkmRegisterBehaviors(r) r.keeper = Keeper end
`)
	ids := make([]int, 0, n)
	for range n {
		ids = append(ids, len(w.ents))
		w.add("e")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, i := range ids {
		if err := r.Attach(w.ents[i].id, "keeper", nil); err != nil {
			t.Fatal(err)
		}
	}
	r.FixedUpdate(1.0/64, false) // starts them: five fields each
	runtime.ReadMemStats(&after)
	if r.Errors() != 0 {
		t.Fatalf("%d script errors", r.Errors())
	}
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes an instance", per)
	if per > 2400 {
		t.Errorf("an instance with five fields took %.0f bytes, want at most 2400 (a small table: about 1,300; a table of gopher-lua's size, about 3,900)", per)
	}
}
