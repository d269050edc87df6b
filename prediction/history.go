package prediction

// Redundancy is how many of the newest commands the server has not
// confirmed every packet carries again. An axis recovers from a lost packet
// by itself (the next one says where the stick is now); an edge does not,
// so each command goes out in many packets: twelve is 94 ms of commands at
// 128 Hz and 188 ms at 64 Hz. Protocol constant (with MaxPerPacket it sizes
// the packet).
const Redundancy = 12

// HistorySize is how many commands a History remembers: 256, two seconds
// at 128 Hz and four at 64 Hz, which covers a round trip plus the server's
// queue many times over, for both resending and replay. A power of two so a
// sequence finds its slot with a mask. Tuning constant.
//
// A server that confirms nothing for that long is one whose connection is
// about to time out. The history then forgets its oldest commands as new
// ones are made; they are no longer owed or available to Command. Each has
// been carried by a packet by then, as long as the host fills one every
// frame: a packet takes the oldest owed first, sixteen at a time.
const HistorySize = 256

// History is the client's record of the commands it made, by sequence
// (1, 2, 3...), each with the client tick it was made for; it chooses what
// each command packet carries.
//
// Owed are the commands the server has not confirmed. A packet carries
// every one of the newest Redundancy owed commands and, before them, every
// owed command no packet has carried yet however old it is (a frame that
// runs more ticks than the window would otherwise pass over commands the
// client predicted with and the server never ran), at most MaxPerPacket, in
// one unbroken run, oldest first. When more are owed than fit, the oldest
// go first and the rest go in the next packet.
//
// Sequences are uint32: at 128 commands a second they last 388 days, so
// they never wrap within a session.
//
// The zero value is an empty History ready to use. A History is not safe
// for concurrent use.
type History struct {
	ring      [HistorySize]historyEntry
	newest    uint32 // sequence of the newest command; 0 before the first
	confirmed uint32 // the newest sequence the server said it has
	runStart  uint32 // first sequence of the current unbroken run of ticks
}

// historyEntry is one command made, at ring[seq % HistorySize].
type historyEntry struct {
	cmd     Command
	tick    uint32
	carried bool // some packet has carried it
}

// slot returns seq's entry. It is only meaningful for a sequence held.
func (h *History) slot(seq uint32) *historyEntry { return &h.ring[seq%HistorySize] }

// oldestHeld returns the oldest sequence the ring still holds (1 before it
// has wrapped).
func (h *History) oldestHeld() uint32 {
	if h.newest < HistorySize {
		return 1
	}
	return h.newest - HistorySize + 1
}

// Add records c, the command made for client tick tick, and returns its
// sequence. c should be what the wire carries (Command.Quantize), which is
// also what the client predicts with, so the server runs exactly that. Ticks follow one another, one command a tick; a tick that does
// not follow the last (a client whose clock was reset) starts a new run,
// and the commands before it are then no longer owed, since a packet's run
// could not carry both.
func (h *History) Add(c Command, tick uint32) (seq uint32) {
	seq = h.newest + 1
	if h.newest == 0 || tick != h.slot(h.newest).tick+1 {
		h.runStart = seq
	}
	*h.slot(seq) = historyEntry{cmd: c, tick: tick}
	h.newest = seq
	return seq
}

// Confirm records that the server has received every command up to
// newest (the snapshot header's newest sequence). It never moves backwards:
// a stale value, or one naming a command not yet made, is ignored.
func (h *History) Confirm(newest uint32) {
	if newest > h.confirmed && newest <= h.newest {
		h.confirmed = newest
	}
}

// Newest returns the sequence of the newest command made, 0 before the
// first.
func (h *History) Newest() uint32 { return h.newest }

// Confirmed returns the newest sequence the server has confirmed.
func (h *History) Confirmed() uint32 { return h.confirmed }

// Command returns the command with sequence seq and its client tick, or
// ok false when seq was never made or has left the history.
func (h *History) Command(seq uint32) (c Command, tick uint32, ok bool) {
	if seq == 0 || seq > h.newest || seq < h.oldestHeld() {
		return Command{}, 0, false
	}
	e := h.slot(seq)
	return e.cmd, e.tick, true
}

// Fill sets p's run to the commands the next packet carries and marks them
// carried; it leaves DrawnTick and DrawnFrac to the caller and reuses
// p.Commands' storage. With nothing owed the run is empty, starting after
// the newest command.
func (h *History) Fill(p *Packet) {
	p.Commands = p.Commands[:0]
	first, last := h.owedRun()
	if first > last {
		p.FirstSeq = h.newest + 1
		p.FirstTick = 0
		if h.newest > 0 {
			p.FirstTick = h.slot(h.newest).tick + 1
		}
		return
	}
	p.FirstSeq, p.FirstTick = first, h.slot(first).tick
	for seq := first; seq <= last; seq++ {
		e := h.slot(seq)
		e.carried = true
		p.Commands = append(p.Commands, e.cmd)
	}
}

// owedRun returns the first and last sequence of the next packet's run;
// first > last when nothing is owed.
func (h *History) owedRun() (first, last uint32) {
	// lo is the oldest command still owed: newer than what the server
	// has, in the current run of ticks, and still held.
	lo := max(h.confirmed+1, h.runStart, h.oldestHeld())
	if lo > h.newest {
		return 1, 0
	}
	// The window: the newest Redundancy owed.
	first = lo
	if h.newest >= Redundancy {
		first = max(lo, h.newest-Redundancy+1)
	}
	// Before it, every command never carried. A packet carries the
	// oldest owed first, so those never carried are always the newest
	// commands: walking back from the window meets them all, then stops.
	for first > lo && !h.slot(first-1).carried {
		first--
	}
	last = min(h.newest, first+MaxPerPacket-1)
	return first, last
}
