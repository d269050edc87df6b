package memnet

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"vkm/transport"
)

// numbered returns an 8-byte datagram carrying i.
func numbered(i int) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(i)) }

func number(b []byte) int { return int(binary.LittleEndian.Uint64(b)) }

// arrival is one delivery: when, and which datagram.
type arrival struct {
	at transport.Time
	n  int
}

// drain receives everything from l, stepping the clock to each arrival.
func drain(l *Link) []arrival {
	var out []arrival
	for {
		at, ok := l.NextArrival()
		if !ok {
			return out
		}
		for {
			b, ok := l.Receive(at)
			if !ok {
				break
			}
			out = append(out, arrival{at, number(b)})
		}
	}
}

// sendEvery sends n numbered datagrams one every interval from time 0.
func sendEvery(l *Link, n int, interval time.Duration) {
	for i := range n {
		l.Send(numbered(i), transport.Time(0).Add(time.Duration(i)*interval))
	}
}

func TestPerfectLinkDeliversInOrderAtExactlyTheLatency(t *testing.T) {
	for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
		cfg := Perfect.Up
		cfg.Latency = latency
		l := NewLink(cfg, 1)
		const n, interval = 1000, 3 * time.Millisecond
		sendEvery(l, n, interval)
		// Nothing arrives a nanosecond early.
		if latency > 0 {
			if _, ok := l.Receive(transport.Time(latency - 1)); ok {
				t.Fatal("a datagram arrived before the latency")
			}
		}
		got := drain(l)
		if len(got) != n {
			t.Fatalf("latency %v: %d of %d delivered", latency, len(got), n)
		}
		for i, a := range got {
			if want := transport.Time(0).Add(time.Duration(i)*interval + latency); a.n != i || a.at != want {
				t.Fatalf("latency %v: delivery %d was #%d at %v, want #%d at %v", latency, i, a.n, a.at, i, want)
			}
		}
		if c := l.Counts(); c != (Counts{Sent: n, Delivered: n}) {
			t.Fatalf("counts %+v", c)
		}
	}
}

func TestSendCopiesTheDatagram(t *testing.T) {
	l := NewLink(LinkConfig{}, 1)
	b := []byte{1, 2, 3}
	l.Send(b, 0)
	b[0] = 9
	got, ok := l.Receive(0)
	if !ok || got[0] != 1 {
		t.Fatalf("got %v, %v", got, ok)
	}
}

// Jitter spreads delays over Latency ± Jitter but never lets a datagram pass
// the one sent before it.
func TestJitterDoesNotReorder(t *testing.T) {
	const seed = 3
	cfg := LinkConfig{Latency: 50 * time.Millisecond, Jitter: 30 * time.Millisecond}
	l := NewLink(cfg, seed)
	const n, interval = 20000, time.Millisecond
	sendEvery(l, n, interval)
	got := drain(l)
	var lo, hi time.Duration = time.Hour, 0
	var sum time.Duration
	for i, a := range got {
		if a.n != i {
			t.Fatalf("seed %d: delivery %d was #%d", seed, i, a.n)
		}
		d := a.at.Sub(transport.Time(0).Add(time.Duration(i) * interval))
		lo, hi, sum = min(lo, d), max(hi, d), sum+d
	}
	t.Logf("seed %d: one-way delay %v..%v, mean %v", seed, lo, hi, sum/n)
	if lo < cfg.Latency-cfg.Jitter || hi > cfg.Latency+cfg.Jitter {
		t.Fatalf("delays %v..%v outside %v±%v", lo, hi, cfg.Latency, cfg.Jitter)
	}
	if hi-lo < cfg.Jitter {
		t.Fatalf("delays %v..%v: jitter not applied", lo, hi)
	}
}

func TestRatesOverManyDatagrams(t *testing.T) {
	const seed, n = 12345, 100_000
	cfg := LinkConfig{
		Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond,
		Loss: 0.10, Duplicate: 0.05, Reorder: 0.05,
	}
	l := NewLink(cfg, seed)
	sendEvery(l, n, time.Second/64)
	got := drain(l)
	c := l.Counts()

	overtaken, copies := 0, 0
	seen := make([]bool, n)
	newest := -1
	for _, a := range got {
		if seen[a.n] {
			copies++
		}
		seen[a.n] = true
		if a.n < newest {
			overtaken++
		}
		newest = max(newest, a.n)
	}
	t.Logf("seed %d: %+v; %d arrived after a later datagram, %d second copies", seed, c, overtaken, copies)

	within := func(name string, got uint64, p float64, of uint64) {
		t.Helper()
		want := p * float64(of)
		sd := math.Sqrt(want * (1 - p))
		if math.Abs(float64(got)-want) > 4*sd {
			t.Errorf("%s: %d, want %.0f ± %.0f", name, got, want, 4*sd)
		}
	}
	kept := c.Sent - c.Dropped
	within("dropped", c.Dropped, cfg.Loss, c.Sent)
	within("duplicated", c.Duplicated, cfg.Duplicate, kept)
	within("reordered", c.Reordered, cfg.Reorder, kept)
	if c.Sent != n || c.Delivered != kept+c.Duplicated || int(c.Delivered) != len(got) {
		t.Errorf("counts do not add up: %+v, %d received", c, len(got))
	}
	if copies != int(c.Duplicated) {
		t.Errorf("%d second copies received, %d duplicated", copies, c.Duplicated)
	}
	// A held datagram is 31 ms late and datagrams go every 15.6 ms, so nearly
	// every one is passed; duplicates landing late add a few more.
	if overtaken < int(c.Reordered)*9/10 {
		t.Errorf("only %d datagrams arrived out of order for %d reordered", overtaken, c.Reordered)
	}
}

func TestSameSeedSameDeliveries(t *testing.T) {
	run := func(seed uint64) []arrival {
		l := NewLink(Awful.Up, seed)
		sendEvery(l, 5000, 7*time.Millisecond)
		return drain(l)
	}
	a, b := run(99), run(99)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different deliveries")
	}
	if slices.Equal(a, run(100)) {
		t.Fatal("different seeds gave the same deliveries")
	}
	t.Logf("seed 99: %d deliveries of 5000 on %s", len(a), Awful.Name)
}

func TestNewPipeRefusesSeedZero(t *testing.T) {
	_, err := NewPipe(Broadband, 0)
	if !errors.Is(err, ErrNoSeed) || err.Error() != "memnet: a simulated link needs a seed (--sim-seed)" {
		t.Fatalf("err = %v", err)
	}
	p, err := NewPipe(Broadband, 1)
	if err != nil || p.AtoB == nil || p.BtoA == nil {
		t.Fatalf("seed 1: %v", err)
	}
	bad := Broadband
	bad.Down.Loss = 2
	if _, err := NewPipe(bad, 1); err == nil {
		t.Fatal("a profile with loss 2 was accepted")
	}
}

func TestPipeDirectionsAreIndependent(t *testing.T) {
	p, err := NewPipe(Awful, 7)
	if err != nil {
		t.Fatal(err)
	}
	sendEvery(p.AtoB, 2000, 5*time.Millisecond)
	sendEvery(p.BtoA, 2000, 5*time.Millisecond)
	if at, ok := p.NextArrival(); !ok || at < transport.Time(Awful.Up.Latency-Awful.Up.Jitter) {
		t.Fatalf("next arrival %v, %v", at, ok)
	}
	if slices.Equal(drain(p.AtoB), drain(p.BtoA)) {
		t.Fatal("both directions lost and delayed the same datagrams")
	}
	if _, ok := p.NextArrival(); ok {
		t.Fatal("something still in flight after draining")
	}
}

func TestProfiles(t *testing.T) {
	for _, p := range Profiles() {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		for _, name := range []string{p.Name, "  " + p.Name, p.Name[:1] + "X"} {
			got, err := ProfileByName(name)
			if name == p.Name && (err != nil || got.Name != p.Name) {
				t.Errorf("ProfileByName(%q) = %v, %v", name, got.Name, err)
			}
			if name != p.Name && err == nil {
				t.Errorf("ProfileByName(%q) accepted", name)
			}
		}
	}
	if got, err := ProfileByName("BroadBand"); err != nil || got.Name != "broadband" {
		t.Errorf("case-insensitive lookup: %v, %v", got.Name, err)
	}
	want := LinkConfig{Latency: 35 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.005}
	for _, c := range []LinkConfig{Broadband.Up, Broadband.Down} {
		if c.Latency != want.Latency || c.Jitter != want.Jitter || c.Loss != want.Loss {
			t.Errorf("Broadband link %+v, want the design's 35 ms, 8 ms, 0.5 %%", c)
		}
	}
	if Perfect.Up != (LinkConfig{}) || Perfect.Down != (LinkConfig{}) {
		t.Error("Perfect does something")
	}
}

func TestValidate(t *testing.T) {
	bad := []LinkConfig{
		{Latency: -1}, {Jitter: -1}, {ReorderDelay: -1},
		{Loss: -0.1}, {Duplicate: 1.5}, {Reorder: math.NaN()},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewLink accepted an invalid config")
			}
		}()
		NewLink(LinkConfig{Loss: 2}, 1)
	}()
}
