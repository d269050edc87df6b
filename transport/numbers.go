package transport

// NoPlayer is the player number that names nobody. Player numbers count from
// 1; a Welcome never carries 0.
const NoPlayer uint16 = 0

// numbers hands out player numbers: counting up from 1, wrapping after 65535
// back to 1 (0 is NoPlayer), and skipping any number still held, so a
// number is never given to two seated players and a departed player's
// number comes back only after the count has gone all the way round.
//
// A number is taken only by a join the game accepted: peek proposes one
// without moving the count, and take commits it. The set of held numbers is
// a fixed 8 KiB bitmap rather than a map, so it never grows.
type numbers struct {
	held [65536 / 64]uint64
	next uint16 // where the search for a free number starts; never 0
	n    int    // numbers held
}

// peek returns the number the next take should use: the first free one at
// or after the count, wrapping past 65535 to 1. ok is false when all 65535
// are held. The search visits at most one held number per seated player,
// so it is short whenever the seats are few.
func (s *numbers) peek() (p uint16, ok bool) {
	if s.n >= 65535 {
		return NoPlayer, false
	}
	p = max(s.next, 1)
	for s.isHeld(p) {
		p = succ(p)
	}
	return p, true
}

// take marks p held and moves the count past it.
func (s *numbers) take(p uint16) {
	if p == NoPlayer || s.isHeld(p) {
		panic("transport: player number taken twice") // a bug in the Server, not input
	}
	s.held[p/64] |= 1 << (p % 64)
	s.n++
	s.next = succ(p)
}

// release frees p. The count does not move back: p is handed out again only
// after every number above it has had its turn.
func (s *numbers) release(p uint16) {
	if s.isHeld(p) {
		s.held[p/64] &^= 1 << (p % 64)
		s.n--
	}
}

// isHeld reports whether p is held.
func (s *numbers) isHeld(p uint16) bool { return s.held[p/64]&(1<<(p%64)) != 0 }

// succ returns the number after p, wrapping from 65535 to 1.
func succ(p uint16) uint16 {
	if p == 65535 {
		return 1
	}
	return p + 1
}
