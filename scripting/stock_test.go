package scripting

import (
	"slices"
	"strings"
	"testing"
)

func TestStockBehaviorsRegisterByName(t *testing.T) {
	for _, want := range []string{"pickup", "spawner", "walker"} {
		if !slices.Contains(StockNames(), want) {
			t.Fatalf("StockNames() = %v, lacks %s", StockNames(), want)
		}
	}
	r, _ := newTest(t, `
local W = vkm.stock("walker")
assert(W == vkm.stock("walker"), "a second vkm.stock returned another table")
assert(type(W.on_fixed_update) == "function", "the walker has no on_fixed_update")
function vkmRegisterBehaviors(r)
  r.walker = W
  r.pickup = vkm.stock("pickup")
  r.spawner = vkm.stock("spawner")
end
`)
	if got := r.BehaviorNames(); !slices.Equal(got, []string{"pickup", "spawner", "walker"}) {
		t.Fatalf("registered %v", got)
	}
}

func TestStockRefusesUnknownNamesAndPaths(t *testing.T) {
	for src, want := range map[string]string{
		`vkm.stock("sleeper")`:          `no stock behavior "sleeper" (known: `,
		`vkm.stock("../prelude")`:       "is not a stock behavior name",
		`vkm.stock("stock/walker.lua")`: "is not a stock behavior name",
		`vkm.stock()`:                   "string expected",
	} {
		_, _, err := tryNew(t, Config{}, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", src, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "scripts/main.lua:1") {
			t.Errorf("%s: error %v does not name the calling line", src, err)
		}
	}
}
