package prediction

import "math"

// followCap is how many client ticks a Follower remembers: MaxDepth plus a
// full packet and room for the owner's queue to run behind by as much
// again, rounded up to a power of two.
const followCap = 64

// followAhead bounds how far past the newest client tick received a
// Follower takes a command: what Queue allows a packet past its newest
// sequence, the client's ticks and sequences advancing together.
const followAhead = aheadSlack

// Follower is the server's record of a guest's commands: a player who shares
// its owner's connection (and so its packets, its clock and its
// acknowledgements). Its commands are kept by the client tick they were
// made for, and each server tick runs the one for the client tick the
// owner's Queue ran: the guest follows its owner's queue rather than keeping
// one of its own, so every player of a connection is judged at the same
// client tick, which is the one the snapshot header names. The client
// predicts all of its characters from that one judged tick.
//
// A tick whose command has not arrived repeats the last command's axes and
// held buttons for RepeatTicks ticks, then runs the empty command, as a
// Queue runs dry; a command that arrives for a tick already run is
// discarded, its presses folded into the next command that runs, as are
// the presses of ticks the owner's queue skipped.
//
// Memory is fixed. The zero value is an empty Follower ready to use. A
// Follower is not safe for concurrent use.
type Follower struct {
	ring    [followCap]followed
	newest  uint32 // the newest client tick received; 0 before the first
	served  uint32 // the client tick At last ran; 0 before the first
	last    Command
	started bool // a real command has run
	dry     int  // ticks in a row run without the command for them
	edges   uint32
	stats   FollowerStats
}

// followed is the command received for one client tick.
type followed struct {
	cmd  Command
	tick uint32
	ok   bool
}

// FollowerStats counts what a Follower has done since it was made.
type FollowerStats struct {
	Real      uint64 // ticks run on the command the client made for them
	Repeats   uint64 // ticks run without one (repeated or empty)
	Discarded uint64 // commands that arrived for a tick already run
	Refused   uint64 // commands in packets refused whole
}

// Stats returns the follower's counts.
func (f *Follower) Stats() FollowerStats { return f.stats }

// Push takes the commands of p by their client ticks. A packet is refused
// whole, as Queue refuses it, when it carries more than MaxPerPacket
// commands, starts at sequence 0 or runs past the largest sequence, or
// reaches more than 1024 ticks past the newest received.
func (f *Follower) Push(p *Packet) {
	n := len(p.Commands)
	if n == 0 {
		return
	}
	lastSeq := uint64(p.FirstSeq) + uint64(n) - 1
	lastTick := p.FirstTick + uint32(n) - 1
	if n > MaxPerPacket || p.FirstSeq == 0 || lastSeq > math.MaxUint32 ||
		(f.newest != 0 && int32(lastTick-f.newest) > followAhead) {
		f.stats.Refused += uint64(n)
		return
	}
	for i := range p.Commands {
		t := p.FirstTick + uint32(i)
		e := &f.ring[t%followCap]
		if e.ok && e.tick == t {
			continue // said again
		}
		late := f.served != 0 && int32(t-f.served) <= 0
		if late && int32(f.served-t) >= followCap {
			continue // older than anything remembered
		}
		*e = followed{cmd: p.Commands[i], tick: t, ok: true}
		if late {
			// Run already without it: its presses go with the next.
			f.edges |= p.Commands[i].Pressed
			f.stats.Discarded++
		}
		if f.newest == 0 || int32(t-f.newest) > 0 {
			f.newest = t
		}
	}
}

// At runs the command for client tick t, the tick the owner's queue runs
// this server tick; call it once a server tick with the owner's ticks in
// order. The same t twice (the owner's queue idle) runs the empty command.
func (f *Follower) At(t uint32) Command {
	if f.served != 0 && int32(t-f.served) <= 0 {
		return Command{}
	}
	if f.served != 0 {
		// Presses of ticks the owner's queue passed over.
		for u := f.served + 1; u != t && t-u < followCap; u++ {
			if e := &f.ring[u%followCap]; e.ok && e.tick == u {
				f.edges |= e.cmd.Pressed
			}
		}
	}
	f.served = t
	if e := &f.ring[t%followCap]; e.ok && e.tick == t {
		c := e.cmd
		c.Pressed |= f.edges
		f.edges, f.last, f.started, f.dry = 0, e.cmd, true, 0
		f.stats.Real++
		return c
	}
	f.dry++
	f.stats.Repeats++
	if f.started && f.dry <= RepeatTicks {
		return Command{Axes: f.last.Axes, Held: f.last.Held}
	}
	return Command{}
}
