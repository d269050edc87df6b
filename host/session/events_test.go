package session

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"vkm/host/project"
	"vkm/transport"
)

// chatterProject is a project whose one entity emits n presentation
// events every tick, served with no player.
func chatterProject(t testing.TB, n int) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": `name = "chatter"
players = 2
entryScene = "scene.toml"
entryScript = "main.lua"
[[button]]
name = "fire"
keys = ["KeyF"]
`,
		"scene.toml": `[[entity]]
id = 1
name = "talker"
behavior = "talker"
`,
		"main.lua": `
local Talker = {}
function Talker:on_fixed_update(dt)
  for i = 1, ` + itoa(n) + ` do
    self:emit("said", { i = i })
  end
  self:emit("tick")
end
function vkmRegisterBehaviors(r) r.talker = Talker end
function vkmSetupNetwork(net)
  net.on_join(function(player) return nil end)
end
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// heapAfterGC is the live heap once the collector has run.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAServerKeepsNoEvents serves a behavior that emits 200 events a tick:
// the server counts them by name and keeps none, so its heap after 20
// seconds of play is what it was after 10. (Kept, 200 events a tick with
// their field tables are about 60 MB in those ten seconds.)
func TestAServerKeepsNoEvents(t *testing.T) {
	// Not parallel: it reads the whole process's heap.
	const perTick = 200
	s, err := NewServer(ServerConfig{Project: chatterProject(t, perTick), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	now := transport.Time(0)
	run := func(ticks int) {
		step := s.Game().Clock().Step()
		for range ticks {
			now += transport.Time(step)
			s.Advance(step, now)
		}
	}
	run(640)
	before := heapAfterGC()
	run(640)
	after := heapAfterGC()
	ev := s.Events()
	ticks := uint64(s.Game().Tick())
	t.Logf("%d ticks: events %v; heap %.1f MB after 10 s, %.1f MB after 20 s", ticks, ev, float64(before)/1e6, float64(after)/1e6)
	if ev["tick"] != ticks || ev["said"] != perTick*ticks {
		t.Fatalf("counted %v over %d ticks, want %d said and %d tick", ev, ticks, perTick*ticks, ticks)
	}
	if after > before+4<<20 {
		t.Fatalf("the heap grew by %.1f MB over ten more seconds of events", float64(after-before)/1e6)
	}
}

// BenchmarkServerTickEmitting is a served tick of a behavior that emits
// 200 events: its allocations are the events' own (the Lua tables and
// their fields), and what it keeps is nothing (retained-B/op).
func BenchmarkServerTickEmitting(b *testing.B) {
	s, err := NewServer(ServerConfig{Project: chatterProject(b, 200)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	step := s.Game().Clock().Step()
	now := transport.Time(0)
	for range 64 {
		now += transport.Time(step)
		s.Advance(step, now)
	}
	before := heapAfterGC()
	b.ReportAllocs()
	for b.Loop() {
		now += transport.Time(step)
		s.Advance(step, now)
	}
	b.StopTimer()
	after := heapAfterGC()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "retained-B/op")
}
