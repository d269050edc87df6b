package session

import (
	"math"
	"time"

	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
)

// interpolation draws every entity this client does not simulate between
// two poses the server sent, a little behind the newest (see
// prediction.Interp), and further behind for an entity the server
// mentions less often than every snapshot (see drawnTrack); across a gap
// longer than that it carries a mover on by its velocity for a while
// (prediction.Track.Draw) rather than drawing it frozen. The store always
// holds the server's newest word for those entities, so a snapshot's
// "unchanged" means unchanged from what the server said and the physics
// steps against the server's present; the drawn poses are written only
// for the length of a Drawn call.
type interpolation struct {
	clock     *prediction.Interp
	tracks    map[entity.ID]*drawnTrack
	tickRate  float64
	newestAt  transport.Time // when the newest snapshot arrived
	prevTick  uint32         // the snapshot before the newest
	haveTicks bool
	saved     []savedPose
	snapshots uint64 // snapshots taken, in order, since the session began
	// stalls counts the frames in which something moving was drawn
	// frozen: the clock held, or a mover carried on past its newest pose
	// as far as it may go. A settled world's snapshots come every fourth
	// round, and the clock catching up with them while nothing moves is
	// no pause at all. extrapolated counts the frames in which a mover was
	// drawn carried on past its newest pose by its velocity.
	stalls       uint64
	extrapolated uint64
}

// drawnTrack is one entity's track, how far behind the interpolation
// clock it is drawn, and the offset that eases its drawing across a new
// sample.
//
// The lag follows the entity's own update interval: a body the server
// mentions every seventh snapshot is drawn about five snapshots further
// back than one mentioned in every snapshot, so it is drawn between two
// poses the server gave rather than past the newest. It eases toward its
// target at most InterpMaxBend of the frame's ticks a frame, so the body
// speeds up or slows down by at most that and never skips.
//
// When a pose arrives, what was drawn a moment ago (carried on by its
// velocity, say) and what is drawn from the new sample may differ; the
// difference is drawn on and decays.
//
// A shot is still judged at the clock's time (drawnTime): a character
// the server mentions less often than every snapshot is drawn up to its
// lag earlier than that, which lag compensation does not see. In a world
// whose budget covers every player each snapshot, as the arena's does,
// every character's lag is zero.
type drawnTrack struct {
	prediction.Track
	lag        float64 // ticks
	dx, dy, da float64
}

// Extrapolation and blending. A body the server mentions only every few
// snapshots (its byte budget is shared among more movers than a snapshot
// holds) is usually past its newest pose at the drawn time; it is carried
// on by its velocity for a bounded time rather than drawn frozen.
const (
	// ExtrapolateIntervals is how many of a body's own update intervals
	// it may be carried on past its newest pose, within ExtrapolateMin and
	// ExtrapolateMax: long enough to bridge a gap somewhat longer than
	// usual, short enough that a body the server stopped mentioning (out
	// of reach, or gone) is not drawn wandering off.
	ExtrapolateIntervals = 3
	ExtrapolateMin       = 200 * time.Millisecond
	ExtrapolateMax       = 250 * time.Millisecond

	// ExtrapolateNew is how long a body whose update interval has not
	// settled (prediction.Track.Settled) may be carried on: one a client
	// has just heard of, for the first time since it joined or came within
	// reach. Until the server has described the rest of a crowded world
	// once it does not come back to that body, which on bench/orbits takes
	// over half a second; and the gaps it is heard at meanwhile are uneven
	// (a tick or two, then twenty), so the interval they measure does not
	// say how long the next gap will be.
	ExtrapolateNew = time.Second

	// BlendTime is the time constant, in seconds, over which the
	// difference between a body's drawn pose and its pose from a sample
	// just arrived decays. A carried-on body is a centimetre or two off
	// where the next sample puts it; eased over a tenth of a second that
	// is drawn as motion, not as a skip. Tuning constant.
	BlendTime = 0.1

	// MaxLag is the furthest, in seconds, an entity heard from rarely is
	// drawn behind the interpolation clock: how stale a picture of a
	// crowded world may be before carrying it on is preferred.
	MaxLag = 0.5

	// stallWindow is how long, in seconds, a mover's silence is counted
	// as a stall once it is past its limit: beyond it the server has
	// stopped mentioning it (out of reach), which is not a pause.
	stallWindow = 1.0
)

// limit is how many ticks tr may be carried on past its newest pose. A
// body whose interval has not settled is given ExtrapolateNew.
func (ip *interpolation) limit(tr *drawnTrack) float64 {
	if !tr.Settled() {
		return ExtrapolateNew.Seconds() * ip.tickRate
	}
	lo := ExtrapolateMin.Seconds() * ip.tickRate
	hi := ExtrapolateMax.Seconds() * ip.tickRate
	return min(max(ExtrapolateIntervals*tr.Interval(), lo), hi)
}

// lagTarget is how many ticks behind the clock tr is best drawn: its
// update interval beyond what the clock's delay already covers.
func (ip *interpolation) lagTarget(tr *drawnTrack) float64 {
	return min(max(tr.Interval()-ip.clock.Delay(), 0), MaxLag*ip.tickRate)
}

// draw returns where tr is drawn now, the easing offset added.
func (ip *interpolation) draw(tr *drawnTrack) entity.Transform {
	p, _ := tr.Draw(ip.clock.Time()-tr.lag, ip.limit(tr))
	if tr.dx != 0 || tr.dy != 0 || tr.da != 0 {
		p.X += tr.dx
		p.Y += tr.dy
		p.Angle = wrapAngle(p.Angle + tr.da)
	}
	return p
}

// wrapAngle returns a in radians brought into [−π, π].
func wrapAngle(a float64) float64 { return math.Remainder(a, 2*math.Pi) }

// advance moves the clock on by a frame, eases every offset, and counts a
// frame in which a mover was drawn frozen or carried on. simulates says
// which entities this end predicts rather than draws; alive says which are
// still in the world. A track lives as long as its entity: the track of one
// destroyed (a player who left, a body the game removed) is dropped here,
// whether or not a frame was drawn since, since its newest pose was a
// mover's and would otherwise count as a body frozen mid-stride until its
// silence ran past stallWindow.
func (ip *interpolation) advance(dt time.Duration, simulates, alive func(entity.ID) bool) {
	ip.clock.Advance(dt)
	for id := range ip.tracks {
		if !alive(id) {
			delete(ip.tracks, id)
		}
	}
	if dt <= 0 || !ip.haveTicks {
		return
	}
	k := math.Exp(-dt.Seconds() / BlendTime)
	bend := prediction.InterpMaxBend * dt.Seconds() * ip.tickRate
	clock, held := ip.clock.Time(), ip.clock.Held()
	window := stallWindow * ip.tickRate
	frozen, ahead := false, false
	for id, tr := range ip.tracks {
		if tr.dx != 0 || tr.dy != 0 || tr.da != 0 {
			tr.dx, tr.dy, tr.da = tr.dx*k, tr.dy*k, tr.da*k
			if math.Abs(tr.dx) < prediction.SmoothEpsilon && math.Abs(tr.dy) < prediction.SmoothEpsilon &&
				math.Abs(tr.da) < prediction.SmoothAngleEpsilon {
				tr.dx, tr.dy, tr.da = 0, 0, 0
			}
		}
		target := ip.lagTarget(tr)
		tr.lag = min(max(target, tr.lag-bend), tr.lag+bend)
		at := clock - tr.lag
		if (frozen && ahead) || !tr.NewestMoving() || tr.Silence(at) > window || simulates(id) {
			continue
		}
		switch tr.Drawing(at, ip.limit(tr)) {
		case prediction.Held:
			frozen = true
		case prediction.Ahead:
			ahead = true
			frozen = frozen || held // carried on, but the clock stood still
		default:
			frozen = frozen || held
		}
	}
	if frozen {
		ip.stalls++
	}
	if ahead {
		ip.extrapolated++
	}
}

type savedPose struct {
	id entity.ID
	t  entity.Transform
}

func newInterpolation(tickRate int) interpolation {
	clock := prediction.NewInterp(tickRate, SnapshotRate)
	// The clock may run into what the tracks carry on by velocity, as far
	// as the shortest carrying allowed, so a snapshot late by less (a
	// server's tick that overran, a burst of loss) is drawn through rather
	// than paused on; but not so far that, with the longest delay behind
	// it, the clock would be more than InterpJumpTicks off its target when
	// the snapshot comes, and be set back rather than eased.
	interval := max(1, float64(tickRate)/SnapshotRate)
	clock.Lead = min(ExtrapolateMin.Seconds()*float64(tickRate),
		prediction.InterpJumpTicks-prediction.InterpMaxDelay*interval-1)
	return interpolation{
		clock:    clock,
		tracks:   map[entity.ID]*drawnTrack{},
		tickRate: float64(tickRate),
	}
}

// arrived takes a snapshot that was just applied: the clock hears when it
// came, and every entity it moved that this end does not simulate gains a
// sample at its tick, with the velocity the server gave it. Where the new
// sample changes where the entity is drawn at this moment, the difference
// is kept as its offset and eased out, unless it is longer than Teleport
// (a respawn), which is drawn as it is.
func (c *Client) arrived(sn *replication.Snapshot, now transport.Time) {
	ip := &c.interp
	if ip.haveTicks && sn.Tick <= ip.clock.Newest() {
		return // late and overtaken: its poses were already superseded
	}
	prev := ip.clock.Newest()
	ip.clock.Arrive(sn.Tick, time.Duration(now))
	ip.snapshots++
	if sn.HasCommands && c.oldCodeBefore != 0 && sn.Commands.Judged+1 >= c.oldCodeBefore {
		// Replays start after the judged tick: none reaches back before
		// the reload any more.
		c.game.ForgetOldCode()
		c.oldCodeBefore = 0
	}
	ip.newestAt = now
	if ip.haveTicks {
		ip.prevTick = prev
	}
	g := c.game
	if t := g.Store().Transform(g.Own()); t != nil && sn.Own == g.Own() {
		// What the server said of the own entity, before reconciliation
		// puts the prediction back: the view's ghost.
		c.ghost, c.ghostSet = *t, true
	}
	perTick := 1 / ip.tickRate
	for i := range sn.Entries {
		e := &sn.Entries[i]
		c.sawInspected(e.ID, sn.Tick)
		// A body that stops may be said to in its Rigidbody alone: its
		// pose has not changed since, but the track must hear that it no
		// longer moves, or it would be carried on.
		if !(e.Has(replication.TypeTransform) || e.Has(replication.TypeRigidbody)) || g.Simulates(e.ID) {
			continue
		}
		t := g.Store().Transform(e.ID)
		if t == nil {
			continue
		}
		tr := ip.tracks[e.ID]
		fresh := tr == nil || tr.Len() == 0 || !ip.haveTicks
		if tr == nil {
			tr = &drawnTrack{}
			ip.tracks[e.ID] = tr
		}
		var before entity.Transform
		if !fresh {
			before = ip.draw(tr)
		}
		// An entity at rest the server was silent about stood still until
		// the snapshot before this one: say so, or the track would glide
		// from its old pose across the whole silence. A mover's silence
		// is rounds it was not written (deferred, or out of reach): it
		// went on moving, so the track goes straight to where it is now.
		if tick, last, ok := tr.Newest(); ok && ip.haveTicks && tick < ip.prevTick && !tr.NewestMoving() {
			tr.Add(ip.prevTick, last)
		}
		var v prediction.Velocity
		if rb := g.Store().Rigidbody(e.ID); rb != nil {
			v = prediction.Velocity{X: rb.VX * perTick, Y: rb.VY * perTick, Angle: rb.AngularVelocity * perTick}
		}
		tr.AddVelocity(sn.Tick, *t, v)
		if !fresh {
			ip.ease(tr, before)
		}
	}
	ip.haveTicks = true
}

// ease keeps tr drawn where it was, before, as its track has just changed
// under it: the difference goes into its offset, to decay from there.
func (ip *interpolation) ease(tr *drawnTrack, before entity.Transform) {
	after := ip.draw(tr)
	dx, dy := before.X-after.X, before.Y-after.Y
	if math.IsNaN(dx) || math.IsNaN(dy) || math.Hypot(tr.dx+dx, tr.dy+dy) > Teleport {
		tr.dx, tr.dy, tr.da = 0, 0, 0 // a respawn: drawn where it is
		return
	}
	tr.dx += dx
	tr.dy += dy
	tr.da = wrapAngle(tr.da + wrapAngle(before.Angle-after.Angle))
}

// resetTrack starts id's track again from the pose the store holds now,
// the server's newest word: a body handed back when its lease lapses has
// samples only from before it was leased, and interpolating those would
// draw it where it stood before the push.
func (c *Client) resetTrack(id entity.ID) {
	ip := &c.interp
	t := c.game.Store().Transform(id)
	if t == nil || !ip.haveTicks {
		delete(ip.tracks, id)
		return
	}
	tr := &drawnTrack{}
	tr.Add(ip.clock.Newest(), *t)
	ip.tracks[id] = tr
}

// drawnTime is the server tick, with its fraction, that this client draws
// the entities it does not simulate at: what a shot fired now was aimed
// at, which the server rewinds to.
func (c *Client) drawnTime() float64 {
	if !c.interp.haveTicks {
		return 0
	}
	return c.interp.clock.Time()
}

// lookBehind is how many ticks behind the server's present this client
// draws: the newest snapshot's tick, plus the time since it came and half
// a round trip, less where the interpolation clock stands.
func (c *Client) lookBehind(now transport.Time) float64 {
	ip := &c.interp
	if !ip.haveTicks {
		return 0
	}
	var rtt time.Duration
	if conn := c.net.Conn(); conn != nil {
		rtt = conn.RTT()
	}
	since := time.Duration(now-ip.newestAt) + rtt/2
	present := float64(ip.clock.Newest()) + since.Seconds()*float64(c.game.Project().TickRate)
	return present - ip.clock.Time()
}

// interpolate writes each tracked entity's pose at the interpolation
// clock into the store, remembering what it held; restore puts it back.
func (c *Client) interpolate() {
	ip := &c.interp
	g := c.game
	ip.saved = ip.saved[:0]
	if !ip.haveTicks {
		return
	}
	for id, tr := range ip.tracks {
		t := g.Store().Transform(id)
		if t == nil {
			delete(ip.tracks, id) // gone: its track goes with it
			continue
		}
		if g.Simulates(id) {
			continue // leased now: drawn from the prediction
		}
		if tr.Len() > 0 {
			ip.saved = append(ip.saved, savedPose{id, *t})
			*t = ip.draw(tr)
		}
	}
}

func (c *Client) restore() {
	for _, s := range c.interp.saved {
		if t := c.game.Store().Transform(s.id); t != nil {
			*t = s.t
		}
	}
	c.interp.saved = c.interp.saved[:0]
}

// blendPredicted draws the bodies this client predicts (its own character
// and what it leases) between the tick before and the tick just run, by
// how far the clock has gone into the next: frames come faster than ticks,
// and a body drawn at the last tick's pose would move in tick-sized steps
// and stand still in between. It costs at most one tick of latency in the
// picture, never in the simulation. A step longer than Teleport (a
// respawn) is drawn as it is.
func (c *Client) blendPredicted() {
	g := c.game
	if !c.playing || !g.Store().Alive(g.Own()) {
		return
	}
	alpha := g.Clock().Alpha()
	if alpha >= 1 || alpha < 0 {
		return
	}
	blend := func(id entity.ID) bool {
		t := g.Store().Transform(id)
		prev, _, ok := c.rec.pred.At(g.Tick()-1, id)
		if t == nil || !ok || math.Hypot(t.X-prev.X, t.Y-prev.Y) > Teleport {
			return true
		}
		c.interp.saved = append(c.interp.saved, savedPose{id, *t})
		*t = prediction.Lerp(prev, *t, alpha)
		return true
	}
	blend(g.Own())
	c.leases.Each(g.Tick(), blend)
}

// Teleport is the farthest a character can move in one tick by running or
// falling; a longer step is a respawn and is not counted as travel.
const Teleport = 2.0
