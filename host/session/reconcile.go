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
	// maxEase is the largest jump, in metres, that a replay (a
	// correction's or a revision's, teleports aside) made in where the
	// own entity stands now: the offset the picture then eases out. It
	// is larger than the difference at the judged tick when the snapshot
	// also told of other players' doings since.
	maxEase float64
	// maxError is the largest distance, in metres, between the own
	// entity's prediction for a judged tick and the server's answer,
	// whether it was corrected or not.
	maxError float64

	// ticks is what each predicted tick left of the own entity besides
	// its pose: its components, and who it touched.
	ticks [prediction.PredictionWindow]tickRecord
	// word is the server's newest word on every component of the own
	// entity wordID (when wordOK): what the snapshots said, over what the
	// entity held before this client first simulated it. A snapshot says
	// only what changed; a correction puts all of it back.
	word   compSet
	wordID entity.ID
	wordOK bool
	// heldComps is the own entity's predicted components, set aside while
	// a snapshot is read (see held).
	heldComps compSet

	byCause [NumCauses]CauseFigures
	// rev counts the revisions, which are not corrections, and profiles
	// the shoves' corrections (revise.go).
	rev revisions
	// adopted counts snapshots whose word on fields only the server
	// writes was taken without a replay (not corrections: nothing this
	// end predicted was wrong, it could not know).
	adopted uint64
	// leaseReplays counts the snapshots whose word on a leased body had
	// it elsewhere than predicted while the own character's prediction
	// stood (leaseStrayed): replayed from.
	leaseReplays uint64
	// leaseEase is the largest jump, in metres, such a replay made in
	// where the own entity stands now (within maxEase).
	leaseEase float64
	// leaseMoved counts those replays that moved the own entity now:
	// each is also counted as a correction.
	leaseMoved uint64
	// unpredicted counts judged ticks this end held no prediction of its
	// character's pose for (the first after the join, or after the
	// character was made anew), whose answer changed no component: the
	// server's answer is replayed from as for a correction, but nothing
	// predicted was wrong, so none is counted.
	unpredicted uint64
	// metID is the character the server's word had touching the own one
	// in the tick metTick judged (revise.go).
	metID   entity.ID
	metTick uint32
	// judged is the newest client tick a snapshot has judged (0: none):
	// a snapshot judging no newer one judges nothing (reconcile).
	judged  uint32
	recent  [RecentCorrections]Correction
	nRecent uint64 // corrections ever put in recent; the newest is at (nRecent-1)%RecentCorrections
}

// tickRecord is one predicted tick's record of the own entity.
type tickRecord struct {
	tick  uint32
	id    entity.ID
	ok    bool
	comps compSet
	// touched is another player's character in the own entity's island
	// after the tick (None: none was); leased says the island held a body
	// this client leases.
	touched entity.ID
	leased  bool
	// carried is how the tick carried the touched character (revise.go).
	carried carried
	// near is how the tick carried the other characters near the own
	// one (revise.go).
	near []nearby
}

// at returns the record of tick for id, if it is still held.
func (r *reconciler) at(tick uint32, id entity.ID) (*tickRecord, bool) {
	t := &r.ticks[tick%prediction.PredictionWindow]
	return t, t.ok && t.tick == tick && t.id == id
}

// Cause is what a correction is put down to.
type Cause uint8

// The causes of a correction, first match wins: a pose more than Teleport
// from the prediction (a respawn, a server's set_position); another
// player's character touching the own one in the judged tick (a shove); a
// component field the server changed that this client did not predict
// (damage from another player); a body this client leased in the own
// entity's island; anything else.
const (
	CauseTeleport Cause = iota
	CauseShove
	CauseComponent
	CauseLease
	CauseOther
	NumCauses
)

var causeNames = [NumCauses]string{"teleport", "shove", "component", "lease", "other"}

// String names the cause as reports spell it.
func (c Cause) String() string {
	if c < NumCauses {
		return causeNames[c]
	}
	return "unknown"
}

// CauseFigures counts the corrections put down to one cause, with the
// largest: the largest difference of a component field for
// CauseComponent, of the pose in metres for the rest.
type CauseFigures struct {
	Count   uint64
	Largest float64
}

// RecentCorrections is how many of its latest corrections a client keeps
// for a page or a report to show.
const RecentCorrections = 16

// Correction is one correction a client took.
type Correction struct {
	// Tick is the client tick the server judged; Entity the own entity.
	Tick   uint32
	Entity entity.ID
	// What differed: the component field ("Health.hp") for
	// CauseComponent, else "pose".
	What string
	// Distance is how far the field was off for CauseComponent, else how
	// far the pose was, in metres.
	Distance float64
	Cause    Cause
	// Touched says another player's character touched the own one in
	// the judged tick.
	Touched bool
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
	if c.playing {
		c.recordGuests(g)
	}
	if !c.playing || !g.Store().Alive(g.Own()) {
		return
	}
	c.island = c.island[:0]
	touched, ownIsland := entity.None, true
	join := func(id entity.ID) bool {
		if id != g.Own() && ownIsland && g.Store().Controller(id) != nil {
			touched = id
		}
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
	ownIsland = false
	// What a guest's character pushes is this end's too: the guest's
	// commands, which only this end and the server have, move it.
	c.guestIslands(g, join)
	leased := len(c.island) > 0
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
	r := &c.rec.ticks[g.Tick()%prediction.PredictionWindow]
	r.tick, r.id, r.ok, r.touched, r.leased = g.Tick(), g.Own(), true, touched, leased
	r.carried = carried{}
	if !touched.IsNone() {
		r.carried = c.carriedOf(touched)
	}
	c.recordNear(r, g.Own())
	r.comps.take(g.Store(), g.Own())
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
	// comps says the own entity's components are held too (in
	// reconciler.heldComps): there is a word from the server to judge
	// them by.
	comps bool
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
	c.holdGuests(keep)
	c.leases.Each(g.Tick(), keep)
	c.heldScratch = h.bodies
	if c.rec.wordOK && c.rec.wordID == g.Own() {
		c.rec.heldComps.take(g.Store(), g.Own())
		h.comps = true
	}
	return h
}

// reconcile decides, once a snapshot judged one of this client's ticks,
// whether its prediction stands. It stands when the own entity's position
// is within 3 mm of the server's answer and every field of its components
// is the server's: the held prediction goes back, pose and components, and
// nothing is replayed. Otherwise the server's answer stands (every
// component field as the server last said it, not only those this snapshot
// changed) and every tick since is run again from it, with is_replaying
// true.
func (c *Client) reconcile(h held, judged uint32) {
	g := c.game
	st := g.Store()
	own := g.Own()
	if !h.ok || judged == 0 || !st.Alive(own) {
		return
	}
	word := h.comps && c.rec.wordOK && c.rec.wordID == own
	if judged <= c.rec.judged {
		// No tick judged since the last snapshot: the server ran its
		// ticks since without a command of this client's (they came too
		// late, or not at all, and the queue stopped claiming ticks), and
		// what this snapshot holds is no answer to any prediction. Judged
		// again against the tick already judged, it would be a correction
		// a snapshot for as long as the commands stay away, each by
		// however far the server's world has moved on. The prediction
		// stands until a snapshot judges a tick after it.
		c.stand(h, word)
		return
	}
	c.rec.judged = judged
	server := *st.Transform(own)
	predicted, _, ok := c.rec.pred.At(judged, own)
	dist := 0.0
	if ok {
		dist = prediction.Distance(predicted, server)
		c.rec.maxError = math.Max(c.rec.maxError, dist)
	}
	rec, recOK := c.rec.at(judged, own)
	var diff compDiff
	compWrong := false
	if word && recOK {
		diff, compWrong = differ(g.Schema(), &rec.comps, &c.rec.word)
	}
	// The pose stands, and what differs is only fields the ticks since
	// have not touched: the server's word on them is taken as it is, with
	// no replay, so a pack the server alone handed out costs no re-run.
	adopted := ok && prediction.Agrees(predicted, server) && compWrong && recOK &&
		unpredicted(g.Schema(), &rec.comps, &c.rec.heldComps, &c.rec.word)
	if adopted {
		c.rec.heldComps.adopt(g.Schema(), &rec.comps, &c.rec.word)
		for t := judged + 1; t <= g.Tick(); t++ {
			if later, ok := c.rec.at(t, own); ok {
				later.comps.adopt(g.Schema(), &rec.comps, &c.rec.word)
			}
		}
		rec.comps.adopt(g.Schema(), &rec.comps, &c.rec.word)
		c.rec.adopted++
	}
	guestsOK := c.guestsAgree(judged)
	if !guestsOK {
		c.guestCorrections++
	}
	// leaseOnly: the own character's prediction stands, but a body it
	// leases was predicted elsewhere than the server's word has it.
	leaseOnly := false
	if ok && prediction.Agrees(predicted, server) && (!compWrong || adopted) && guestsOK {
		if !c.leaseStrayed(h, judged) {
			c.stand(h, word)
			c.dropParted(h, judged)
			return
		}
		// A body parted past LeaseParted loses its lease as when none
		// strayed; the rest are replayed from the server's word.
		c.dropParted(h, judged)
		leaseOnly = true
	}
	if word {
		c.rec.word.put(st, own)
	}
	c.rec.metID, c.rec.metTick = c.serverMet(judged, own), judged
	// The server's answer stands for the leased bodies too. A snapshot
	// carries only what changed, so a leased body it did not mention still
	// holds this end's prediction: it goes back to the server's last word.
	for _, b := range h.bodies {
		if w, ok := c.lastWord[b.id]; ok && b.id != own {
			if t := st.Transform(b.id); t != nil {
				*t = w.t
			}
			if w.rb != nil {
				st.SetRigidbody(b.id, w.rb)
			}
		}
	}
	// The first replayed tick asks the world questions before its physics
	// step gathers the components (the controller probes for ground, a
	// behavior casts a ray): the bodies must stand where the server's
	// answer has them, not where the mistaken prediction left them.
	for _, b := range h.bodies {
		g.Physics().Place(b.id, st.Transform(b.id), st.Rigidbody(b.id))
	}
	c.rec.replayed += uint64(g.Replay(judged+1, g.Tick(), c.rec.command, c.recordPrediction))
	g.UseOldCode(false)
	// The simulation took the correction at once; the picture eases into
	// it: where each body was about to be drawn, less where it now is,
	// becomes an offset that decays. A teleport (the judged pose, or the
	// jump the picture would have to make, longer than Teleport: a
	// respawn, a set_position across the level) is drawn where it lands,
	// not slid across the level.
	teleport := ok && dist > Teleport
	var heldOwn entity.Transform
	for _, b := range h.bodies {
		if b.id == own {
			heldOwn = b.t
		}
		if t := st.Transform(b.id); t != nil && b.id == own && prediction.Distance(b.t, *t) > Teleport {
			teleport = true
			dist = math.Max(dist, prediction.Distance(b.t, *t))
		}
	}
	for _, b := range h.bodies {
		t := st.Transform(b.id)
		switch {
		case t == nil:
		case teleport && b.id == own:
			c.smooth.Drop(own)
		default:
			c.smooth.Correct(b.id, b.t, *t)
		}
	}
	if t := st.Transform(own); t != nil && !teleport {
		c.rec.maxEase = math.Max(c.rec.maxEase, prediction.Distance(heldOwn, *t))
	}
	if leaseOnly {
		// The own character's prediction for the judged tick stood. A
		// replay that leaves it where it was drawn is no correction; one
		// that moves it is, as the player sees it: counted as one, filed
		// by what it met, at the judged tick's distance like any other.
		c.rec.leaseReplays++
		t := st.Transform(own)
		if t == nil || teleport {
			return
		}
		c.rec.leaseEase = math.Max(c.rec.leaseEase, prediction.Distance(heldOwn, *t))
		if prediction.Agrees(heldOwn, *t) {
			return
		}
		c.rec.leaseMoved++
		c.note(judged, own, ok, dist, teleport, recOK, rec, compWrong, diff)
		return
	}
	if c.revise(judged, own, ok, dist, teleport, compWrong, heldOwn) {
		return
	}
	c.note(judged, own, ok, dist, teleport, recOK, rec, compWrong, diff)
}

// leaseStrayed reports whether a body this client leases, held with the
// own character, was predicted for the judged tick more than LeaseStray
// but at most LeaseParted from the server's newest word on it, when the
// own character's prediction stands: the server's world moved the body in
// a way this end did not (another player's shot or push, a contact the
// two ends solved apart). The server's answer then stands for the leased
// bodies as for a correction, and the ticks since are replayed from it, so
// the body goes on from where the server has it and the character meets it
// there; predicted on from where it strayed, it parts further each tick
// until the character runs into it where the server's is not. A body
// parted further than LeaseParted loses its lease instead (dropParted).
func (c *Client) leaseStrayed(h held, judged uint32) bool {
	strayed := false
	c.leasedOff(h, judged, func(_ entity.ID, d float64) {
		strayed = strayed || (d > LeaseStray && d <= LeaseParted)
	})
	return strayed
}

// leasedOff calls fn with each body held with the own character that this
// client leases and holds both a prediction for the judged tick and a word
// from the server on, and how far, in metres, the one is from the other.
func (c *Client) leasedOff(h held, judged uint32, fn func(id entity.ID, d float64)) {
	g := c.game
	for _, b := range h.bodies {
		if b.id == g.Own() || !c.leases.Leased(b.id, g.Tick()) {
			continue
		}
		w, ok := c.lastWord[b.id]
		if !ok {
			continue
		}
		if p, _, ok := c.rec.pred.At(judged, b.id); ok {
			fn(b.id, prediction.Distance(p, w.t))
		}
	}
}

// LeaseStray is how far, in metres, a leased body's prediction for a
// judged tick may be from the server's word on it, when the own
// character's prediction stands, before the ticks since are replayed from
// the server's word (leaseStrayed). Tuning constant: above the wire's
// rounding and a body's ordinary error, far below what a shot or a push
// this end did not have moves a body by in a round trip.
const LeaseStray = 0.02

// dropParted ends the lease of every body held with the own character
// whose prediction for the judged tick parted from the server's newest
// word on it by more than LeaseParted: the body goes back to that word and
// is drawn eased there (lapse), and is leased again from it when the
// character next touches it. A leased body that stays awake is otherwise
// predicted on for as long as the own character's predictions stand,
// however far from the server's it goes. The own character's prediction
// stood: nothing is replayed, and nothing is counted as a correction.
func (c *Client) dropParted(h held, judged uint32) {
	c.leasedOff(h, judged, func(id entity.ID, d float64) {
		if d > LeaseParted {
			c.leases.Forget(id)
			c.lapse(id)
			c.partedLeases++
		}
	})
}

// stand puts back the held prediction, pose and motion of every body held
// and, with word, the own entity's components: the prediction stands.
func (c *Client) stand(h held, word bool) {
	st := c.game.Store()
	for _, b := range h.bodies {
		if t := st.Transform(b.id); t != nil {
			*t = b.t
			if b.rb != nil {
				st.SetRigidbody(b.id, b.rb)
			}
		}
	}
	if word {
		c.rec.heldComps.put(st, c.game.Own())
	}
}

// LeaseParted is how far, in metres, a leased body's prediction for a
// judged tick may be from the server's word on it, when the own
// character's prediction stands, before its lease ends: a rolling ball
// predicted a few centimetres off is the island's small error, corrected
// with the character's; one predicted metres off (it went where the
// server's did not, and stayed awake) is a body the character would meet
// where the server has nothing. Tuning constant.
const LeaseParted = 0.3

// recentList returns the recent corrections, oldest first.
func (r *reconciler) recentList() []Correction {
	n := min(r.nRecent, RecentCorrections)
	out := make([]Correction, 0, n)
	for i := r.nRecent - n; i < r.nRecent; i++ {
		out = append(out, r.recent[i%RecentCorrections])
	}
	return out
}

// note counts a correction by its cause and keeps it among the recent
// ones. A teleport's distance is no eased correction's: it stays out of
// maxCorrection.
func (c *Client) note(judged uint32, own entity.ID, posed bool, dist float64, teleport, recOK bool, rec *tickRecord, compWrong bool, diff compDiff) {
	if !posed && !teleport && !compWrong {
		c.rec.unpredicted++
		return
	}
	c.rec.corrections++
	_, touched := c.touchedBy(judged, own)
	var cause Cause
	switch {
	case teleport:
		cause = CauseTeleport
	case touched:
		cause = CauseShove
	case compWrong:
		cause = CauseComponent
	case recOK && rec.leased:
		cause = CauseLease
	default:
		cause = CauseOther
	}
	what, by := "pose", dist
	if cause == CauseComponent {
		what, by = diff.name(c.game.Schema()), diff.by
	}
	if posed && !teleport {
		c.rec.maxCorrection = math.Max(c.rec.maxCorrection, dist)
	}
	if cause == CauseShove {
		c.profileShove(judged, own, dist)
	}
	f := &c.rec.byCause[cause]
	f.Count++
	f.Largest = math.Max(f.Largest, by)
	c.rec.recent[c.rec.nRecent%RecentCorrections] = Correction{
		Tick: judged, Entity: own, What: what, Distance: by, Cause: cause, Touched: touched,
	}
	c.rec.nRecent++
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
