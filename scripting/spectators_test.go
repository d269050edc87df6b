package scripting

import (
	"fmt"
	"testing"
)

// watchedWorld is a fakeWorld with spectators, as a server's is.
type watchedWorld struct {
	*fakeWorld
	spectators []SpectatorInfo
}

func (w *watchedWorld) Spectators(dst []SpectatorInfo) []SpectatorInfo {
	return append(dst, w.spectators...)
}

// TestSpectatorsAndKillcamFromLua: net.spectators() lists a server's
// spectators apart from net.players(), and none where the world has none;
// net.killcam asks a client's view for a killcam, answers false elsewhere,
// and refuses a bad player or length.
func TestSpectatorsAndKillcamFromLua(t *testing.T) {
	src := `
Asker = {}
function Asker:on_fixed_update(dt)
	local list = net.spectators()
	local seen = {}
	for i, s in ipairs(list) do
		seen[i] = s.number .. "=" .. s.name .. ">" .. s.follows
	end
	self:emit("who", { n = #list, seen = table.concat(seen, ","), players = #net.players(), cam = net.killcam(2, 3) })
end
function vkmRegisterBehaviors(r) r.asker = Asker end
`
	r, w := newTest(t, src)
	hero := w.add("hero")
	attach(t, r, hero, "asker")
	w.players = []PlayerInfo{{Number: 2, Name: "bo", Entity: hero}}
	w.role = RoleServer
	r.world = &watchedWorld{fakeWorld: w, spectators: []SpectatorInfo{{Number: 5, Name: "eve", Follows: 2}, {Number: 7, Name: "cam"}}}
	r.FixedUpdate(1.0/64, false)
	got := fmt.Sprint(w.eventsNamed("who"))
	if want := fmt.Sprint([]map[string]any{{"n": float64(2), "seen": "5=eve>2,7=cam>0", "players": float64(1), "cam": false}}); got != want {
		t.Fatalf("on a server: %s, want %s", got, want)
	}
	if _, ok := r.TakeKillcam(); ok {
		t.Fatal("a server took a killcam")
	}
	w.events, w.role = nil, RoleClient
	r.world = w
	r.FixedUpdate(1.0/64, false)
	got = fmt.Sprint(w.eventsNamed("who"))
	if want := fmt.Sprint([]map[string]any{{"n": float64(0), "seen": "", "players": float64(1), "cam": true}}); got != want {
		t.Fatalf("on a client: %s, want %s", got, want)
	}
	if k, ok := r.TakeKillcam(); !ok || k != (Killcam{Player: 2, Seconds: 3}) {
		t.Fatalf("the client's killcam: %+v, %v", k, ok)
	}
	if _, ok := r.TakeKillcam(); ok {
		t.Fatal("one killcam taken twice")
	}
	for _, bad := range []string{"net.killcam(0, 3)", "net.killcam(2, 0)", "net.killcam(2, 11)", "net.killcam(1.5, 3)"} {
		if err := r.ls.DoString(bad); err == nil {
			t.Errorf("%s was taken", bad)
		}
	}
}
