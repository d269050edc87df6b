package prediction

import "math"

// Tuning constants of the server's command queue. They are counted in
// commands, not seconds: a networked session ticks at 128 Hz at most, and
// at that rate a packet lands two commands.
const (
	// MaxDepth is the most commands a queue lets wait before a tick. A
	// backlog is latency every command behind it waits through, so above
	// it the oldest are skipped down to it in one tick. The client paces
	// the queue near 2 + 2σ (at most MaxDepth/2), so the trim sits above
	// that cushion by as much again as the jitter the cushion is for: a
	// link that merely jitters is never trimmed. It also bounds how far a
	// repeat runs dry (see Queue).
	MaxDepth = 10

	// RepeatTicks is how many dry ticks in a row run on the last command's
	// axes and held buttons before both go to zero. Four ticks is 31 ms at
	// 128 Hz and 62 ms at 64 Hz: longer than the gap the jitter of a
	// usable link leaves (15 ms is two ticks at 128 Hz), so a held
	// direction carries through ordinary hiccups, and short enough that a
	// link that has gone stops the body within a few centimetres rather
	// than walking it on.
	RepeatTicks = 4

	// queueCap is how many commands a queue stores: MaxDepth plus a full
	// packet, rounded up to a power of two. A tick trims to MaxDepth
	// anyway, so when more arrive between two ticks the oldest are skipped
	// on arrival (edges folded, exactly as the trim would), and no number
	// or shape of packets grows a queue past this.
	queueCap = 32

	// aheadSlack and aheadPerTick bound how far past the newest sequence
	// received a packet may reach: 1024 commands, plus two for every tick
	// since the newest arrived. A client makes about one command a tick
	// (pacing bends it by 5% at most), so after any silence its packets
	// are far inside the bound; a packet beyond it is forged or corrupt,
	// and taking it would move the newest sequence so far ahead that every
	// real command after it would be refused as old.
	aheadSlack   = 1024
	aheadPerTick = 2

	// lowWaterMax is the largest low water reported: four bits.
	lowWaterMax = 15
)

// Kind says what a queue ran on a tick.
type Kind uint8

// What a tick ran on.
const (
	// Real is a command the client made, with any edges folded into it.
	Real Kind = iota
	// Repeat is the last real command's axes and held buttons with its
	// edges cleared, run dry; it claims the client tick after the last.
	Repeat
	// Zero is a dry tick past RepeatTicks: no axes, nothing held. It
	// claims the client tick after the last.
	Zero
	// Idle is a tick with nothing to run that claims no client tick:
	// before the first command arrives, or past MaxDepth dry ticks in a
	// row. It runs the zero command.
	Idle
)

// String returns the kind's name.
// Not made by stringer, which would spell an unknown kind Kind(4), not kind(?).
func (k Kind) String() string {
	switch k {
	case Real:
		return "real"
	case Repeat:
		return "repeat"
	case Zero:
		return "zero"
	case Idle:
		return "idle"
	}
	return "kind(?)"
}

// Tick is what one server tick runs for one player.
type Tick struct {
	Command    Command
	ClientTick uint32 // the client tick it stands for; for Idle, the last one claimed (0 if none)
	Seq        uint32 // the sequence it stands for; for Idle, the last one claimed
	Kind       Kind
}

// QueueStats counts what a queue has done since it was made.
type QueueStats struct {
	Real       uint64 // ticks run on a command the client made
	Repeats    uint64 // dry ticks that claimed a client tick (Repeat and Zero)
	Zeros      uint64 // of Repeats, those run with zero input
	Idle       uint64 // ticks that ran nothing and claimed nothing
	Skips      uint64 // commands skipped to hold the depth to MaxDepth
	Discarded  uint64 // commands that arrived for a tick a repeat had claimed
	Duplicates uint64 // commands received again, or older than the newest
	Refused    uint64 // commands in packets refused whole (see Push)
}

// queued is one command waiting.
type queued struct {
	cmd  Command
	seq  uint32
	tick uint32
}

// Queue is the server's queue of one player's commands. It runs one command
// a tick, in the order the player made them, and never one twice; commands
// are ordered by sequence, never by tick, since the two ends count ticks on
// separate clocks.
//
// Its two edges:
//
//	depth > MaxDepth ─▶ skip the oldest down to MaxDepth, fold their edges
//	                    into the one that runs (an axis can be skipped, an
//	                    edge cannot)
//	depth == 0       ─▶ dry 1..RepeatTicks:          Repeat (axes, held; no edges)
//	                    dry RepeatTicks+1..MaxDepth: Zero
//	                    each claims the next client tick and sequence; the
//	                    real command for it is discarded when it arrives,
//	                    its edges folded into the next real command run
//	                    dry > MaxDepth:              Idle (claims nothing)
//
// A repeat claims the client tick it stands in for because a tick of
// movement happens either way: a snapshot naming the tick before it would
// describe a pose the client never predicted. A repeat runs no further dry
// than the queue may run deep: past MaxDepth dry ticks in a row the client
// is not late but slower than the server, and claiming on would run ahead
// of everything it will ever send and discard all of it. So the queue stops
// claiming, runs the zero command (Idle) and leaves Judged where it was;
// the next command to arrive is newer than every claim and runs.
//
// Edges folded (from skipped or discarded commands) wait for the next Real
// tick, however long, so a press is never lost and fires exactly once.
//
// Each snapshot's command feedback (the replication header's Newest,
// Judged and LowWater) is read from the queue's methods of those names.
//
// Memory is fixed: at most queueCap commands are stored, whatever is
// pushed. The zero value is an empty queue ready to use. A Queue is not
// safe for concurrent use.
type Queue struct {
	ring   [queueCap]queued
	head   int // index of the oldest waiting
	n      int // how many wait
	newest uint32

	cursor   uint32  // sequence of the last command run or claimed
	lastTick uint32  // client tick of the last command run or claimed
	last     Command // the last real command run, as the client made it
	started  bool    // a real command has run
	dry      int     // dry ticks in a row
	edges    uint32  // edges folded, for the next real command

	low         int    // fewest waiting at a tick since LowWater, if haveLow
	haveLow     bool   // a tick has run since LowWater
	sinceNewest uint64 // ticks since the newest sequence advanced
	stats       QueueStats
}

// Newest returns the newest command sequence received, 0 before the first.
// It goes in each snapshot header, so the client stops resending it.
func (q *Queue) Newest() uint32 { return q.newest }

// Judged returns the client tick the last Next stood for (after an Idle,
// the last one claimed), 0 before the first. It goes in each snapshot
// header, so the client knows which prediction the snapshot judges.
func (q *Queue) Judged() uint32 { return q.lastTick }

// Depth returns how many commands wait.
func (q *Queue) Depth() int { return q.n }

// Stats returns the queue's counts.
func (q *Queue) Stats() QueueStats { return q.stats }

// LowWater returns the fewest commands that waited at any tick since the
// last call, counted before the tick took one, at most 15 (it travels in
// four bits), and starts a new reading. With no tick since the last call it
// returns the depth now.
func (q *Queue) LowWater() uint8 {
	v := q.n
	if q.haveLow {
		v = q.low
	}
	q.haveLow = false
	return uint8(min(v, lowWaterMax))
}

// Push takes the commands of p newer than the newest received, in order;
// the rest are duplicates. A command for a sequence a repeat has claimed is
// discarded, its edges kept for the next real command. A packet is refused
// whole when it carries more than MaxPerPacket commands, starts at sequence
// 0, runs past the largest sequence, or reaches further past the newest
// received than the client can have made since (see aheadSlack; a client's
// History starts at sequence 1 when it starts playing).
func (q *Queue) Push(p *Packet) {
	n := len(p.Commands)
	if n == 0 {
		return
	}
	lastSeq := uint64(p.FirstSeq) + uint64(n) - 1
	limit := uint64(q.newest) + aheadSlack + aheadPerTick*q.sinceNewest
	if n > MaxPerPacket || p.FirstSeq == 0 || lastSeq > math.MaxUint32 || lastSeq > limit {
		q.stats.Refused += uint64(n)
		return
	}
	for i := range p.Commands {
		seq, tick := p.FirstSeq+uint32(i), p.FirstTick+uint32(i)
		switch {
		case seq <= q.newest:
			q.stats.Duplicates++
			continue
		case seq <= q.cursor:
			q.edges |= p.Commands[i].Pressed
			q.stats.Discarded++
		default:
			q.enqueue(queued{cmd: p.Commands[i], seq: seq, tick: tick})
		}
		q.newest, q.sinceNewest = seq, 0
	}
}

// enqueue adds e as the newest waiting, skipping the oldest when the store
// is full.
func (q *Queue) enqueue(e queued) {
	if q.n == queueCap {
		q.skipOldest()
	}
	q.ring[(q.head+q.n)%queueCap] = e
	q.n++
}

// skipOldest drops the oldest waiting command, keeping its edges.
func (q *Queue) skipOldest() {
	q.edges |= q.ring[q.head].cmd.Pressed
	q.head = (q.head + 1) % queueCap
	q.n--
	q.stats.Skips++
}

// Next runs one server tick: it returns the command to run for this
// player, the client tick it stands for and what it was. Call it exactly
// once a tick.
func (q *Queue) Next() Tick {
	if !q.haveLow || q.n < q.low {
		q.low, q.haveLow = q.n, true
	}
	q.sinceNewest++
	for q.n > MaxDepth {
		q.skipOldest()
	}
	if q.n > 0 {
		return q.runReal()
	}
	return q.runDry()
}

// runReal runs the oldest waiting command with the folded edges.
func (q *Queue) runReal() Tick {
	e := q.ring[q.head]
	q.head = (q.head + 1) % queueCap
	q.n--
	q.cursor, q.lastTick, q.last = e.seq, e.tick, e.cmd
	q.started, q.dry = true, 0
	c := e.cmd
	c.Pressed |= q.edges
	q.edges = 0
	q.stats.Real++
	return Tick{Command: c, ClientTick: e.tick, Seq: e.seq, Kind: Real}
}

// runDry runs a tick with nothing waiting.
func (q *Queue) runDry() Tick {
	q.dry++
	if !q.started || q.dry > MaxDepth {
		q.stats.Idle++
		return Tick{ClientTick: q.lastTick, Seq: q.cursor, Kind: Idle}
	}
	q.cursor++
	q.lastTick++
	q.stats.Repeats++
	t := Tick{ClientTick: q.lastTick, Seq: q.cursor, Kind: Zero}
	if q.dry <= RepeatTicks {
		t.Kind = Repeat
		t.Command = Command{Axes: q.last.Axes, Held: q.last.Held}
		return t
	}
	q.stats.Zeros++
	return t
}
