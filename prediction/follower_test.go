package prediction

import "testing"

// followPacket is a packet of commands for ticks first.., each running
// along axis 0 at the tick's share and pressing button 0 on press ticks.
func followPacket(first uint32, n int, press map[uint32]bool) *Packet {
	p := &Packet{FirstSeq: first, FirstTick: first}
	for i := range n {
		t := first + uint32(i)
		c := Command{Axes: [MaxAxes]float64{float64(t%5) / 5}}
		if press[t] {
			c.Held, c.Pressed = 1, 1
		}
		p.Commands = append(p.Commands, c)
	}
	return p
}

// A follower runs, for each client tick its owner runs, the command made
// for that tick, whatever order and repetition its packets came in.
func TestFollowerRunsTheCommandForTheOwnersTick(t *testing.T) {
	var f Follower
	f.Push(followPacket(10, 4, nil))
	f.Push(followPacket(12, 4, nil)) // overlaps: said again
	for tick := uint32(10); tick < 16; tick++ {
		if c := f.At(tick); c.Axes[0] != float64(tick%5)/5 {
			t.Fatalf("tick %d ran axis %v", tick, c.Axes[0])
		}
	}
	if s := f.Stats(); s.Real != 6 || s.Repeats != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// A tick whose command has not come repeats the last for RepeatTicks, then
// runs empty; a late command is discarded and its press runs with the
// next; presses of ticks the owner passed over are not lost.
func TestFollowerRunsDryAndKeepsPresses(t *testing.T) {
	var f Follower
	f.Push(followPacket(1, 1, nil))
	want := f.At(1)
	for tick := uint32(2); tick < 2+RepeatTicks; tick++ {
		if c := f.At(tick); c.Axes != want.Axes {
			t.Fatalf("dry tick %d ran %v, want the last %v", tick, c.Axes, want.Axes)
		}
	}
	if c := f.At(2 + RepeatTicks); c != (Command{}) {
		t.Fatalf("past the repeats: %+v", c)
	}
	// Tick 3's command, pressed, arrives after tick 3 ran dry.
	f.Push(followPacket(3, 1, map[uint32]bool{3: true}))
	f.Push(followPacket(7, 3, map[uint32]bool{8: true}))
	if c := f.At(7); c.Pressed != 1 {
		t.Fatalf("the late press did not run with the next command: %+v", c)
	}
	// The owner's queue skips tick 8 (its depth trimmed): 8's press runs
	// with 9.
	if c := f.At(9); c.Pressed != 1 {
		t.Fatalf("the skipped tick's press is lost: %+v", c)
	}
	if c := f.At(9); c != (Command{}) {
		t.Fatalf("the same tick twice (the owner idle) ran %+v", c)
	}
	if s := f.Stats(); s.Discarded != 1 {
		t.Fatalf("stats %+v", s)
	}
}

// Packets a client cannot have sent are refused whole.
func TestFollowerRefuses(t *testing.T) {
	var f Follower
	f.Push(followPacket(5, 1, nil))
	far := followPacket(5+2000, 1, nil)
	f.Push(far)
	zero := followPacket(6, 1, nil)
	zero.FirstSeq = 0
	f.Push(zero)
	if s := f.Stats(); s.Refused != 2 {
		t.Fatalf("stats %+v", s)
	}
}
