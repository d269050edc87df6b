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
// prediction.Interp). The store always holds the server's newest word for
// those entities, so a snapshot's "unchanged" means unchanged from what
// the server said and the physics steps against the server's present; the
// interpolated poses are written only for the length of a Drawn call.
type interpolation struct {
	clock     *prediction.Interp
	tracks    map[entity.ID]*prediction.Track
	newestAt  transport.Time // when the newest snapshot arrived
	prevTick  uint32         // the snapshot before the newest
	haveTicks bool
	saved     []savedPose
	snapshots uint64 // snapshots taken, in order, since the session began
	// stalls counts the frames the clock held at the newest snapshot while
	// something it draws was moving: a pause the player could see. A
	// settled world's snapshots come every fourth round, and the clock
	// catching up with them while nothing moves is no pause at all.
	stalls uint64
}

// advance moves the clock on by a frame and counts a stall the player
// could see.
func (ip *interpolation) advance(dt time.Duration) {
	ip.clock.Advance(dt)
	if !ip.clock.Held() {
		return
	}
	for _, tr := range ip.tracks {
		if tr.MovingSince(ip.prevTick) {
			ip.stalls++
			return
		}
	}
}

type savedPose struct {
	id entity.ID
	t  entity.Transform
}

func newInterpolation(tickRate int) interpolation {
	return interpolation{
		clock:  prediction.NewInterp(tickRate, SnapshotRate),
		tracks: map[entity.ID]*prediction.Track{},
	}
}

// arrived takes a snapshot that was just applied: the clock hears when it
// came, and every entity it moved that this end does not simulate gains a
// sample at its tick.
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
	for i := range sn.Entries {
		e := &sn.Entries[i]
		if !e.Has(replication.TypeTransform) || g.Simulates(e.ID) {
			continue
		}
		t := g.Store().Transform(e.ID)
		if t == nil {
			continue
		}
		tr := ip.tracks[e.ID]
		if tr == nil {
			tr = &prediction.Track{}
			ip.tracks[e.ID] = tr
		}
		// An entity at rest the server was silent about stood still until
		// the snapshot before this one: say so, or the track would glide
		// from its old pose across the whole silence. A mover's silence
		// is rounds it was not written (deferred, or out of reach): it
		// went on moving, so the track goes straight to where it is now.
		if tick, last, ok := tr.Newest(); ok && ip.haveTicks && tick < ip.prevTick && !tr.NewestMoving() {
			tr.Add(ip.prevTick, last)
		}
		rb := g.Store().Rigidbody(e.ID)
		tr.AddMotion(sn.Tick, *t, rb != nil && (rb.VX != 0 || rb.VY != 0 || rb.AngularVelocity != 0))
	}
	ip.haveTicks = true
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
	tr := &prediction.Track{}
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
	at := ip.clock.Time()
	for id, tr := range ip.tracks {
		t := g.Store().Transform(id)
		if t == nil {
			delete(ip.tracks, id) // gone: its track goes with it
			continue
		}
		if g.Simulates(id) {
			continue // leased now: drawn from the prediction
		}
		if p, ok := tr.At(at); ok {
			ip.saved = append(ip.saved, savedPose{id, *t})
			*t = p
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
