package session

import (
	"math"

	"vkm/internal/entity"
	"vkm/prediction"
)

// A client carries every other player's character on the run its player
// last gave it (see reckon and relay.go), but that player's commands since
// reach this client only a round trip later: a turn, a jump or a stop made
// inside the last round trip is one no input this client has could tell.
// When its own character touched such a character, the server's answer
// differs from the prediction by what the other player did meanwhile,
// however well the rest was predicted.
//
// A small such difference is a revision, not a correction: the client
// takes the server's answer and replays the ticks since, exactly as for a
// correction, and the picture eases across the difference, but it is not
// counted among the corrections (ClientStats.Revisions counts it, and
// MaxRevision holds the largest). A revision is a difference in the pose
// alone (no component field differs and it is no teleport), with another
// player's character in the own one's island in the judged tick or one of
// the ReviseLookback ticks before it, of at most ReviseLimit at the judged
// tick, whatever the profile below says of it: a difference past that is
// seen, and counts, whether or not any input the client had could tell
// it. Everything else is a correction, put down to its cause as before.
// Every revision is filed by the same profile (ClientStats.RevisionProfile),
// so it shows how many of the small ones the client's own model of the
// meeting made (known).
//
// Each correction put down to a shove is profiled by what the client knew
// of the other player's input when it predicted the judged tick (Profile):
// whether the server relayed a different run for that character at that
// tick than the one the client carried it on (turned), the character rose
// off the ground where the client carried it along it (jumped), the server
// relayed no run for it (unrelayed: it was out of the relay's reach or not
// among the nearest), or none of these: its input was what the client
// carried it on, and the difference is the client's model of the meeting
// (known).

// ReviseLimit is the largest difference of the own character's position
// at the judged tick, in metres, that a meeting with another player's
// character makes a revision rather than a correction. Tuning constant: a
// twentieth of the character's width, eased out within a sixth of a
// second (prediction.SmoothTimeConstant).
const ReviseLimit = 0.05

// ReviseLookback is how many ticks before the judged tick a touch of
// another player's character still makes a difference at the judged tick
// its doing: about a broadband round trip, the ticks a push takes to show
// in where the own character stands. Tuning constant.
const ReviseLookback = 16

// jumpedVY is how much faster upward, in metres a second, the server's
// word has another character than the client carried it, for its player
// to be taken to have jumped.
const jumpedVY = 1.0

// Profile is the reason of a correction put down to a shove, by what the
// client knew of the other player's input (see above).
type Profile uint8

// The profile of a shove's correction.
const (
	ProfileTurned Profile = iota
	ProfileJumped
	ProfileUnrelayed
	ProfileKnown
	NumProfiles
)

var profileNames = [NumProfiles]string{"turned", "jumped", "unrelayed", "known"}

// String names the profile as reports spell it.
func (p Profile) String() string {
	if p < NumProfiles {
		return profileNames[p]
	}
	return "unknown"
}

// Unforeseen reports whether no input the client had when it predicted
// the tick could tell what the other player did: every profile but known.
func (p Profile) Unforeseen() bool { return p < ProfileKnown }

// revisions are a client's revisions and the profile of its shoves.
type revisions struct {
	count uint64
	// moved counts the revisions whose replay moved the own character
	// as drawn by more than prediction.CorrectionThreshold: the rest changed nothing
	// the player could see.
	moved   uint64
	largest float64 // metres at the judged tick
	profile [NumProfiles]uint64
	// byProfile files the revisions by the same profile.
	byProfile [NumProfiles]uint64
	// profLargest is the largest difference at the judged tick of each
	// profile's corrections, metres.
	profLargest [NumProfiles]float64
}

// carried is what a predicted tick did with another player's character
// the own one touched: the run and whether a relayed run was known, and
// where the tick left it.
type carried struct {
	run     float64
	relayed bool
	t       entity.Transform
	rb      entity.Rigidbody
	ok      bool
}

// carriedOf returns how the tick that just ran carried id.
func (c *Client) carriedOf(id entity.ID) carried {
	for i := range c.others {
		r := &c.others[i]
		if r.id == id && r.postTick == c.game.Tick() {
			return carried{run: r.intent, relayed: r.relayOf != 0, t: r.post, rb: r.postRB, ok: true}
		}
	}
	return carried{}
}

// met is another player's character that met the own one by the judged
// tick, and how the client carried it then.
type met struct {
	id      entity.ID
	carried carried
}

// touchedBy returns another player's character that met this client's
// own by the judged tick: the one in the own character's island in the
// latest of the ticks judged-ReviseLookback..judged the client predicted
// it so, or else one the server's words have touching it in the judged
// tick (serverMet), where the client had the two apart.
func (c *Client) touchedBy(judged uint32, own entity.ID) (met, bool) {
	for k := uint32(0); k <= ReviseLookback && k < judged; k++ {
		if rec, ok := c.rec.at(judged-k, own); ok && !rec.touched.IsNone() {
			return met{id: rec.touched, carried: rec.carried}, true
		}
	}
	if c.rec.metTick != judged || c.rec.metID.IsNone() {
		return met{}, false
	}
	m := met{id: c.rec.metID}
	if rec, ok := c.rec.at(judged, own); ok {
		for _, n := range rec.near {
			if n.id == m.id {
				m.carried = n.carried
			}
		}
	}
	return m, true
}

// NearReach is how near, in metres, another character must be carried to
// the own one after a predicted tick for the tick's record to keep how it
// was carried: what the profile of a meeting only the server had reads.
// Farther than two characters closing over a round trip, the two could
// not have met by the tick judged. Tuning constant.
const NearReach = 2.5

// maxNear is how many carried characters near the own one a tick's record
// keeps.
const maxNear = 3

// nearby is a carried character near the own one after a predicted tick.
type nearby struct {
	id      entity.ID
	carried carried
}

// recordNear keeps in rec how the tick that just ran carried the
// characters within NearReach of the own one: at most maxNear of them, in
// slot order.
func (c *Client) recordNear(rec *tickRecord, own entity.ID) {
	rec.near = rec.near[:0]
	ot := c.game.Store().Transform(own)
	if ot == nil {
		return
	}
	for i := range c.others {
		r := &c.others[i]
		if r.postTick != c.game.Tick() || len(rec.near) == maxNear {
			continue
		}
		if math.Hypot(r.post.X-ot.X, r.post.Y-ot.Y) <= NearReach {
			rec.near = append(rec.near, nearby{id: r.id, carried: carried{run: r.intent, relayed: r.relayOf != 0, t: r.post, rb: r.postRB, ok: true}})
		}
	}
}

// serverMet returns another player's character the server's word has
// touching the own one in the judged tick, both words of that tick: a
// meeting the server resolved where the client had the two apart (it
// carried the other elsewhere, a turn or a jump it could not know of),
// which the own character's predicted island cannot show. Run before the
// replay, while the store holds the server's words.
func (c *Client) serverMet(judged uint32, own entity.ID) entity.ID {
	st := c.game.Store()
	ot := st.Transform(own)
	ob, ok := bodyBox(st.Body(own))
	if ot == nil || !ok {
		return entity.None
	}
	for i := range c.others {
		r := &c.others[i]
		if r.of != judged || !r.heard {
			continue
		}
		t := st.Transform(r.id)
		b, ok := bodyBox(st.Body(r.id))
		if t == nil || !ok {
			continue
		}
		apartX := math.Max(ot.X+ob.minX-(t.X+b.maxX), t.X+b.minX-(ot.X+ob.maxX))
		apartY := math.Max(ot.Y+ob.minY-(t.Y+b.maxY), t.Y+b.minY-(ot.Y+ob.maxY))
		if apartX <= touching && apartY <= touching {
			return r.id
		}
	}
	return entity.None
}

// revise decides whether the correction just replayed is a revision, and
// counts it if so. dist is the difference at the judged tick; before is
// where the own character stood, as predicted, before the replay.
func (c *Client) revise(judged uint32, own entity.ID, posed bool, dist float64, teleport, compWrong bool, before entity.Transform) bool {
	if !posed || teleport || compWrong || dist > ReviseLimit {
		return false
	}
	if _, ok := c.touchedBy(judged, own); !ok {
		return false
	}
	p := c.shoveProfile(judged, own)
	r := &c.rec.rev
	r.count++
	r.byProfile[p]++
	r.largest = math.Max(r.largest, dist)
	if t := c.game.Store().Transform(own); t != nil && !prediction.Agrees(before, *t) {
		r.moved++
	}
	return true
}

// profileShove files a correction put down to a shove by its profile.
func (c *Client) profileShove(judged uint32, own entity.ID, dist float64) Profile {
	p := c.shoveProfile(judged, own)
	c.rec.rev.profile[p]++
	c.rec.rev.profLargest[p] = math.Max(c.rec.rev.profLargest[p], dist)
	return p
}

// shoveProfile returns what the client knew of the input of the other
// player whose character met the own one by the judged tick (see
// Profile).
func (c *Client) shoveProfile(judged uint32, own entity.ID) Profile {
	p := ProfileKnown
	m, ok := c.touchedBy(judged, own)

	switch {
	case !ok || !m.carried.ok:
		p = ProfileUnrelayed
	default:
		e, relayed := relayedIntent(c.relay, m.id)
		st := c.game.Store()
		switch {
		case relayed && e.MoveX != m.carried.run:
			p = ProfileTurned
		case st.Rigidbody(m.id) != nil && st.Rigidbody(m.id).VY > m.carried.rb.VY+jumpedVY:
			p = ProfileJumped
		case !relayed || !m.carried.relayed:
			p = ProfileUnrelayed
		}
	}
	return p
}
