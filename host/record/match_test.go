package record

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"vkm/host/bot"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/transport"
	"vkm/transport/memnet"
)

// end is one player's program in a match: a lite bot or a full client.
type end struct {
	addr  netip.AddrPort
	pipe  *memnet.Pipe // AtoB: up to the server; BtoA: down
	lite  *session.Lite
	full  *session.Client
	input *bot.Bot
	gone  bool
}

func (e *end) net() *transport.Client {
	if e.lite != nil {
		return e.lite.Net()
	}
	return e.full.Net()
}

// match is a dev server of the arena and its players over seeded
// simulated links, on a synthetic clock, recorded into rec.
type match struct {
	t      testing.TB
	p      *project.Project
	now    transport.Time
	server *session.Server
	ends   []*end
	rec    *Writer
	out    bytes.Buffer
	dev    bool // the server reloads: a full client follows its reloads
	// timed, when set, sums the server's time and allocations in spent
	// and allocs.
	timed  bool
	spent  time.Duration
	allocs uint64
	ms     runtime.MemStats
}

// reloadAt is a dev server's Changes that hands over files once, at a
// time.
type reloadAt struct {
	at    time.Duration
	files map[string][]byte
	done  bool
}

func (r *reloadAt) Poll(now time.Duration) bool         { return !r.done && now >= r.at }
func (r *reloadAt) Changed() (map[string][]byte, error) { r.done = true; return r.files, nil }

// tickStep is the match's frame: one tick of the arena.
const tickStep = time.Second / 64

func loadArena(t testing.TB) *project.Project {
	t.Helper()
	p, err := project.LoadProject("../../projects/arena")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newMatch(t testing.TB, p *project.Project, changes session.Changes, cfg Config) *match {
	t.Helper()
	m := newUnrecorded(t, p, changes)
	var err error
	cfg.Started = time.Unix(1700000000, 0)
	if m.rec, err = NewWriter(&m.out, m.server.Game(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := m.server.Record(m.rec); err != nil {
		t.Fatal(err)
	}
	return m
}

// newUnrecorded is a match nothing records.
func newUnrecorded(t testing.TB, p *project.Project, changes session.Changes) *match {
	t.Helper()
	s, err := session.NewServer(session.ServerConfig{Project: p, Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &match{t: t, p: p, server: s, dev: changes != nil}
}

// join adds a player playing a wander bot seeded with seed: a lite bot,
// or a full dev client (which predicts, draws, and so asks for lag
// compensation, and follows reloads).
func (m *match) join(full bool, seed uint64) *end {
	m.t.Helper()
	n := len(m.ends) + 1
	b, err := bot.New("wander", seed, len(m.p.Axes), len(m.p.Buttons))
	if err != nil {
		m.t.Fatal(err)
	}
	e := &end{addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(n)}), 40000), input: b}
	if e.pipe, err = memnet.NewPipe(memnet.Lan, seed); err != nil {
		m.t.Fatal(err)
	}
	name := fmt.Sprintf("bot%d", n)
	if full {
		c, err := session.NewClient(session.ClientConfig{Project: m.p, Name: name, Dev: m.dev, Now: m.now})
		if err != nil {
			m.t.Fatal(err)
		}
		m.t.Cleanup(c.Close)
		e.full = c
	} else {
		g := m.server.Game()
		e.lite = session.NewLite(session.LiteConfig{Project: m.p, Hello: session.Hello(g), Schema: g.Schema(), Name: name, Input: b, Now: m.now})
	}
	m.ends = append(m.ends, e)
	return e
}

// leave has e say goodbye.
func (m *match) leave(e *end) {
	e.net().Leave(m.now)
	m.flushUp(e)
	e.gone = true
}

func (m *match) flushUp(e *end) {
	for {
		b, ok := e.net().NextDatagram()
		if !ok {
			return
		}
		e.pipe.AtoB.Send(b, m.now)
	}
}

// step runs one frame of every end.
func (m *match) step() {
	m.now += transport.Time(tickStep)
	var start time.Time
	if m.timed {
		runtime.ReadMemStats(&m.ms)
		m.allocs -= m.ms.Mallocs
		start = time.Now()
	}
	for _, e := range m.ends {
		for {
			b, ok := e.pipe.AtoB.Receive(m.now)
			if !ok {
				break
			}
			m.server.Receive(e.addr, b, m.now)
		}
	}
	m.server.Advance(tickStep, m.now)
	if m.timed {
		m.spent += time.Since(start)
		runtime.ReadMemStats(&m.ms)
		m.allocs += m.ms.Mallocs
	}
	for {
		to, b, ok := m.server.Net().NextDatagram()
		if !ok {
			break
		}
		for _, e := range m.ends {
			if e.addr == to && !e.gone {
				e.pipe.BtoA.Send(b, m.now)
			}
		}
	}
	for _, e := range m.ends {
		if e.gone {
			continue
		}
		for {
			b, ok := e.pipe.BtoA.Receive(m.now)
			if !ok {
				break
			}
			if e.lite != nil {
				e.lite.Receive(b, m.now)
			} else {
				e.full.Receive(b, m.now)
			}
		}
		if e.lite != nil {
			e.lite.Step(tickStep, m.now)
		} else {
			e.full.Frame(tickStep, e.input, nil, m.now)
		}
		m.flushUp(e)
	}
}

// run steps until the server has run tick.
func (m *match) run(tick uint32) {
	for m.server.Game().Tick() < tick {
		m.step()
	}
}

// arenaMatch plays the arena for ticks: four lite bots from the start;
// at a third of it one leaves and a full dev client joins and chats; at
// half of it the server hot-reloads a changed walker.lua. It returns the
// closed recording's bytes.
func arenaMatch(t testing.TB, ticks uint32, cfg Config) []byte {
	t.Helper()
	walker, err := os.ReadFile("../../projects/arena/scripts/walker.lua")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(walker), "local KNOCK = 4", "local KNOCK = 9", 1)
	if changed == string(walker) {
		t.Fatal("walker.lua has no KNOCK to change")
	}
	half := time.Duration(ticks/2) * tickStep
	m := newMatch(t, loadArena(t), &reloadAt{at: half, files: map[string][]byte{"scripts/walker.lua": []byte(changed)}}, cfg)
	var lites []*end
	for i := range 4 {
		lites = append(lites, m.join(false, uint64(11+i)))
	}
	m.run(ticks / 3)
	if n := m.server.Net().PlayerCount(); n != 4 {
		t.Fatalf("%d players seated at tick %d, want 4", n, ticks/3)
	}
	m.leave(lites[1])
	m.run(ticks/3 + 32)
	full := m.join(true, 99)
	m.run(ticks/3 + 96)
	if err := full.full.Say("/ready"); err != nil {
		t.Fatal(err)
	}
	m.run(ticks)
	if m.server.Game().Reloads() != 1 {
		t.Fatalf("the server reloaded %d times, want 1", m.server.Game().Reloads())
	}
	if n := m.server.Net().PlayerCount(); n != 4 {
		t.Fatalf("%d players seated at the end, want 4 (three bots and the one who joined)", n)
	}
	if errs := m.server.Game().ScriptErrors(); len(errs) != 0 {
		t.Fatalf("script errors: %v", errs)
	}
	if err := m.rec.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d ticks in %d bytes, %d of them the project's files", m.rec.Ticks(), m.out.Len(), headerBytes(t, m.out.Bytes()))
	return m.out.Bytes()
}

// headerBytes is the size of the magic and the header's record.
func headerBytes(t testing.TB, b []byte) int {
	_, n, ok := nextRecord(b[len(Magic):])
	if !ok {
		t.Fatal("no header record")
	}
	return len(Magic) + n
}

func writeTemp(t testing.TB, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "match.vkmrec")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
