package memnet

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"time"

	"vkm/transport"
)

// defaultReorderDelay is LinkConfig.ReorderDelay when zero: two packet
// intervals at 64 a second, so the datagram sent after a held one, and
// usually the one after that, overtake it.
const defaultReorderDelay = 2 * time.Second / 64

// LinkConfig describes what one direction of a simulated link does to each
// datagram. The zero value is a perfect link: no delay, nothing lost.
//
// Jitter does not reorder. Queues along one network path are first in, first
// out, so a datagram delayed more than the one before it holds back the ones
// behind it rather than being overtaken; the link does the same, and
// datagrams bunch up instead of swapping. Only Reorder makes a later datagram
// arrive before an earlier one, as a path change or a parallel route does.
// The price of keeping order: when datagrams go out closer together than the
// jitter's spread, the hold-backs raise the mean delay above Latency. At 64 a
// second on Broadband (±8 ms against 15.6 ms apart) that is rare; a datagram
// a millisecond with ±30 ms of jitter arrives about 20 ms later on average.
type LinkConfig struct {
	// Latency is the one-way delay, the centre of the jitter's spread.
	Latency time.Duration
	// Jitter spreads each datagram's delay uniformly over Latency ± Jitter
	// (never below zero).
	Jitter time.Duration
	// Loss is the probability, 0..1, that a datagram is dropped. Each
	// datagram is dropped independently: there are no loss bursts.
	Loss float64
	// Duplicate is the probability, 0..1, that a delivered datagram arrives
	// twice; the copy comes up to one Jitter (at least 1 ms) after it.
	Duplicate float64
	// Reorder is the probability, 0..1, that a datagram is held back by
	// ReorderDelay on top of its delay, so later ones overtake it.
	Reorder float64
	// ReorderDelay is the extra delay of a reordered datagram. Zero means two
	// packet intervals at 64 a second (31.25 ms).
	ReorderDelay time.Duration
}

// Validate reports a config that cannot be simulated: a negative duration, or
// a probability outside 0..1.
func (c LinkConfig) Validate() error {
	if c.Latency < 0 || c.Jitter < 0 || c.ReorderDelay < 0 {
		return fmt.Errorf("memnet: negative delay in link config %+v", c)
	}
	for _, p := range []float64{c.Loss, c.Duplicate, c.Reorder} {
		if !(p >= 0 && p <= 1) { // also catches NaN
			return fmt.Errorf("memnet: probability %v outside 0..1", p)
		}
	}
	return nil
}

// Counts is what a Link has done so far. It is a plain value, safe to copy.
type Counts struct {
	Sent       uint64 // datagrams handed to Send
	Delivered  uint64 // datagrams returned by Receive, copies included
	Dropped    uint64 // datagrams lost
	Duplicated uint64 // extra copies scheduled
	Reordered  uint64 // datagrams held back so later ones could pass them
}

// Link is one direction of a simulated network. Send puts a copy of a
// datagram in flight with a delivery time drawn from its seeded generator;
// Receive hands datagrams back in order of arrival once the caller's clock
// reaches them. It keeps everything in flight in memory and bounds nothing.
//
// The zero value is not usable; call NewLink. A Link is not safe for
// concurrent use.
type Link struct {
	cfg     LinkConfig
	rng     *rand.Rand
	q       flights
	order   uint64         // breaks ties between equal arrival times: first sent, first out
	fifoEnd transport.Time // latest arrival of an in-order datagram so far
	counts  Counts
}

// NewLink returns a link that behaves as cfg says, drawing every random
// choice from a generator seeded with seed, so the same seed and the same
// sends give the same deliveries. Any seed is accepted here; NewPipe refuses
// 0 on behalf of command lines. NewLink panics if cfg fails Validate, which
// is a programmer error: profiles and NewPipe validate first.
func NewLink(cfg LinkConfig, seed uint64) *Link {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	if cfg.ReorderDelay == 0 {
		cfg.ReorderDelay = defaultReorderDelay
	}
	// The second PCG word is fixed so that a link's stream depends on seed
	// alone; NewPipe derives a different seed for each direction.
	return &Link{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x6d656d6e6574))}
}

// Send puts a copy of datagram in flight at now; the caller keeps datagram.
// It draws the same number of random values whatever happens to the
// datagram, so changing one probability does not reshuffle the others'
// choices for the same seed.
func (l *Link) Send(datagram []byte, now transport.Time) {
	lose, dup, reorder := l.rng.Float64(), l.rng.Float64(), l.rng.Float64()
	jitter, dupJitter := l.rng.Float64(), l.rng.Float64()
	l.counts.Sent++
	if lose < l.cfg.Loss {
		l.counts.Dropped++
		return
	}
	delay := l.cfg.Latency + time.Duration((2*jitter-1)*float64(l.cfg.Jitter))
	at := now.Add(max(delay, 0))
	if reorder < l.cfg.Reorder {
		// Held back off the FIFO path: later datagrams are not queued
		// behind it, so they pass it.
		at = at.Add(l.cfg.ReorderDelay)
		l.counts.Reordered++
	} else {
		at = max(at, l.fifoEnd) // jitter never lets it overtake the one before
		l.fifoEnd = at
	}
	b := append([]byte(nil), datagram...)
	l.push(at, b)
	if dup < l.cfg.Duplicate {
		spread := max(l.cfg.Jitter, time.Millisecond)
		l.push(at.Add(time.Duration(dupJitter*float64(spread))), b)
		l.counts.Duplicated++
	}
}

func (l *Link) push(at transport.Time, b []byte) {
	heap.Push(&l.q, flight{at: at, order: l.order, b: b})
	l.order++
}

// Receive returns the next datagram due by now, in order of arrival (ties in
// the order sent), and true; or nil and false when none is due. The returned
// slice belongs to the caller; a duplicated datagram's two deliveries share
// one array, so a caller that writes into one should copy it first.
func (l *Link) Receive(now transport.Time) ([]byte, bool) {
	if len(l.q) == 0 || l.q[0].at > now {
		return nil, false
	}
	f := heap.Pop(&l.q).(flight)
	l.counts.Delivered++
	return f.b, true
}

// NextArrival returns when the next datagram in flight arrives, and false
// when nothing is in flight.
func (l *Link) NextArrival() (transport.Time, bool) {
	if len(l.q) == 0 {
		return 0, false
	}
	return l.q[0].at, true
}

// InFlight returns how many datagrams are on their way.
func (l *Link) InFlight() int { return len(l.q) }

// Counts returns what the link has done so far.
func (l *Link) Counts() Counts { return l.counts }

// flight is one datagram on its way.
type flight struct {
	at    transport.Time
	order uint64
	b     []byte
}

// flights is a min-heap of datagrams by arrival time, then send order.
type flights []flight

func (f flights) Len() int { return len(f) }
func (f flights) Less(i, j int) bool {
	if f[i].at != f[j].at {
		return f[i].at < f[j].at
	}
	return f[i].order < f[j].order
}
func (f flights) Swap(i, j int) { f[i], f[j] = f[j], f[i] }
func (f *flights) Push(x any)   { *f = append(*f, x.(flight)) }
func (f *flights) Pop() any {
	old := *f
	x := old[len(old)-1]
	old[len(old)-1] = flight{}
	*f = old[:len(old)-1]
	return x
}

// Config returns the link's configuration.
func (l *Link) Config() LinkConfig { return l.cfg }

// SetConfig changes how the link treats datagrams sent from now on, so a
// developer can make a running link worse or better; datagrams already in
// flight keep the arrival times they were given. An invalid configuration
// is refused and changes nothing.
func (l *Link) SetConfig(cfg LinkConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.ReorderDelay == 0 {
		cfg.ReorderDelay = defaultReorderDelay
	}
	l.cfg = cfg
	return nil
}
