package session

import (
	"math"
	"slices"

	"vkm/internal/entity"
	"vkm/replication"
)

// Another player's character is not simulated by a client: its own
// commands drive it, and they reach only the server. The store holds the
// server's newest word on it, which describes the moment the server ran
// the client tick that snapshot judged; the tick being predicted is a round
// trip and the server's queue later. Standing where it was told, the body
// is met where the other player was, the server resolves the meeting
// where the other player is, and the prediction is corrected.
//
// So for the length of each tick a client predicts (replays included), the
// body of every other character stands where its newest word, carried
// forward at the velocity that word gave, says it is by then: dead
// reckoning. Where it stands is a function of that word, the tick the word
// is of and the tick being run, so a replay of a tick from the same
// snapshots places it exactly where the first run did. Between ticks the
// store holds the server's word again: it is what drawing interpolates
// from, and what the next snapshot is read over.

// MaxReckon is the most ticks a client carries another character forward
// from its newest word. A word that old is one the server stopped sending
// (a far entity looked at less often, a burst of loss): guessing further
// is guessing.
const MaxReckon = 32

// reckoned is another character the client carries forward: the client
// tick its newest word is of (the tick the snapshot carrying it judged),
// what that word said of its run, the run it implies the player is
// holding, and, during a tick, the word itself, set aside.
type reckoned struct {
	id     entity.ID
	of     uint32
	vx     float64 // the word's velocity along x
	heard  bool    // vx and of are a word's (not only of)
	intent float64 // the run its player is taken to hold, -1..1
	free   bool    // its velocity changes as its controller changes it (see runIntent)
	t      entity.Transform
	rb     entity.Rigidbody
	ctl    entity.CharacterController
	held   bool
}

// heard notes, after a snapshot's entries are read and before it is
// judged, the characters it said something of, with the tick it judged,
// and what their words imply their players hold. A character it did not
// mention is where its last word left it, or out of the snapshot's reach:
// its word keeps its own tick.
func (c *Client) heard(sn *replication.Snapshot) {
	if !sn.HasCommands {
		return
	}
	st := c.game.Store()
	own := c.game.Own()
	step := c.game.Physics().Config().Step
	for k := range sn.Entries {
		id := sn.Entries[k].ID
		ctl, rb := st.Controller(id), st.Rigidbody(id)
		if id == own || ctl == nil || rb == nil {
			continue
		}
		i, found := slices.BinarySearchFunc(c.others, id, cmpReckoned)
		switch {
		case !found:
			c.others = slices.Insert(c.others, i, reckoned{id: id})
		case c.others[i].id != id:
			c.others[i] = reckoned{id: id} // a new occupant of the slot
		}
		r := &c.others[i]
		judged := sn.Commands.Judged
		if r.heard && judged > r.of {
			r.intent, r.free = runIntent(ctl, r.vx, rb.VX, float64(judged-r.of)*step, r.intent)
		}
		r.of, r.vx, r.heard = judged, rb.VX, true
	}
	c.others = slices.DeleteFunc(c.others, func(r reckoned) bool {
		return !st.Alive(r.id) || r.id == own || st.Controller(r.id) == nil || st.Rigidbody(r.id) == nil
	})
}

// runIntent is the run a side-view character's player is taken to hold,
// from its velocity along x in two words s seconds apart and the run taken
// before, and whether the character runs free: its velocity changes as
// its controller changes it, not held back by what it leans on. A
// controller moves the velocity toward the run times its speed by its
// acceleration: a change at about that rate is a run that way (or a stop,
// when it slows toward rest); full speed held is a full run. A velocity
// held below full speed says nothing of the run (a character standing, or
// leaning on something that does not give), nor does a change far faster
// than the controller's (a collision): the run taken before stands, until
// a change the controller would make says otherwise.
func runIntent(ctl *entity.CharacterController, v0, v1, s, was float64) (run float64, free bool) {
	if ctl.Mode != entity.SideView || ctl.Speed <= 0 {
		return 0, false
	}
	rate := math.Max(math.Max(ctl.Accel, ctl.AirAccel), 0) * s
	dv := v1 - v0
	const slack = 1e-3
	switch {
	case math.Abs(v1) >= ctl.Speed-slack && math.Abs(dv) <= slack:
		return math.Copysign(1, v1), true
	case math.Abs(dv) <= slack || math.Abs(dv) > rate+slack:
		return was, false
	case v1*v0 > 0 && math.Abs(v1) < math.Abs(v0):
		return 0, true // slowing toward rest
	default:
		return math.Copysign(1, dv), true
	}
}

func cmpReckoned(r reckoned, id entity.ID) int {
	switch {
	case r.id.Slot < id.Slot:
		return -1
	case r.id.Slot > id.Slot:
		return 1
	}
	return 0
}

// reckon stands every other character where it is by the start of the
// tick about to run, for its physics step and its behaviors, and runs its
// controller on the run its player is taken to hold, as the server will;
// unreckon puts the server's word back once the tick has run.
func (c *Client) reckon() {
	if !c.playing {
		return
	}
	g := c.game
	st := g.Store()
	step, gy := g.Physics().Config().Step, g.Physics().Config().GravityY
	for i := range c.others {
		r := &c.others[i]
		t, rb, ctl := st.Transform(r.id), st.Rigidbody(r.id), st.Controller(r.id)
		if t == nil || rb == nil || ctl == nil || g.Simulates(r.id) || !rb.Awake {
			continue
		}
		r.t, r.rb, r.ctl, r.held = *t, *rb, *ctl, true
		// The word is of the state after tick of; the tick about to run
		// starts from the state after the tick before it.
		n := min(max(int64(g.Tick())-1-int64(r.of), 0), MaxReckon)
		side := ctl.Mode == entity.SideView
		if !side {
			// Not run by a controller this end can follow: it goes on as
			// it was going.
			s := float64(n) * step
			t.X += rb.VX * s
			t.Y += rb.VY * s
			t.Angle += rb.AngularVelocity * s
			continue
		}
		accel := ctl.AirAccel
		if ctl.Grounded {
			accel = ctl.Accel
		}
		for range n {
			// Running free, it goes on as its controller takes it; held
			// back by what it leans on, as it was going. Off the ground,
			// it falls.
			if r.free {
				rb.VX = approachTo(rb.VX, r.intent*ctl.Speed, math.Max(accel, 0)*step)
			}
			if !ctl.Grounded {
				rb.VY += gy * step
			}
			t.X += rb.VX * step
			t.Y += rb.VY * step
		}
		g.Physics().Place(r.id, t, rb)
		ctl.Move(r.intent, 0)
		g.Physics().UpdateController(r.id, ctl, rb)
	}
}

// approachTo moves v toward target by at most step, as a side-view
// controller moves a velocity.
func approachTo(v, target, step float64) float64 {
	if v < target {
		return math.Min(v+step, target)
	}
	return math.Max(v-step, target)
}

func (c *Client) unreckon() {
	st := c.game.Store()
	for i := range c.others {
		r := &c.others[i]
		if !r.held {
			continue
		}
		r.held = false
		t, rb, ctl := st.Transform(r.id), st.Rigidbody(r.id), st.Controller(r.id)
		if t != nil && rb != nil && ctl != nil {
			*t, *rb, *ctl = r.t, r.rb, r.ctl
		}
	}
}
