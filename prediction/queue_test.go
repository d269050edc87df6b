package prediction

import (
	"math/rand/v2"
	"testing"
)

const (
	jump = 1 << 0 // button 0
	fire = 1 << 1 // button 1
)

// packetOf returns a packet of the commands for sequences first..first+n-1,
// client tick = 1000 + sequence, built by cmd.
func packetOf(first uint32, n int, cmd func(seq uint32) Command) *Packet {
	p := &Packet{FirstSeq: first, FirstTick: 1000 + first}
	for i := range n {
		p.Commands = append(p.Commands, cmd(first+uint32(i)))
	}
	return p
}

// walking is a command holding run at 0.5 with nothing pressed.
func walking(uint32) Command { return Command{Axes: [MaxAxes]float64{0.5}} }

// TestQueueBurst: a burst of 30 trims to 10 in one tick, and a press in a
// skipped command fires exactly once, in the command that runs.
func TestQueueBurst(t *testing.T) {
	var q Queue
	q.Push(packetOf(1, 16, func(seq uint32) Command {
		c := walking(seq)
		if seq == 5 {
			c.Held, c.Pressed = jump, jump
		}
		return c
	}))
	q.Push(packetOf(17, 14, walking))
	if q.Depth() != 30 {
		t.Fatalf("depth %d after a burst of 30", q.Depth())
	}
	tk := q.Next()
	if tk.Kind != Real || tk.Seq != 21 || tk.ClientTick != 1021 || tk.Command.Pressed != jump || q.Depth() != 9 {
		t.Fatalf("first tick after the burst: %+v, depth %d; want seq 21 with the jump folded in, depth 9", tk, q.Depth())
	}
	if lw := q.LowWater(); lw != 15 {
		t.Fatalf("low water %d, want 30 saturated to 15", lw)
	}
	presses := 1
	for range 20 {
		if q.Next().Command.Pressed&jump != 0 {
			presses++
		}
	}
	s := q.Stats()
	if presses != 1 || s.Skips != 20 || s.Real != 10 {
		t.Fatalf("%d presses, %d skipped, %d real; want 1, 20, 10", presses, s.Skips, s.Real)
	}
	t.Logf("burst of 30: %d skipped in one tick, %d run, jump fired %d time(s); %+v", s.Skips, s.Real, presses, s)
}

// TestQueueDry: a dry link runs repeats (axes and held buttons kept, edges
// cleared) claiming the client ticks they stand in for, then zero input
// after RepeatTicks, then past MaxDepth claims nothing. The late real
// commands are discarded with their edge kept for the next real one.
func TestQueueDry(t *testing.T) {
	var q Queue
	q.Push(packetOf(1, 3, func(seq uint32) Command {
		c := walking(seq)
		c.Held = fire
		if seq == 1 {
			c.Pressed = fire
		}
		return c
	}))
	for range 3 {
		if k := q.Next().Kind; k != Real {
			t.Fatalf("%v, want real", k)
		}
	}
	var kinds []Kind
	for i := range MaxDepth + 3 {
		tk := q.Next()
		kinds = append(kinds, tk.Kind)
		switch d := i + 1; {
		case d <= RepeatTicks:
			if tk.Kind != Repeat || tk.Command.Axes[0] != 0.5 || tk.Command.Held != fire || tk.Command.Pressed != 0 {
				t.Fatalf("dry tick %d: %+v, want a repeat of run 0.5 holding fire, no edge", d, tk)
			}
		case d <= MaxDepth:
			if tk.Kind != Zero || tk.Command != (Command{}) {
				t.Fatalf("dry tick %d: %+v, want zero input", d, tk)
			}
		default:
			if tk.Kind != Idle || tk.Command != (Command{}) || tk.ClientTick != 1003+MaxDepth {
				t.Fatalf("dry tick %d: %+v, want idle, judged still %d", d, tk, 1003+MaxDepth)
			}
		}
		if d := i + 1; d <= MaxDepth && (tk.Seq != uint32(3+d) || tk.ClientTick != uint32(1003+d) || q.Judged() != tk.ClientTick) {
			t.Fatalf("dry tick %d claims seq %d tick %d (judged %d), want %d and %d", d, tk.Seq, tk.ClientTick, q.Judged(), 3+d, 1003+d)
		}
	}
	// The link comes back: the commands the repeats stood in for arrive,
	// one with a jump; then the next, unclaimed.
	q.Push(packetOf(4, 16, func(seq uint32) Command {
		c := walking(seq)
		if seq == 6 {
			c.Held, c.Pressed = jump, jump
		}
		return c
	}))
	if q.Depth() != 6 { // 4..13 claimed, 14..19 wait
		t.Fatalf("depth %d, want 6", q.Depth())
	}
	tk := q.Next()
	if tk.Kind != Real || tk.Seq != 14 || tk.Command.Pressed != jump {
		t.Fatalf("first tick back: %+v, want seq 14 with the discarded jump folded in", tk)
	}
	s := q.Stats()
	if s.Discarded != MaxDepth || s.Repeats != MaxDepth || s.Zeros != MaxDepth-RepeatTicks || s.Idle != 3 {
		t.Fatalf("stats %+v", s)
	}
	t.Logf("dry ticks ran %v; then %d late commands discarded, the jump fired in seq %d; %+v", kinds, s.Discarded, tk.Seq, s)
}

// TestQueueDryAfterIdle: after an idle stretch the next command runs, being
// newer than every claim.
func TestQueueDryAfterIdle(t *testing.T) {
	var q Queue
	if tk := q.Next(); tk.Kind != Idle || tk.ClientTick != 0 {
		t.Fatalf("before any command: %+v", tk)
	}
	q.Push(packetOf(1, 1, walking))
	q.Next()
	for range 2 * MaxDepth {
		q.Next()
	}
	q.Push(packetOf(1+MaxDepth+1, 1, walking))
	if tk := q.Next(); tk.Kind != Real || tk.Seq != MaxDepth+2 {
		t.Fatalf("after idle: %+v", tk)
	}
}

func TestQueueLowWater(t *testing.T) {
	var q Queue
	if lw := q.LowWater(); lw != 0 {
		t.Fatalf("empty: %d", lw)
	}
	q.Push(packetOf(1, 5, walking))
	q.Next() // 5 waiting before it
	q.Next() // 4
	if lw := q.LowWater(); lw != 4 {
		t.Fatalf("low water %d, want 4 (counted before the tick takes one)", lw)
	}
	if lw := q.LowWater(); lw != 3 {
		t.Fatalf("low water with no tick since: %d, want the depth, 3", lw)
	}
	q.Next() // 3
	q.Push(packetOf(6, 8, walking))
	q.Next() // 10
	if lw := q.LowWater(); lw != 3 {
		t.Fatalf("low water %d, want 3", lw)
	}
}

// TestQueueDuplicates: a packet again, an older one, and one overlapping
// the newest give each command once, in order.
func TestQueueDuplicates(t *testing.T) {
	var q Queue
	q.Push(packetOf(1, 12, walking))
	q.Push(packetOf(1, 12, walking))
	q.Push(packetOf(3, 4, walking))
	q.Push(packetOf(5, 12, walking)) // 13..16 are new
	var seqs []uint32
	for q.Depth() > 0 {
		seqs = append(seqs, q.Next().Seq)
	}
	for i, s := range seqs {
		if s != uint32(i+1+6) { // 16 arrived; the first tick trimmed 6
			t.Fatalf("ran %v", seqs)
		}
	}
	if s := q.Stats(); s.Duplicates != 12+4+8 || q.Newest() != 16 {
		t.Fatalf("stats %+v, newest %d", s, q.Newest())
	}
}

// TestQueueHostile sends what a hostile client might: a packet claiming
// sequences a billion ahead, runs longer than 16, and a flood of 10,000
// packets between two ticks. The queue never holds more than its cap and
// runs one command a tick.
func TestQueueHostile(t *testing.T) {
	var q Queue
	ticks := 0
	next := func() {
		t.Helper()
		before := q.Stats()
		q.Next()
		ticks++
		after := q.Stats()
		ran := (after.Real - before.Real) + (after.Repeats - before.Repeats) + (after.Idle - before.Idle)
		if ran != 1 || q.Depth() > MaxDepth {
			t.Fatalf("a tick ran %d commands, left depth %d", ran, q.Depth())
		}
	}
	q.Push(packetOf(1, 4, walking))
	next()
	// A billion ahead: refused whole; the real commands after it still run.
	q.Push(packetOf(1e9, 16, walking))
	if q.Newest() != 4 || q.Depth() != 3 {
		t.Fatalf("after a packet a billion ahead: newest %d, depth %d", q.Newest(), q.Depth())
	}
	q.Push(packetOf(5, 2, walking))
	// Longer than 16: ParsePacket refuses it on the wire; Push refuses it
	// whole too.
	q.Push(packetOf(7, 40, walking))
	var wire Packet
	long := &Packet{FirstSeq: 7, Commands: make([]Command, 17)}
	b := (&Packet{FirstSeq: 7, Commands: make([]Command, 16)}).Append(nil, arenaAxes, arenaButtons)
	b[13] = b[13]&^0x1f | 17
	if ParsePacket(b, arenaAxes, arenaButtons, &wire) == nil {
		t.Fatal("a run of 17 parsed")
	}
	q.Push(long)
	if q.Depth() != 5 || q.Newest() != 6 {
		t.Fatalf("after runs over 16: depth %d, newest %d", q.Depth(), q.Newest())
	}
	next()
	// A flood: 10,000 packets of random runs, duplicates and leaps
	// between two ticks, then ticks.
	rng := rand.New(rand.NewPCG(1, 1))
	maxDepth := 0
	for i := range 10000 {
		first := q.Newest() - 8 + rng.Uint32N(24)
		if i%100 == 0 {
			first = rng.Uint32()
		}
		q.Push(packetOf(max(first, 1), 1+rng.IntN(MaxPerPacket), walking))
		maxDepth = max(maxDepth, q.Depth())
		if q.Depth() > queueCap {
			t.Fatalf("depth %d after packet %d", q.Depth(), i)
		}
	}
	for range 100 {
		next()
	}
	s := q.Stats()
	t.Logf("flood of 10,000 packets: deepest %d (cap %d), newest %d; %d ticks ran one command each; %+v",
		maxDepth, queueCap, q.Newest(), ticks, s)
	if s.Refused == 0 {
		t.Fatal("nothing refused")
	}
}

// TestQueueAllocs: a steady Push + Next allocates nothing.
func TestQueueAllocs(t *testing.T) {
	var q Queue
	p := packetOf(1, Redundancy, walking)
	allocs := testing.AllocsPerRun(1000, func() {
		q.Push(p)
		q.Next()
		p.FirstSeq++
		p.FirstTick++
	})
	if allocs != 0 {
		t.Errorf("Push + Next: %.0f allocations, want 0", allocs)
	}
}

// TestEdgeSurvivesLoss: a jump pressed while 5 consecutive command packets
// are lost happens on the server exactly once. Client and server tick in
// step; each client tick sends a packet through Append and ParsePacket,
// delivered latency ticks later unless lost; each server tick confirms the
// newest sequence back after the same latency. Every placement of the press
// within the loss, and a queue deep enough to ride the loss out as well as
// one that runs dry through it (the press's command then arrives after a
// repeat claimed it), are tried.
func TestEdgeSurvivesLoss(t *testing.T) {
	const latency = 3
	const lost = 5
	for _, cushion := range []int{0, 3, 6} {
		// offset: how many lost packets precede the press's own (-1: the
		// loss starts the tick after it; lost: it ended the tick before).
		for offset := -1; offset <= lost; offset++ {
			var (
				h        History
				q        Queue
				p, in    Packet
				buf      []byte
				toServer = map[int][]byte{}
				toClient = map[int]uint32{}
				jumps    int
			)
			pressAt := 60
			lossFrom := pressAt - offset
			held := false
			for tick := 1; tick <= 200; tick++ {
				// Client: one command a tick; the jump is held for 10 ticks.
				if n, ok := toClient[tick]; ok {
					h.Confirm(n)
				}
				down := tick >= pressAt && tick < pressAt+10
				c := Command{Axes: [MaxAxes]float64{0.25}}
				if down {
					c.Held = jump
				}
				if down && !held {
					c.Pressed = jump
				}
				held = down
				h.Add(c, uint32(tick))
				h.Fill(&p)
				buf = p.Append(buf[:0], arenaAxes, arenaButtons)
				if tick < lossFrom || tick >= lossFrom+lost {
					toServer[tick+latency] = append([]byte(nil), buf...)
				}
				// Server: starts cushion ticks late so that many wait.
				if b, ok := toServer[tick]; ok {
					if err := ParsePacket(b, arenaAxes, arenaButtons, &in); err != nil {
						t.Fatal(err)
					}
					q.Push(&in)
				}
				if tick > latency+cushion {
					if q.Next().Command.Pressed&jump != 0 {
						jumps++
					}
					toClient[tick+latency] = q.Newest()
				}
			}
			s := q.Stats()
			if jumps != 1 {
				t.Errorf("cushion %d, press after %d lost packets: the jump ran %d times; %+v", cushion, offset, jumps, s)
			}
			t.Logf("cushion %d, press after %2d of %d lost packets: jump ran %d time(s); %d repeats, %d discarded",
				cushion, offset, lost, jumps, s.Repeats, s.Discarded)
		}
	}
}

func BenchmarkQueue(b *testing.B) {
	var q Queue
	p := packetOf(1, Redundancy, walking)
	b.ReportAllocs()
	for b.Loop() {
		q.Push(p)
		q.Next()
		p.FirstSeq++
		p.FirstTick++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/tick")
}

// FuzzQueue drives a Queue with an operation stream: pushes of runs placed
// anywhere around the newest sequence (duplicates, gaps, leaps, overlong
// runs) with random edges, and ticks. The queue never stores more than its
// cap, a tick runs one command, real commands run in sequence order each at
// most once and never one a repeat claimed, and an edge fires no more often
// than it was received; once drained, every edge received has fired.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{0, 1, 16, 0, 20, 12, 1, 1, 0, 200, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{0, 250, 16, 7, 1, 0, 0, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 3})
	f.Fuzz(runQueueOps)
}

// runQueueOps is FuzzQueue's body.
func runQueueOps(t *testing.T, ops []byte) {
	{
		var q Queue
		var received, fired [MaxButtons]int
		var lastReal, lastClaim uint32
		next := func() {
			tk := q.Next()
			switch tk.Kind {
			case Real:
				if tk.Seq <= lastReal || tk.Seq <= lastClaim {
					t.Fatalf("ran seq %d after real %d, claim %d", tk.Seq, lastReal, lastClaim)
				}
				lastReal = tk.Seq
			case Repeat, Zero:
				if tk.Command.Pressed != 0 || tk.Seq <= max(lastReal, lastClaim) {
					t.Fatalf("a dry tick %+v after real %d, claim %d", tk, lastReal, lastClaim)
				}
				lastClaim = tk.Seq
			}
			for b := range MaxButtons {
				if tk.Command.Pressed&(1<<b) != 0 {
					fired[b]++
				}
			}
			if q.Depth() > MaxDepth {
				t.Fatalf("depth %d after a tick", q.Depth())
			}
		}
		for len(ops) >= 3 {
			op, a, b := ops[0], ops[1], ops[2]
			ops = ops[3:]
			if op%4 == 0 {
				next()
				continue
			}
			// A run of b%20 commands from newest-8+a%24 (or anywhere, for
			// a ≥ 240), each pressing button seq%32 when its bit of op
			// says so.
			first := int64(q.Newest()) - 8 + int64(a%24)
			if a >= 240 {
				first = int64(a) << 24
			}
			p := packetOf(uint32(max(first, 1)), int(b%20), func(seq uint32) Command {
				if op&(1<<(seq%7)) != 0 {
					return Command{Held: 1 << (seq % 32), Pressed: 1 << (seq % 32)}
				}
				return Command{}
			})
			before := q.Stats()
			newest := q.Newest()
			q.Push(p)
			if q.Stats().Refused == before.Refused {
				for i, c := range p.Commands {
					if p.FirstSeq+uint32(i) > newest && c.Pressed != 0 {
						received[(p.FirstSeq+uint32(i))%32]++
					}
				}
			}
			if q.Depth() > queueCap {
				t.Fatalf("depth %d", q.Depth())
			}
		}
		// Drain: one plain command after everything, then tick it through.
		q.Push(packetOf(max(q.Newest(), lastClaim)+1, 1, func(uint32) Command { return Command{} }))
		for q.Depth() > 0 {
			next()
		}
		for b := range MaxButtons {
			if fired[b] > received[b] || (received[b] > 0 && fired[b] == 0) {
				t.Fatalf("button %d: received %d edges, fired %d", b, received[b], fired[b])
			}
		}
	}
}
