package session

import (
	"math"
	"slices"

	"vkm/host/session/netmsg"
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
// forward at the velocity that word gave, on the run its player holds (the
// run the server relayed, see relay.go, or else the one its words imply),
// says it is by then: dead reckoning, landing on the level it falls onto
// and stopped where it meets this client's own character as predicted.
// Where the client's own steps carried it as the server did (the step of
// the word's tick had it where the word says), or carried it from that
// same word, it goes on from where the last step left it instead, having
// met the ball and the other characters as box2d has them meet (see
// carried). Where it stands is a function of that word, the tick the word
// is of, the run, the own character's predictions, the steps kept since
// and the tick being run: a replay of a tick given the same places it
// exactly where the first run did. Between ticks the
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
	// post is where the last tick this client ran (postTick) left it,
	// carried, before the server's word went back (revise.go).
	post     entity.Transform
	postRB   entity.Rigidbody
	postTick uint32
	// relayOf is the client tick of the snapshot that last relayed the
	// intent its player gave it (0: none has): intent is that one.
	relayOf uint32
	// stepped is where the physics step of each of the last stepRing
	// ticks this client ran left it (see carried).
	stepped [stepRing]steppedPose
}

// stepRing is how many ticks of a carried character's stepped poses a
// client keeps: as many as it carries a word forward, and as many again
// for the round trip a word of them comes back in.
const stepRing = 2 * MaxReckon

// steppedPose is a carried character's pose and motion after the physics
// step of tick, rounded as the wire rounds them.
type steppedPose struct {
	tick uint32
	of   uint32 // the client tick of the word it was carried from
	t    entity.Transform
	rb   entity.Rigidbody
}

// heard notes, after a snapshot's entries are read and before it is
// judged, the characters it said something of, with the tick it judged,
// and what their players hold: the intent the snapshot relayed for a
// character near this client's own, what its words imply for any other. A
// character it did not mention is where its last word left it, or out of
// the snapshot's reach: its word keeps its own tick.
func (c *Client) heard(sn *replication.Snapshot, relay netmsg.Relay) {
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
		e, relayed := relayedIntent(relay, id)
		switch {
		case relayed && judged >= r.relayOf:
			free := true
			if r.heard && judged > r.of {
				free = runsFree(ctl, r.vx, rb.VX, float64(judged-r.of)*step, e.MoveX)
			}
			r.intent, r.free, r.relayOf = e.MoveX, free, judged
		case r.heard && judged > r.of:
			r.intent, r.free = runIntent(ctl, r.vx, rb.VX, float64(judged-r.of)*step, r.intent)
		}
		r.of, r.vx, r.heard = judged, rb.VX, true
	}
	// A character the snapshot relayed but did not describe moves as it
	// was (the server has nothing new to say of it) on the run relayed.
	for _, e := range relay {
		i, found := slices.BinarySearchFunc(c.others, e.ID, cmpReckoned)
		if !found {
			continue
		}
		if r := &c.others[i]; r.id == e.ID && sn.Commands.Judged > r.relayOf {
			r.intent, r.relayOf = e.MoveX, sn.Commands.Judged
		}
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

// relayedIntent returns the intent relay holds for id.
func relayedIntent(relay netmsg.Relay, id entity.ID) (netmsg.Intent, bool) {
	for _, e := range relay {
		if e.ID == id {
			return e, true
		}
	}
	return netmsg.Intent{}, false
}

// runsFree reports whether a side-view character's velocity along x went
// from v0 to v1 in s seconds as its controller takes it on run, the
// intent its player gave it: otherwise something it leans on or ran into
// holds it back, and it is carried on as it was going (see reckon).
// Velocities travel to the hundredth of a metre a second, so the two may
// differ by that much.
func runsFree(ctl *entity.CharacterController, v0, v1, s, run float64) bool {
	if ctl.Mode != entity.SideView || ctl.Speed <= 0 {
		return false
	}
	accel := ctl.AirAccel
	if ctl.Grounded {
		accel = ctl.Accel
	}
	const slack = 0.02
	return math.Abs(v1-approachTo(v0, run*ctl.Speed, math.Max(accel, 0)*s)) <= slack
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
		if s, ok := r.carried(g.Tick(), n); ok {
			// The step carried it as the server did, up to its word: it
			// goes on from where the last tick's step left it, having met
			// whatever that step had it meet.
			*t, *rb = s.t, s.rb
			g.Physics().Place(r.id, t, rb)
			ctl.Move(r.intent, 0)
			g.Physics().UpdateController(r.id, ctl, rb)
			continue
		}
		meet := c.meeting(r.id)
		grounded := ctl.Grounded
		for i := range n {
			// Running free, it goes on as its controller takes it; held
			// back by what it leans on, as it was going. Off the ground,
			// it falls, and lands on what it falls onto.
			accel := ctl.AirAccel
			if grounded {
				accel = ctl.Accel
			}
			if r.free {
				rb.VX = approachTo(rb.VX, r.intent*ctl.Speed, math.Max(accel, 0)*step)
			}
			if !grounded {
				rb.VY += gy * step
			}
			x0, y0 := t.X, t.Y
			t.X += rb.VX * step
			t.Y += rb.VY * step
			if !grounded && rb.VY < 0 {
				if y, ok := meet.land(r.id, y0, t); ok {
					t.Y, rb.VY, grounded = y, 0, true
				}
			}
			if x, ok := meet.wall(r.id, x0, t); ok {
				t.X, rb.VX = x, 0
			}
			meet.stop(r.of+uint32(i)+1, x0, y0, t, rb)
		}
		g.Physics().Place(r.id, t, rb)
		ctl.Move(r.intent, 0)
		g.Physics().UpdateController(r.id, ctl, rb)
	}
}

// meeting is what a carried character may run into on its way: this
// client's own character, as this client predicted it tick by tick, and
// the extents of the two bodies. The word a character is carried from
// says nothing of the own character in the ticks since, and carried
// through it, the character would stand inside it by the tick predicted,
// where the server had the two meet ticks before and stop each other.
type meeting struct {
	c          *Client
	ok, boxed  bool // the own character can be met; the carried one has a box
	own        entity.ID
	ownBox     box
	box        box
	mass, ownM float64
}

// box is a body's extent in its own frame, sensors left out.
type box struct{ minX, minY, maxX, maxY float64 }

// gap is how far apart box2d holds two polygons that press on each
// other: each is rounded by twice the linear slop (1 cm), less the slop
// it lets them overlap. touching is the farthest apart two polygons are
// found in contact.
const (
	gap      = 0.015
	touching = 0.02
)

func (c *Client) meeting(id entity.ID) meeting {
	g := c.game
	st := g.Store()
	own := g.Own()
	m := meeting{c: c, own: own}
	var ok1, ok2 bool
	m.ownBox, ok1 = bodyBox(st.Body(own))
	m.box, ok2 = bodyBox(st.Body(id))
	m.mass, m.ownM = g.Physics().Mass(id), g.Physics().Mass(own)
	m.ok = ok1 && ok2 && m.mass > 0 && m.ownM > 0 && !own.IsNone()
	m.boxed = ok2
	return m
}

// land returns where a character falling from y0 to t.Y in a tick stands
// on the level when it meets it on the way: a static body under its feet
// (under either side or the middle), where box2d rests it.
func (m *meeting) land(id entity.ID, y0 float64, t *entity.Transform) (float64, bool) {
	if !m.boxed {
		return 0, false
	}
	g := m.c.game
	st := g.Store()
	from, to := y0+m.box.minY+probeUp, t.Y+m.box.minY
	best, found := 0.0, false
	for _, x := range [3]float64{m.box.minX + probeInset, (m.box.minX + m.box.maxX) / 2, m.box.maxX - probeInset} {
		hit, ok := g.Physics().RayCast(t.X+x, from, t.X+x, to, id)
		if !ok {
			continue
		}
		if b := st.Body(hit.Entity); b == nil || b.Type != entity.Static {
			continue
		}
		if y := hit.Y - m.box.minY + gap; !found || y > best {
			best, found = y, true
		}
	}
	return best, found
}

// wall returns where a character moving from x0 to t.X in a tick stands
// against the level when it runs into it on the way: a static body
// ahead of its leading side (at its knees, middle or head), where box2d
// rests it. A character carried through a wall would stand inside it,
// and the step would throw it out sideways into whatever stands beside
// it: the own character, as often as not.
func (m *meeting) wall(id entity.ID, x0 float64, t *entity.Transform) (float64, bool) {
	if !m.boxed || t.X == x0 {
		return 0, false
	}
	g := m.c.game
	st := g.Store()
	edge := m.box.maxX
	if t.X < x0 {
		edge = m.box.minX
	}
	back := math.Copysign(probeUp, x0-t.X)
	from, to := x0+edge+back, t.X+edge
	best, found := 0.0, false
	for _, y := range [3]float64{m.box.minY + probeInset, (m.box.minY + m.box.maxY) / 2, m.box.maxY - probeInset} {
		hit, ok := g.Physics().RayCast(from, t.Y+y, to, t.Y+y, id)
		if !ok {
			continue
		}
		if b := st.Body(hit.Entity); b == nil || b.Type != entity.Static {
			continue
		}
		x := hit.X - edge - math.Copysign(gap, t.X-x0)
		if !found || math.Abs(x-x0) < math.Abs(best-x0) {
			best, found = x, true
		}
	}
	return best, found
}

// probeUp and probeInset place land's rays: from a little above the feet,
// and in from the sides so a wall is not a floor.
const (
	probeUp    = 0.05
	probeInset = 0.05
)

// stop has a character carried through tick meet the own character as
// box2d would: bodies touching when the tick starts (the own character
// where this client predicted it by the tick before) and closing on each
// other go on at the speed their momentum shares, and end the tick
// touching, not one inside the other; bodies apart when it starts do not
// meet within it (the step finds contacts before it moves anything).
// Only a meeting side by side is followed (the two overlap less along x
// than along y): one falling onto the other's head is left to the tick's
// own step. (x0, y0) is where the character
// was before the tick, t and rb where the tick took it.
func (m *meeting) stop(tick uint32, x0, y0 float64, t *entity.Transform, rb *entity.Rigidbody) {
	if !m.ok {
		return
	}
	pre, preRB, ok := m.c.rec.pred.At(tick-1, m.own)
	if !ok {
		return
	}
	post, _, ok := m.c.rec.pred.At(tick, m.own)
	if !ok {
		return
	}
	if y0+m.box.minY >= pre.Y+m.ownBox.maxY || y0+m.box.maxY <= pre.Y+m.ownBox.minY {
		m.stack(x0, y0, pre, post, preRB, t, rb) // one above the other (stack.go)
		return
	}
	left := x0 < pre.X
	var apart float64
	if left {
		apart = pre.X + m.ownBox.minX - (x0 + m.box.maxX)
	} else {
		apart = x0 + m.box.minX - (pre.X + m.ownBox.maxX)
	}
	over := math.Min(y0+m.box.maxY, pre.Y+m.ownBox.maxY) - math.Max(y0+m.box.minY, pre.Y+m.ownBox.minY)
	if apart > touching || -apart > over {
		return // apart, or one over the other (less deep that way)
	}
	if closing := rb.VX - preRB.VX; left && closing > 0 || !left && closing < 0 {
		rb.VX = (m.mass*rb.VX + m.ownM*preRB.VX) / (m.mass + m.ownM)
	}
	if left {
		t.X = math.Min(t.X, post.X+m.ownBox.minX-gap-m.box.maxX)
	} else {
		t.X = math.Max(t.X, post.X+m.ownBox.maxX+gap-m.box.minX)
	}
}

// bodyBox returns the extent of def's solid shapes in the body's frame.
func bodyBox(def *entity.BodyDef) (box, bool) {
	if def == nil {
		return box{}, false
	}
	b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	add := func(x, y float64) {
		b.minX, b.maxX = math.Min(b.minX, x), math.Max(b.maxX, x)
		b.minY, b.maxY = math.Min(b.minY, y), math.Max(b.maxY, y)
	}
	for _, sh := range def.Shapes {
		if sh.Sensor {
			continue
		}
		o := sh.Offset
		switch sh.Kind {
		case entity.Box:
			sin, cos := math.Sincos(sh.Angle)
			for _, p := range [4]entity.Vec2{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}} {
				x, y := p.X*sh.W/2, p.Y*sh.H/2
				add(o.X+x*cos-y*sin, o.Y+x*sin+y*cos)
			}
		case entity.Circle:
			add(o.X-sh.Radius, o.Y-sh.Radius)
			add(o.X+sh.Radius, o.Y+sh.Radius)
		case entity.Polygon:
			for _, p := range sh.Points {
				add(o.X+p.X, o.Y+p.Y)
			}
		}
	}
	return b, b.minX <= b.maxX
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
			r.post, r.postRB, r.postTick = *t, *rb, c.game.Tick()
			s := steppedPose{tick: c.game.Tick(), of: r.of, t: *t, rb: *rb}
			if c.game.Physics().Adopt(r.id, &s.t, &s.rb) {
				r.stepped[s.tick%stepRing] = s
			}
			*t, *rb, *ctl = r.t, r.rb, r.ctl
		}
	}
}

// Tolerances of carried: how near, in metres and metres a second, the
// step's pose of a character must be to its word for the two to agree.
// The wire rounds to the millimetre and the centimetre a second; the rest
// is what the own prediction's small errors move it by. Tuning constants.
const (
	agreeAt  = 0.01
	agreeVel = 0.1
)

// carried returns where the physics step of the tick before tick left the
// character, when that step carried it from a word n ticks old that the
// client may go on from: the same word as now (a replay, or a tick with no
// snapshot between), or an older one whose steps agreed with the newest
// word, the step of the word's own tick having had it where the word says,
// at the word's velocity. Such a character is carried on by the physics,
// as the server steps it, meeting the ball and the other characters there
// as box2d has them meet; otherwise (a word newer than the steps, or one
// that parted from them: a turn, a jump, a meeting the client did not
// foresee) it is carried from its word by dead reckoning.
func (r *reckoned) carried(tick uint32, n int64) (steppedPose, bool) {
	if n <= 0 || !r.heard {
		return steppedPose{}, false
	}
	last := r.stepped[(tick-1)%stepRing]
	at := r.stepped[r.of%stepRing]
	if last.tick != tick-1 {
		return steppedPose{}, false
	}
	if last.of == r.of {
		return last, true // carried from this word, stepped since
	}
	if at.tick != r.of {
		return steppedPose{}, false
	}
	w, wrb := &r.t, &r.rb
	if math.Abs(at.t.X-w.X) > agreeAt || math.Abs(at.t.Y-w.Y) > agreeAt ||
		math.Abs(at.rb.VX-wrb.VX) > agreeVel || math.Abs(at.rb.VY-wrb.VY) > agreeVel {
		return steppedPose{}, false
	}
	return last, true
}
