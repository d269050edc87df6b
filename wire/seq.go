package wire

// Seq is a 16-bit packet sequence number. It wraps from 65535 to 0, so two
// of them are compared by the distance between them, never by size.
//
// Why the distance: at 64 packets a second a 16-bit counter wraps every
// 65536/64 = 1024 s, about 17 minutes. With a plain a > b, packet 0 after the
// wrap would look older than packet 65535 and be refused as stale, and every
// packet after it too: the session would die at a fixed time after it began.
// Instead a is newer than b when stepping forward from b reaches a in fewer
// than half the range (1..32767 steps). Newer and Diff stay correct across
// any number of wraps, as long as the two numbers being compared were issued
// within 32767 packets of each other (about 8.5 minutes at 64 a second, far
// beyond any timeout).
//
// The zero value is sequence 0. Seq is a plain value, safe to copy and share.
type Seq uint16

// half is the forward distance at which "newer" flips to "older".
const half = 1 << 15

// Newer reports whether a was issued after b: the forward distance from b to
// a is in 1..32767. Equal sequences are not newer than each other, and at a
// distance of exactly 32768 neither is newer than the other.
func (a Seq) Newer(b Seq) bool {
	d := uint16(a - b) // forward distance from b to a, wrapping
	return d != 0 && d < half
}

// Diff returns the signed distance from b to a, in -32768..32767: positive
// when a is newer than b, so b + Seq(Diff(a, b)) == a always holds.
func Diff(a, b Seq) int { return int(int16(a - b)) }
