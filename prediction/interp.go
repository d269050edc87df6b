package prediction

import (
	"math"
	"time"

	"vkm/internal/entity"
	"vkm/wire"
)

// Interpolation constants. The delay is counted in snapshot intervals, so
// it follows the snapshot rate; the clock's limits are in ticks and shares
// of a tick, so they follow the tick rate.
const (
	// InterpDelay is the delay, in snapshot intervals, on a link that does
	// not jitter: one interval for the spacing between snapshots and one
	// spare, which covers a lost snapshot (the next is due one interval
	// further on) or one that strays by less than an interval. Two
	// intervals is 31 ms at 64 snapshots a second.
	InterpDelay = 2

	// InterpMaxDelay caps the delay, in snapshot intervals, however badly
	// the link jitters: 62.5 ms at 64 snapshots a second. The delay is how
	// old everything a player sees of the others is, on top of the round
	// trip, so a link that would need more stalls now and then rather than
	// showing every other player later still.
	InterpMaxDelay = 4

	// InterpMaxBend is the most the interpolation clock runs fast or slow
	// to close on its target: 10%. Bodies drawn from it speed up or slow
	// down by at most that, which reads as motion rather than as a skip.
	InterpMaxBend = 0.10

	// InterpJumpTicks is how far, in ticks, the clock may be from its
	// target and still ease there. Further off (the first snapshot after a
	// reconnection, or the server's ticks leaping ahead), easing at 10%
	// would take ten times as long as the gap itself, so the clock is set
	// on the target at once.
	InterpJumpTicks = 20

	// interpTimeConstant is the clock's proportional time constant, in
	// seconds: the bend is the error divided by a quarter of a second's
	// ticks, so an error of 1.6 ticks at 64 Hz bends the full 10%, and the
	// target's one-snapshot staircase (an interval every 15.6 ms) moves the
	// clock's rate by a few per cent at most. Tuning constant.
	interpTimeConstant = 0.25

	// jitterRise and jitterFall are the smoothing factors of the jitter
	// measure for a reading above and below it. A late snapshot is what
	// runs the clock into the newest sample, and a stall is seen while a
	// few milliseconds more delay is not, so the measure rises quickly
	// (an eighth of the difference a reading) and falls slowly (1/128 a
	// reading, a time constant of two seconds at 64 snapshots a second).
	// It settles in the upper part of the readings, not at their mean,
	// which for a spread of arrival times is about a third of the spread
	// and well short of the lateness the delay must absorb, and it keeps a
	// link's bursts in mind through the quiet stretches between them.
	// Swept on TestInterpJitter's simulated links (20 seeds): half the
	// rise, or twice the fall, left the 45 ms link stalling two and a half
	// times as often; twice the rise took the 15 ms link's peaks over the
	// switch (see Delay). Tuning constants.
	jitterRise = 1.0 / 8
	jitterFall = 1.0 / 128
)

// Interp is the interpolation clock: where, in the server's tick numbering,
// the client draws every entity it does not simulate. Those entities are
// drawn behind the newest snapshot, between two poses the server actually
// sent (see Track), because a client draws more often than snapshots come
// and drawing the newest pose moves everything in steps.
//
// The host calls Arrive for each snapshot it reads and Advance once a
// frame, then draws each Track at Time. Time also says which tick a client
// was looking at, for lag compensation.
//
// How far behind is Delay, in ticks: InterpDelay snapshot intervals, or
// more on a link whose measured jitter says two would run dry (see Delay).
// The clock advances at the tick rate, bent by at most InterpMaxBend toward
// newest − Delay, and never passes the newest snapshot's tick (by more
// than Lead, for a host that carries entities on past their newest pose):
// a frame in which it would is held there and counted as a stall, which
// shows as the world pausing because that is what it is. A clock more than
// InterpJumpTicks off its target is moved onto it and counted as a jump.
//
// Ticks compare by signed 32-bit distance, so a snapshot is newer than
// another across a wrap of the tick counter; Time is a float64 of the tick
// number, so the one frame that crosses a wrap is a jump. A server whose
// ticks restart lower is a new connection: call Reset.
//
// Use NewInterp: the zero value has no rates and is not ready to use. An
// Interp is not safe for concurrent use.
type Interp struct {
	// FixedDelay holds the delay at InterpDelay intervals whatever the
	// jitter: the rule for a steady link alone, for comparison and for a
	// developer who wants the least delay and accepts stalls.
	FixedDelay bool

	// Lead is how far, in ticks, the clock may run past the newest
	// snapshot before it is held: 0 holds it there, as drawing only
	// between poses the server sent requires. A host that carries each
	// entity on past its newest pose by its velocity (Track.Draw) sets
	// it, so a late snapshot is bridged rather than seen as a pause.
	Lead float64

	tickRate float64 // ticks a second
	interval float64 // ticks between snapshots

	have   bool          // a snapshot has arrived
	newest uint32        // newest snapshot's tick
	last   time.Duration // its arrival
	jitter float64       // smoothed reading, seconds
	clock  float64       // where to draw, in ticks
	stalls uint64
	jumps  uint64
	held   bool
}

// NewInterp returns an interpolation clock for a server ticking tickRate
// times a second and sending snapshotRate snapshots a second, so snapshots
// are tickRate/snapshotRate ticks apart (1 at 64 Hz, 2 at 128 Hz with 64
// snapshots a second), and never less than one tick since a snapshot
// carries one tick. A rate below 1 is a programmer error and panics.
func NewInterp(tickRate, snapshotRate int) *Interp {
	if tickRate < 1 || snapshotRate < 1 {
		panic("prediction: interpolation rates below 1")
	}
	return &Interp{
		tickRate: float64(tickRate),
		interval: max(1, float64(tickRate)/float64(snapshotRate)),
	}
}

// Reset forgets every snapshot, the jitter and the counts, keeping the
// rates, FixedDelay and Lead: the clock starts again at the next Arrive.
func (p *Interp) Reset() {
	*p = Interp{FixedDelay: p.FixedDelay, Lead: p.Lead, tickRate: p.tickRate, interval: p.interval}
}

// Arrive records that a snapshot of server tick tick was read at now, on
// the client's clock. The first places the clock Delay behind it.
//
// Each later one newer than the newest is a jitter reading: how far its
// arrival is from when the previous snapshot's arrival and the ticks
// between them say it was due. A lost snapshot only widens the tick gap,
// and the due time with it, so it is not read as a late one; and the two
// ends' clocks are compared over one gap only, where a 3% drift is half a
// millisecond. A reading longer than the largest delay says nothing more
// and is cut to it, so one long frame cannot hold the delay up for
// seconds; and a gap of more than InterpJumpTicks (an outage, or the
// server's ticks leaping ahead) gives no reading.
//
// A snapshot no newer than the newest (a duplicate, or one overtaken on the
// way) is ignored: the newest has already said more.
func (p *Interp) Arrive(tick uint32, now time.Duration) {
	if !p.have {
		p.have, p.newest, p.last = true, tick, now
		p.clock = float64(tick) - p.Delay()
		return
	}
	gap := int32(tick - p.newest)
	if gap <= 0 {
		return
	}
	if gap <= InterpJumpTicks {
		due := p.last + time.Duration(float64(gap)/p.tickRate*float64(time.Second))
		r := math.Min(math.Abs((now - due).Seconds()), InterpMaxDelay*p.interval/p.tickRate)
		g := jitterRise
		if r < p.jitter {
			g = jitterFall
		}
		p.jitter += g * (r - p.jitter)
	}
	p.newest, p.last = tick, now
}

// Delay returns how far behind the newest snapshot the clock aims, in
// ticks.
//
// With I the snapshot interval and J the measured jitter, both in ticks,
// it is 2I while J ≤ I, and I + 2J at most 4I once J > I. Jitter up to one
// interval is what the spare interval of the two is for, so it does not
// move the delay; past it the link has outgrown the spare, and the delay is
// an interval for the spacing plus twice the jitter for the lateness,
// which is 3I at the switch. The band also keeps the client's own frame
// timing out of the delay: packets are read once a frame, so at 144 frames
// a second a perfect link already gives readings of up to 7 ms. A rule
// without the band, max(2I, I + 2J), starts adding delay at J = I/2 (7.8 ms
// at 64 snapshots a second), which a link spreading its arrivals over
// 15 ms crosses (its measure peaks near 14 ms), though two intervals ride
// that link with no stall. A link spreading them over 45 ms measures about
// 24 ms (rarely under 18) and is given 3.3 to 4 intervals; with one
// snapshot in ten lost it stalls about 6 frames a minute against about 190
// at a fixed two (TestInterpJitter, and the same over 200 seeds). The step
// from 2I to 3I at the switch is eased by the clock like any other change
// of target.
func (p *Interp) Delay() float64 {
	i := p.interval
	j := p.jitter * p.tickRate
	if p.FixedDelay || j <= i {
		return InterpDelay * i
	}
	return min(i+2*j, InterpMaxDelay*i)
}

// Advance moves the clock on by one frame of dt. Before the first snapshot,
// and for a dt that is not positive, it does nothing.
func (p *Interp) Advance(dt time.Duration) {
	if !p.have || dt <= 0 {
		return
	}
	p.held = false
	newest := float64(p.newest)
	target := newest - p.Delay()
	e := target - p.clock
	if math.Abs(e) > InterpJumpTicks {
		p.clock = target
		p.jumps++
		return
	}
	bend := clamp(e/(p.tickRate*interpTimeConstant), InterpMaxBend)
	next := p.clock + dt.Seconds()*p.tickRate*(1+bend)
	limit := newest + max(p.Lead, 0)
	p.held = next > limit
	if p.held {
		next = max(limit, p.clock)
		p.stalls++
	}
	p.clock = next
}

// Held reports whether the last Advance held the clock at the newest
// snapshot (or Lead past it).
func (p *Interp) Held() bool { return p.held }

// Time returns where to draw, in server ticks (whole and fraction); 0
// before the first snapshot.
func (p *Interp) Time() float64 { return p.clock }

// Jitter returns the measured jitter; 0 before the second snapshot.
func (p *Interp) Jitter() time.Duration {
	return time.Duration(p.jitter * float64(time.Second))
}

// Newest returns the newest snapshot's tick; 0 before the first.
func (p *Interp) Newest() uint32 { return p.newest }

// Stalls returns how many frames the clock was held at the newest snapshot
// (or Lead past it).
func (p *Interp) Stalls() uint64 { return p.stalls }

// Jumps returns how many times the clock was moved onto its target rather
// than eased there. Placing it at the first snapshot is not a jump.
func (p *Interp) Jumps() uint64 { return p.jumps }

// TrackSize is how many samples a Track keeps. The clock can be as far
// behind the newest sample as InterpJumpTicks plus the largest delay and
// still be easing rather than jumping: 24 ticks at a 64 Hz tick, where
// every tick is a snapshot. Rounded up to 32, so an entity always has both
// samples around the drawn time while the clock is easing. Tuning constant.
const TrackSize = 32

// Track is the last TrackSize poses one entity was given by the server,
// with the tick of each, for drawing it at the interpolation clock's time.
// It is kept for every entity the client does not simulate, and kept on
// while a lease has the client simulate one, so a lapsing lease has the
// server's last word to slide back to.
//
// The host adds a sample for each snapshot that carries the entity. An
// entity at rest that a snapshot leaves out, because it did not change, is
// confirmed by adding its pose again at that snapshot's tick; otherwise At
// would draw it gliding across the silence. An entity last said to be
// moving is not: silence about a mover means the snapshot had no room for
// it or looked elsewhere that round (its bits change every round it
// moves), and a mover that stops is said to have stopped, so its track
// goes straight from one pose heard to the next (see AddMotion).
//
// Ticks compare by signed 32-bit distance, so samples stay in order across
// a wrap of the tick counter. The zero value is empty and ready to use. A
// Track is not safe for concurrent use.
type Track struct {
	ring [TrackSize]trackSample
	head int // index of the newest sample
	n    int // samples held
	// interval is the smoothed number of ticks between the samples of a
	// moving body: how often the server has room to say where it is.
	interval float64
	// readings counts the interval readings taken, up to IntervalSettle.
	readings int
}

// trackSample is one pose the server gave, at its tick, whether the body
// was moving then, and its velocity if it was said.
type trackSample struct {
	tick   uint32
	t      entity.Transform
	v      Velocity
	moving bool
}

// Velocity is how far a body goes in one tick: metres along x and y and
// radians of turn. Zero is a body at rest, which Track.Draw never moves.
type Velocity struct {
	X, Y, Angle float64
}

// Interval readings: a reading above the measure takes it there at once,
// and one below it moves it a thirty-second of the way, so it stays near
// the longest recent gap of a body the server sends irregularly (the gap
// a draw must bridge) and forgets one over a few dozen samples; a reading
// longer than trackMaxGap (a body out of reach for a while, not a
// deferred one) is cut to it. The gap after a body's first sample is not
// read: a client that has just joined, or just come within reach of the
// body, hears of the rest of the world before it hears of that body
// again, and that gap says nothing of the body's usual one. Measured on
// bench/orbits served to eight
// watchers, a body's gaps run from a few ticks to three times its usual
// one; a measure at their mean would leave most of the long ones to be
// bridged. Tuning constants.
const (
	intervalRise = 1.0
	intervalFall = 1.0 / 32
	trackMaxGap  = 64

	// IntervalSettle is how many readings the interval takes before it
	// says how long the body's next gap may be (Settled). A client that
	// has just joined a crowded world hears of a body at uneven gaps while
	// the server describes the rest of the world to it: a body written
	// twice or three times a tick or two apart (seemingly into room a
	// larger entry left), then not for 10 to 27 ticks while every other
	// body is introduced (measured on bench/spin with 500 bodies and eight
	// watchers, in the first 48 ticks after the join; every gap after
	// them was 6). The interval of those first readings is a tick or two
	// and promises a next gap the body then runs past. On the same run,
	// one or two readings let a body run past it and three did not; four
	// keep a reading in hand. Tuning constant.
	IntervalSettle = 4
)

// Add records pose t at server tick tick, of a body at rest (AddMotion).
func (tr *Track) Add(tick uint32, t entity.Transform) { tr.AddMotion(tick, t, false) }

// AddMotion records pose t at server tick tick and whether the server said
// the body was moving then (any velocity), with no velocity to carry it on
// by. A tick no newer than the newest sample (a repeat, or a snapshot
// overtaken on the way) is ignored; past TrackSize samples the oldest is
// dropped.
func (tr *Track) AddMotion(tick uint32, t entity.Transform, moving bool) {
	tr.add(trackSample{tick: tick, t: t, moving: moving})
}

// AddVelocity records pose t at server tick tick with the velocity the
// server said the body had then, per tick; any velocity but zero is a
// moving body. Ticks are taken as AddMotion takes them.
func (tr *Track) AddVelocity(tick uint32, t entity.Transform, v Velocity) {
	tr.add(trackSample{tick: tick, t: t, v: v, moving: v != Velocity{}})
}

func (tr *Track) add(s trackSample) {
	if tr.n > 0 {
		gap := int32(s.tick - tr.ring[tr.head].tick)
		if gap <= 0 {
			return
		}
		if tr.ring[tr.head].moving && tr.n >= 2 {
			r := float64(min(gap, trackMaxGap))
			g := intervalRise
			if r < tr.interval {
				g = intervalFall
			}
			tr.interval += g * (r - tr.interval)
			tr.readings = min(tr.readings+1, IntervalSettle)
		}
	}
	tr.head = (tr.head + 1) % TrackSize
	tr.ring[tr.head] = s
	tr.n = min(tr.n+1, TrackSize)
}

// Settled reports whether the interval rests on IntervalSettle readings,
// enough to bound the body's next gap by; a body heard of only lately
// (joined, come within reach, handed back from a lease) is not.
func (tr *Track) Settled() bool { return tr.readings >= IntervalSettle }

// Interval returns the measured number of ticks between the samples of
// this body while it moves, near the longest of its recent gaps; 0 until
// it has been heard three times, moving before the third.
func (tr *Track) Interval() float64 { return tr.interval }

// Drawing says how Track.Draw placed a body.
type Drawing uint8

const (
	// Between is a pose between two samples, at one, or a body at rest.
	Between Drawing = iota
	// Ahead is a pose carried on past the newest sample by its velocity.
	Ahead
	// Held is a moving body past the newest sample by more than the
	// limit: drawn frozen where the carrying stopped.
	Held
)

// Draw returns the pose at when, in server ticks, as At does up to the
// newest sample; past it, a body whose newest sample has a velocity is
// carried on along it (position and angle, the scale kept) for at most
// limit ticks and held there, so a body the server is slow to mention
// again goes on moving rather than stopping dead. A body at rest is drawn
// at its newest pose exactly. It reports how it placed the body, and
// Between, with a zero Transform, for an empty track.
func (tr *Track) Draw(when, limit float64) (entity.Transform, Drawing) {
	d := tr.Drawing(when, limit)
	if d == Between {
		t, _ := tr.At(when)
		return t, d
	}
	s := tr.sample(0)
	ahead := min(when-float64(s.tick), max(limit, 0))
	t := s.t
	t.X += s.v.X * ahead
	t.Y += s.v.Y * ahead
	t.Angle = wire.Wrap(t.Angle + s.v.Angle*ahead)
	return t, d
}

// Drawing says how Draw would place the body at when with limit, without
// working out the pose.
func (tr *Track) Drawing(when, limit float64) Drawing {
	if tr.n == 0 {
		return Between
	}
	s := tr.sample(0)
	rel := when - float64(s.tick)
	switch {
	case !(rel > 0) || !s.moving:
		return Between
	case s.v == Velocity{}:
		return Held // said to move, with nothing to carry it on by
	case rel > max(limit, 0):
		return Held
	}
	return Ahead
}

// Silence returns how many ticks when is past the newest sample (negative
// before it); 0 for an empty track.
func (tr *Track) Silence(when float64) float64 {
	if tr.n == 0 {
		return 0
	}
	return when - float64(tr.sample(0).tick)
}

// NewestMoving reports whether the newest sample was of a moving body.
func (tr *Track) NewestMoving() bool { return tr.n > 0 && tr.sample(0).moving }

// sample returns the i-th newest sample, 0 being the newest.
func (tr *Track) sample(i int) *trackSample {
	return &tr.ring[(tr.head-i+TrackSize)%TrackSize]
}

// Len returns how many samples the track holds.
func (tr *Track) Len() int { return tr.n }

// MovingSince reports whether the entity was moving at a sample of tick
// since or later: its newest sample is that recent and differs from the
// one before it. An entity the server has been silent about since is not.
func (tr *Track) MovingSince(since uint32) bool {
	return tr.n >= 2 && int32(tr.sample(0).tick-since) >= 0 && tr.sample(0).t != tr.sample(1).t
}

// Newest returns the newest sample and its tick, and false when the track
// is empty.
func (tr *Track) Newest() (uint32, entity.Transform, bool) {
	if tr.n == 0 {
		return 0, entity.Transform{}, false
	}
	s := tr.sample(0)
	return s.tick, s.t, true
}

// At returns the pose at when, in server ticks: interpolated between the
// two samples around it (position and scale along a straight line, the
// angle along the shorter arc), the sample itself at a sample's tick, the
// newest sample from its tick on (which is where a stalled clock holds),
// and the oldest before it. It reports false, with a zero Transform, when
// the track is empty.
//
// When is taken relative to the newest sample's tick, and each sample's
// tick by its signed distance from that, so the arithmetic holds across a
// wrap of the tick counter.
func (tr *Track) At(when float64) (entity.Transform, bool) {
	if tr.n == 0 {
		return entity.Transform{}, false
	}
	later := tr.sample(0)
	rel := when - float64(later.tick) // ticks after the newest sample
	if !(rel < 0) {                   // NaN holds the newest too
		return later.t, true
	}
	newest, laterOff := later.tick, 0.0
	for i := 1; i < tr.n; i++ {
		s := tr.sample(i)
		off := float64(int32(s.tick - newest)) // ticks before the newest
		if rel >= off {
			return Lerp(s.t, later.t, (rel-off)/(laterOff-off)), true
		}
		later, laterOff = s, off
	}
	return later.t, true
}

// Lerp returns the pose f of the way from a to b, 0 ≤ f ≤ 1: a
// itself at f = 0. The angle turns by the wrapped difference, so a body
// crossing ±π turns through π rather than all the way round.
func Lerp(a, b entity.Transform, f float64) entity.Transform {
	return entity.Transform{
		X:     a.X + (b.X-a.X)*f,
		Y:     a.Y + (b.Y-a.Y)*f,
		Angle: wire.Wrap(a.Angle + wire.Wrap(b.Angle-a.Angle)*f),
		Scale: a.Scale + (b.Scale-a.Scale)*f,
	}
}
