package session

import (
	"math"
	"slices"

	"vkm/host/game"
	"vkm/internal/entity"
	"vkm/prediction"
)

// reconciler holds what a client predicted, tick by tick, and compares it
// with what the server says it computed for the same command.
type reconciler struct {
	pred prediction.Predictions
	cmds [prediction.HistorySize]tickCommand

	corrections   uint64
	replayed      uint64
	maxCorrection float64 // metres
	// maxError is the largest distance, in metres, between the own
	// entity's prediction for a judged tick and the server's answer,
	// whether it was corrected or not.
	maxError float64
}

// tickCommand is the command a client tick ran.
type tickCommand struct {
	tick uint32
	cmd  prediction.Command
	ok   bool
}

func (r *reconciler) recordCommand(tick uint32, c prediction.Command) {
	r.cmds[tick%prediction.HistorySize] = tickCommand{tick: tick, cmd: c, ok: true}
}

func (r *reconciler) command(tick uint32) (prediction.Command, bool) {
	tc := r.cmds[tick%prediction.HistorySize]
	return tc.cmd, tc.ok && tc.tick == tick
}

// recordPrediction runs after every tick this client predicts (replays
// included): it leases the bodies the character now pushes (its island, as
// the tick's contacts left it) and, while a leased body is still moving,
// that body and what it touches (its own island), then keeps the state of
// the own entity and of every leased body.
func (c *Client) recordPrediction(g *game.Game) {
	if !c.playing || !g.Store().Alive(g.Own()) {
		return
	}
	c.island = c.island[:0]
	join := func(id entity.ID) bool {
		if id == g.Own() || g.Store().Controller(id) != nil {
			// The own character is simulated anyway. Another player's:
			// its own commands drive it, which this end does not have.
			// It is drawn as the server says, like any player, and never
			// leased.
			return true
		}
		c.island = append(c.island, id)
		if _, ok := c.lastWord[id]; !ok {
			// Not simulated here until now: what it holds is the
			// server's word, to go back to when the lease lapses.
			c.lastWord[id] = c.body(id)
			// box2d solved the tick that just ran with this body in it,
			// at its real mass, as the server did; only the writeback was
			// skipped. Keep what it computed, or the lease would start by
			// putting the body back where the last snapshot had it.
			g.Physics().Adopt(id, g.Store().Transform(id), g.Store().Rigidbody(id))
		}
		return true
	}
	g.Physics().Island(g.Own(), join)
	// A leased body still moving stays this end's, and so does what it
	// touches: it moves on this end's prediction (a push, a shot) and the
	// server moves it the same way. Handed back while it moves, it is known
	// only from snapshots a round trip old when the character meets it
	// again; and a body it runs into that stays the server's is placed
	// every tick where the last snapshot had it, a wall to this end that
	// the server's world does not have. An island already searched is not
	// searched again.
	c.leases.Each(g.Tick(), func(id entity.ID) bool {
		if rb := g.Store().Rigidbody(id); rb != nil && rb.Awake && !slices.Contains(c.island, id) {
			c.island = append(c.island, id)
			g.Physics().Island(id, join)
		}
		return true
	})
	c.leases.Report(c.island, g.Tick())
	c.leases.Expired(g.Tick(), c.lapse)
	c.recordBody(g, g.Own())
	c.leases.Each(g.Tick(), func(id entity.ID) bool {
		c.recordBody(g, id)
		return true
	})
}

func (c *Client) recordBody(g *game.Game, id entity.ID) {
	t := g.Store().Transform(id)
	if t == nil {
		return
	}
	rb := entity.Rigidbody{}
	if b := g.Store().Rigidbody(id); b != nil {
		rb = *b
	}
	c.rec.pred.Record(g.Tick(), id, *t, rb)
}

// held is the predicted state of the own entity and the bodies it leases,
// set aside while a snapshot is read: either all of it goes back (the
// prediction stands) or none of it does.
type held struct {
	ok     bool
	bodies []heldBody
}

type heldBody struct {
	id entity.ID
	t  entity.Transform
	rb *entity.Rigidbody
}

func (c *Client) hold() held {
	g := c.game
	if !c.playing || !g.Store().Alive(g.Own()) {
		return held{}
	}
	h := held{ok: true, bodies: c.heldScratch[:0]}
	keep := func(id entity.ID) bool {
		if t := g.Store().Transform(id); t != nil {
			b := heldBody{id: id, t: *t}
			if rb := g.Store().Rigidbody(id); rb != nil {
				v := *rb
				b.rb = &v
			}
			h.bodies = append(h.bodies, b)
		}
		return true
	}
	keep(g.Own())
	c.leases.Each(g.Tick(), keep)
	c.heldScratch = h.bodies
	return h
}

// reconcile decides, once a snapshot judged one of this client's ticks,
// whether its prediction stands: within 3 mm the held prediction goes back
// (nothing is replayed); otherwise the server's answer stands and every
// tick since is run again from it, with is_replaying true.
func (c *Client) reconcile(h held, judged uint32) {
	g := c.game
	own := g.Own()
	if !h.ok || judged == 0 || !g.Store().Alive(own) {
		return
	}
	server := *g.Store().Transform(own)
	predicted, _, ok := c.rec.pred.At(judged, own)
	if ok {
		c.rec.maxError = math.Max(c.rec.maxError, prediction.Distance(predicted, server))
	}
	if ok && prediction.Agrees(predicted, server) {
		for _, b := range h.bodies {
			if t := g.Store().Transform(b.id); t != nil {
				*t = b.t
				if b.rb != nil {
					g.Store().SetRigidbody(b.id, b.rb)
				}
			}
		}
		return
	}
	c.rec.corrections++
	if ok {
		c.rec.maxCorrection = math.Max(c.rec.maxCorrection, prediction.Distance(predicted, server))
	}
	// The server's answer stands for the leased bodies too. A snapshot
	// carries only what changed, so a leased body it did not mention still
	// holds this end's prediction: it goes back to the server's last word.
	for _, b := range h.bodies {
		if w, ok := c.lastWord[b.id]; ok && b.id != own {
			if t := g.Store().Transform(b.id); t != nil {
				*t = w.t
			}
			if w.rb != nil {
				g.Store().SetRigidbody(b.id, w.rb)
			}
		}
	}
	// The first replayed tick asks the world questions before its physics
	// step gathers the components (the controller probes for ground, a
	// behavior casts a ray): the bodies must stand where the server's
	// answer has them, not where the mistaken prediction left them.
	for _, b := range h.bodies {
		g.Physics().Place(b.id, g.Store().Transform(b.id), g.Store().Rigidbody(b.id))
	}
	c.rec.replayed += uint64(g.Replay(judged+1, g.Tick(), c.rec.command, c.recordPrediction))
	g.UseOldCode(false)
	// The simulation took the correction at once; the picture eases into
	// it: where each body was about to be drawn, less where it now is,
	// becomes an offset that decays.
	for _, b := range h.bodies {
		if t := g.Store().Transform(b.id); t != nil {
			c.smooth.Correct(b.id, b.t, *t)
		}
	}
}

// Drawn calls draw with the smoothing offsets of the bodies this client
// predicts added to their Transforms, and takes them out again before it
// returns: drawing sees the eased picture, no tick ever simulates from it.
//
// Entities this client does not simulate are drawn interpolated, behind
// the server's newest word (see interpolation), for the same length.
func (c *Client) Drawn(draw func()) {
	c.interpolate()
	c.blendPredicted()
	defer c.restore()
	c.smooth.Draw(c.game.Store().Transform, draw)
}

// body returns id's pose and motion as they stand.
func (c *Client) body(id entity.ID) heldBody {
	st := c.game.Store()
	b := heldBody{id: id}
	if t := st.Transform(id); t != nil {
		b.t = *t
	}
	if rb := st.Rigidbody(id); rb != nil {
		v := *rb
		b.rb = &v
	}
	return b
}

// lapse hands a body this client stopped leasing back to the server's last
// word for it, easing the picture across the difference: the server holds
// that word confirmed and will not say it again.
func (c *Client) lapse(id entity.ID) {
	w, ok := c.lastWord[id]
	delete(c.lastWord, id)
	st := c.game.Store()
	t := st.Transform(id)
	if !ok || t == nil {
		return
	}
	c.smooth.Correct(id, *t, w.t)
	*t = w.t
	c.resetTrack(id)
	if w.rb != nil {
		st.SetRigidbody(id, w.rb)
	}
}

// leaseNow leases id from this tick on, as a push would: a behavior of
// what this client simulates (its own character's shot) acted on it, so the
// server's next word on it will carry that act, and predicting it keeps the
// picture and the character's prediction exact.
func (c *Client) leaseNow(id entity.ID) {
	g := c.game
	if _, ok := c.lastWord[id]; !ok {
		c.lastWord[id] = c.body(id)
	}
	c.leases.Report([]entity.ID{id}, g.Tick())
}
