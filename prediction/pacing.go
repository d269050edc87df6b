package prediction

import (
	"math"
	"time"
)

// Pacing constants.
const (
	// MaxBend is the most a Pacer bends how many ticks a second of wall time
	// buys, either way: 5%, room for clocks that drift by a few per cent
	// with some left to steer. It is also the most a server can do to a
	// client's clock, whatever it sends.
	MaxBend = 0.05

	// TargetBase is the cushion the pacer aims for on a quiet link: two
	// commands, one waiting behind the one that runs.
	TargetBase = 2

	// TargetMax caps the target at half the depth the server trims at, so
	// the cushion plus the jitter it is for never reaches the trim.
	TargetMax = MaxDepth / 2

	// IntegralShare is the integral gain as a share of the proportional
	// gain, per reading. Readings come with snapshots, 64 a second, so
	// 1/64 a reading is the proportional gain once a second. Taken as a
	// second-order loop, the damping ratio is then 1 / (2·√(τ / 1 s)),
	// τ = 2·rtt + 0.25 s being the proportional term's time constant: 0.9 at
	// a 30 ms round trip, 0.6 at 200 ms, damped wherever a session plays.
	// Swept on TestPacing's simulated link (20 seeds; 30-200 ms, ±3%,
	// 15 ms of jitter; and 10-300 ms, ±4%, 5-30 ms), twice this share rang
	// at a 200 ms round trip, and half of it and less settled a drifting
	// clock too slowly at 300 ms; this share lost nothing after the
	// warm-up on the first set. Tuning constant.
	IntegralShare = 1.0 / 64

	// paceGain and paceDevGain are the smoothing factors of the readings'
	// mean and deviation, as RFC 6298 smooths a round trip (α = 1/8,
	// β = 1/4): at 64 readings a second the mean follows within about a
	// sixth of a second.
	paceGain    = 1.0 / 8
	paceDevGain = 1.0 / 4

	// paceHorizon is the part of the proportional term's time constant
	// that is not round trips: the smoothing plus margin, in seconds.
	paceHorizon = 0.25
)

// Pacer steers a client's command rate so the server's queue of its
// commands runs a little above empty. The server reports in each snapshot
// the fewest commands its queue held at a tick since the last snapshot (the
// low water); the pacer smooths those readings, aims them at a target of
// 2 + 2 × their deviation (at most TargetMax), and answers with a bend: how
// many ticks a second of wall time buys, 1 ± MaxBend. The step a tick
// advances by never changes; only how often ticks happen does.
//
// The error (smoothed reading − target, in commands) drives a proportional
// term with gain 1 / (tickRate × (2 × rtt + 0.25 s)) — a bend of b for T
// seconds moves the queue by b × tickRate × T commands, so this closes the
// error over two round trips plus a quarter of a second, the loop's own
// delay with margin — and an integral term of IntegralShare of that gain a
// reading, which settles at the steady bend a drifting clock needs. The
// integral is held within ±MaxBend and does not grow while the bend is
// pinned at a bound by the error (anti-windup), so a start from an empty
// queue or a long outage does not leave it wound up.
//
// Bend is exactly 1 before the first reading and after Reset: offline, on a
// server, while joining and once disconnected a client ticks at the wall
// clock's pace. The zero value is ready to use. A Pacer is not safe for
// concurrent use.
type Pacer struct {
	have     bool
	last     uint8
	mean     float64
	dev      float64
	target   float64
	integral float64
	bend     float64 // the bend minus 1, so the zero value bends nothing
}

// Reset forgets every reading; Bend is 1 until the next Observe.
func (p *Pacer) Reset() { *p = Pacer{} }

// Observe takes one snapshot's low water with the connection's round trip
// and the tick rate. A reading above 15 is taken as 15, a negative round
// trip as 0; a tick rate below 1 is a programmer error and the reading is
// ignored.
func (p *Pacer) Observe(lowWater uint8, rtt time.Duration, tickRate int) {
	if tickRate < 1 {
		return
	}
	lowWater = min(lowWater, lowWaterMax)
	r := float64(lowWater)
	p.last = lowWater
	if !p.have {
		p.mean, p.dev, p.have = r, r/2, true
	} else {
		p.dev += paceDevGain * (math.Abs(p.mean-r) - p.dev)
		p.mean += paceGain * (r - p.mean)
	}
	p.target = min(TargetBase+2*p.dev, TargetMax)

	rtts := max(rtt, 0).Seconds()
	kp := 1 / (float64(tickRate) * (2*rtts + paceHorizon))
	e := p.mean - p.target // above the target: too fast, slow down
	// Integrate unless the bend is already at a bound the error pushes
	// it further past: an integral that grew while the output could not
	// follow would overshoot by as much when the error turned.
	i := clamp(p.integral+IntegralShare*kp*e, MaxBend)
	if out := -kp*e - i; math.Abs(out) > MaxBend && (out > 0) == (i < p.integral) {
		i = p.integral
	}
	p.integral = i
	p.bend = clamp(-kp*e-p.integral, MaxBend)
}

// clamp returns v held within ±lim.
func clamp(v, lim float64) float64 { return math.Max(-lim, math.Min(lim, v)) }

// Bend returns how many ticks a second of wall time buys, as a factor of
// the tick rate: 1 ± MaxBend, exactly 1 before the first reading.
func (p *Pacer) Bend() float64 { return 1 + p.bend }

// LowWater returns the last reading, 0 before the first.
func (p *Pacer) LowWater() uint8 { return p.last }

// Target returns the depth the pacer aims the readings at, 0 before the
// first reading.
func (p *Pacer) Target() float64 { return p.target }

// Mean returns the smoothed reading, 0 before the first.
func (p *Pacer) Mean() float64 { return p.mean }

// Deviation returns the smoothed deviation of the readings from their mean,
// 0 before the first.
func (p *Pacer) Deviation() float64 { return p.dev }
