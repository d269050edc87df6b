package session

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"vkm/internal/entity"
)

// A client predicting its own character meets the others where it guesses
// they are by then (see reckon), and its guess of where another player is
// running is only as good as what it knows of that player's input. The
// server knows it: each tick, the behaviors turn every player's command
// into its character controller's intent. So each snapshot relays to its
// client the intent the players nearest that client's character gave
// their own characters in the tick the snapshot describes, and the client
// runs those characters on it, held, through the ticks it predicts past
// that one: the input extrapolation of remote players that fighting games
// and car football predict with. It is the intent, not the command, that
// travels: turning a command into intent is the behavior's work, which a
// client must not do for a character it does not simulate (a shot would
// wound, an event would play), and the intent is what the controller both
// ends run reads.

// MaxRelayed is the most other characters one snapshot relays the intent
// of: the nearest within RelayReach. Tuning constant.
const MaxRelayed = 4

// RelayReach is how near, in metres, another player's character must be
// to the receiving player's own for its intent to be relayed: farther than
// a round trip's running apart (two characters closing at 16 m/s for
// 200 ms), the two do not meet in the ticks a client predicts. Tuning
// constant.
const RelayReach = 8.0

// intent is what a behavior told a character controller to do in one
// tick: its run, as shares of its speed (MoveY only top-down).
type intent struct {
	id           entity.ID
	moveX, moveY float64
}

// A relay section, in a snapshot's payload after the reliable section and
// before the snapshot (flagRelay), is a count byte 1..MaxRelayed, then
// that many entries in rising slot order, each the character's slot and
// generation as unsigned LEB128 (shortest form; slot below 2^24,
// generation 1..2^32−1), then MoveX and MoveY as command axes (one byte
// each, as wire.Axis codes them: 128 is zero, 0 is never written).
var errRelay = errors.New("session: relay section malformed")

// appendRelay appends the relay section of is, which is sorted by slot and
// holds 1..MaxRelayed entries.
func appendRelay(dst []byte, is []intent) []byte {
	dst = append(dst, byte(len(is)))
	for _, e := range is {
		dst = binary.AppendUvarint(dst, uint64(e.id.Slot))
		dst = binary.AppendUvarint(dst, uint64(e.id.Gen))
		dst = append(dst, axisCode(e.moveX), axisCode(e.moveY))
	}
	return dst
}

// decodeRelay reads the relay section at the start of b into dst[:0] and
// returns it with the section's length. A count outside 1..MaxRelayed, a
// slot or generation out of range or not in its shortest form, slots not
// rising, an axis code of 0, and a section cut short are refused.
func decodeRelay(b []byte, dst []intent) ([]intent, int, error) {
	dst = dst[:0]
	if len(b) < 1 || b[0] == 0 || b[0] > MaxRelayed {
		return dst, 0, errRelay
	}
	n, at := int(b[0]), 1
	for range n {
		slot, k := uvarint(b[at:])
		if k <= 0 || slot >= 1<<24 {
			return dst, 0, errRelay
		}
		at += k
		gen, k := uvarint(b[at:])
		if k <= 0 || gen == 0 || gen > math.MaxUint32 {
			return dst, 0, errRelay
		}
		at += k
		if len(b) < at+2 || b[at] == 0 || b[at+1] == 0 {
			return dst, 0, errRelay
		}
		id := entity.ID{Slot: uint32(slot), Gen: uint32(gen)}
		if len(dst) > 0 && dst[len(dst)-1].id.Slot >= id.Slot {
			return dst, 0, errRelay
		}
		dst = append(dst, intent{id: id, moveX: axisValue(b[at]), moveY: axisValue(b[at+1])})
		at += 2
	}
	return dst, at, nil
}

// axisCode is v's byte as a command packet carries an axis: 128 is 0, and
// 1..255 are -1..1 in steps of 1/127 (wire.Axis, which this package does
// not import: the layers keep the wire's bits to the packages that write
// packets).
func axisCode(v float64) byte {
	if v != v { // NaN
		return 128
	}
	return byte(128 + math.Max(-127, math.Min(127, math.Round(v/(1.0/127)))))
}

// axisValue is the run a code other than 0 says.
func axisValue(c byte) float64 {
	if c == 128 {
		return 0
	}
	return float64(int(c)-128) * (1.0 / 127)
}

// uvarint reads an unsigned LEB128 number in its shortest form; k <= 0
// says there is none.
func uvarint(b []byte) (v uint64, k int) {
	v, k = binary.Uvarint(b)
	if k > 1 && b[k-1] == 0 {
		return 0, 0 // a final group of zeros: not the shortest form
	}
	return v, k
}

// IntentsWritten keeps, each tick, the intent the behaviors gave every
// seated player's character, for the snapshots to relay.
func (a *serverAuthority) IntentsWritten() {
	s := (*Server)(a)
	st := s.game.Store()
	for _, seat := range s.seats {
		seat.intentOK = false
		if c := st.Controller(seat.entity); c != nil && st.Alive(seat.entity) {
			seat.moveX, seat.moveY, seat.intentOK = c.MoveX, c.MoveY, true
		}
	}
}

// relayFor returns the relay section for the player of st: the intent of
// the MaxRelayed other players' characters nearest st's own, within
// RelayReach, as of the last tick (nil: none is near, or st has no
// character).
func (s *Server) relayFor(st *seat) []byte {
	g := s.game.Store()
	own := g.Transform(st.entity)
	if own == nil || !g.Alive(st.entity) {
		return nil
	}
	cands := s.relayNear[:0]
	for _, o := range s.seats {
		if o == st || !o.intentOK || o.entity == st.entity {
			continue
		}
		t := g.Transform(o.entity)
		if t == nil || !g.Alive(o.entity) {
			continue
		}
		dx, dy := t.X-own.X, t.Y-own.Y
		d2 := dx*dx + dy*dy
		if d2 > RelayReach*RelayReach {
			continue
		}
		cands = append(cands, relayCandidate{d2: d2, e: intent{id: o.entity, moveX: o.moveX, moveY: o.moveY}})
	}
	s.relayNear = cands
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b relayCandidate) int {
		if c := cmpFloat(a.d2, b.d2); c != 0 {
			return c
		}
		return int(a.e.id.Slot) - int(b.e.id.Slot)
	})
	cands = cands[:min(len(cands), MaxRelayed)]
	is := s.relayIntents[:0]
	for _, c := range cands {
		is = append(is, c.e)
	}
	slices.SortFunc(is, func(a, b intent) int { return int(a.id.Slot) - int(b.id.Slot) })
	s.relayIntents = is
	s.relayBuf = appendRelay(s.relayBuf[:0], is)
	return s.relayBuf
}

// relayCandidate is another character within reach and its distance
// squared from the receiving one.
type relayCandidate struct {
	d2 float64
	e  intent
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
