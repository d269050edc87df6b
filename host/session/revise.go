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
// tick; or of at most UnforeseenLimit where the profile below says no
// input the client had could tell what that player did (turned, jumped,
// unrelayed). A meeting whose other input the client had (known) is the
// client's own model of the meeting: past ReviseLimit it is a correction
// whatever its size. Everything else is a correction, put down to its
// cause as before. Every revision is filed by the same profile
// (ClientStats.RevisionProfile), so what the wider bound takes in shows.
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

// UnforeseenLimit is the largest difference, in metres, that a meeting
// with a player who turned, jumped or went unrelayed inside the last
// round trip makes a revision: no past input could tell it, and up to a
// tenth of a metre (an eighth of the character's width) an ease reads as
// the shove it is. A larger one stays a correction, and its size is the
// largest eased correction's. Tuning constant.
const UnforeseenLimit = 0.1

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

// touchedBy returns the latest of the ticks judged-ReviseLookback..judged
// in which another player's character was in the own one's island, and
// that tick's record.
func (c *Client) touchedBy(judged uint32, own entity.ID) (*tickRecord, bool) {
	for k := uint32(0); k <= ReviseLookback && k < judged; k++ {
		if rec, ok := c.rec.at(judged-k, own); ok && !rec.touched.IsNone() {
			return rec, true
		}
	}
	return nil, false
}

// revise decides whether the correction just replayed is a revision, and
// counts it if so. dist is the difference at the judged tick; before is
// where the own character stood, as predicted, before the replay.
func (c *Client) revise(judged uint32, own entity.ID, posed bool, dist float64, teleport, compWrong bool, before entity.Transform) bool {
	if !posed || teleport || compWrong || dist > UnforeseenLimit {
		return false
	}
	if _, ok := c.touchedBy(judged, own); !ok {
		return false
	}
	p := c.shoveProfile(judged, own)
	if dist > ReviseLimit && !p.Unforeseen() {
		return false
	}
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
	rec, ok := c.touchedBy(judged, own)
	switch {
	case !ok || !rec.carried.ok:
		p = ProfileUnrelayed
	default:
		e, relayed := relayedIntent(c.relay, rec.touched)
		st := c.game.Store()
		switch {
		case relayed && e.MoveX != rec.carried.run:
			p = ProfileTurned
		case st.Rigidbody(rec.touched) != nil && st.Rigidbody(rec.touched).VY > rec.carried.rb.VY+jumpedVY:
			p = ProfileJumped
		case !relayed || !rec.carried.relayed:
			p = ProfileUnrelayed
		}
	}
	return p
}
