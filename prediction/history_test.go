package prediction

import "testing"

// addN adds n commands for the ticks after the history's newest (from tick
// 100 on an empty one), each with axis 0 set to its tick so a command tells
// where it came from.
func addN(h *History, n int) {
	for range n {
		tick := uint32(100)
		if h.Newest() > 0 {
			_, last, _ := h.Command(h.Newest())
			tick = last + 1
		}
		h.Add(Command{Axes: [MaxAxes]float64{float64(tick)}}, tick)
	}
}

// run returns the sequences a filled packet carries, checking that it is
// one unbroken run whose commands and ticks match the history's.
func run(t *testing.T, h *History, p *Packet) (first, last uint32) {
	t.Helper()
	h.Fill(p)
	if len(p.Commands) > MaxPerPacket {
		t.Fatalf("%d commands in a packet", len(p.Commands))
	}
	for i, c := range p.Commands {
		seq := p.FirstSeq + uint32(i)
		want, tick, ok := h.Command(seq)
		if !ok || c != want || tick != p.FirstTick+uint32(i) {
			t.Fatalf("packet from %d/%d: command %d is not seq %d's (ok %v)", p.FirstSeq, p.FirstTick, i, seq, ok)
		}
	}
	return p.FirstSeq, p.FirstSeq + uint32(len(p.Commands)) - 1
}

func TestHistoryWindow(t *testing.T) {
	var h History
	var p Packet
	if h.Fill(&p); len(p.Commands) != 0 || p.FirstSeq != 1 {
		t.Fatalf("empty history: %d commands from %d", len(p.Commands), p.FirstSeq)
	}
	type step struct {
		add, confirm int
		first, last  uint32
	}
	steps := []step{
		{add: 1, first: 1, last: 1},
		{add: 1, first: 1, last: 2},
		{add: 2, first: 1, last: 4},
		{add: 10, first: 3, last: 14}, // the newest 12 unconfirmed
		{add: 1, confirm: 10, first: 11, last: 15},
		{add: 20, first: 16, last: 31}, // a stutter: the oldest never carried first, 16 of them
		{add: 0, first: 24, last: 35},  // the rest, within the window
		{add: 0, confirm: 35, first: 36, last: 35},
		{add: 1, confirm: 30, first: 36, last: 36}, // a stale confirmation is ignored
	}
	for i, s := range steps {
		addN(&h, s.add)
		if s.confirm > 0 {
			h.Confirm(uint32(s.confirm))
		}
		first, last := run(t, &h, &p)
		if len(p.Commands) == 0 {
			first, last = p.FirstSeq, p.FirstSeq-1
		}
		if first != s.first || last != s.last {
			t.Fatalf("step %d: packet carries %d..%d, want %d..%d", i, first, last, s.first, s.last)
		}
		t.Logf("step %d: newest %d, confirmed %d: packet carries %d..%d", i, h.Newest(), h.Confirmed(), first, last)
	}
	h.Confirm(1000) // a command never made: ignored
	if h.Confirmed() != 35 {
		t.Fatalf("confirmed %d after a confirmation from the future", h.Confirmed())
	}
}

// TestHistoryNeverSent: a frame that runs more ticks than the window still
// sends every one of them, over as many packets as it takes.
func TestHistoryNeverSent(t *testing.T) {
	var h History
	var p Packet
	addN(&h, 50) // one long frame, nothing sent yet
	sent := map[uint32]bool{}
	packets := 0
	for len(sent) < 50 && packets < 10 {
		first, last := run(t, &h, &p)
		for s := first; s <= last; s++ {
			sent[s] = true
		}
		packets++
	}
	if len(sent) != 50 || packets != 4 {
		t.Fatalf("%d of 50 commands sent in %d packets, want all in 4", len(sent), packets)
	}
	t.Logf("a 50-tick frame goes out in %d packets", packets)
}

func TestHistoryRing(t *testing.T) {
	var h History
	var p Packet
	addN(&h, HistorySize+44) // the server confirms nothing, nothing is sent
	if _, _, ok := h.Command(44); ok {
		t.Fatal("command 44 still held after the ring wrapped")
	}
	if _, tick, ok := h.Command(45); !ok || tick != 100+44 {
		t.Fatalf("oldest held: tick %d ok %v", tick, ok)
	}
	if _, _, ok := h.Command(h.Newest() + 1); ok {
		t.Fatal("a command not yet made was found")
	}
	if first, last := run(t, &h, &p); first != 45 || last != 60 {
		t.Fatalf("after the ring wrapped the packet carries %d..%d, want the oldest held, 45..60", first, last)
	}
}

// TestHistoryNewRun: a tick that does not follow the last starts a new run;
// the commands before it are no longer owed.
func TestHistoryNewRun(t *testing.T) {
	var h History
	var p Packet
	addN(&h, 5)
	h.Add(Command{}, 500)
	h.Add(Command{}, 501)
	if first, last := run(t, &h, &p); first != 6 || last != 7 || p.FirstTick != 500 {
		t.Fatalf("packet carries %d..%d from tick %d, want 6..7 from 500", first, last, p.FirstTick)
	}
}

func TestHistoryAllocs(t *testing.T) {
	var h History
	p := Packet{Commands: make([]Command, 0, MaxPerPacket)}
	tick := uint32(0)
	allocs := testing.AllocsPerRun(1000, func() {
		tick++
		h.Add(Command{}, tick)
		h.Fill(&p)
		h.Confirm(h.Newest() - 5)
	})
	if allocs != 0 {
		t.Errorf("Add + Fill + Confirm: %.0f allocations, want 0", allocs)
	}
}
