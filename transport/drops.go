package transport

import (
	"errors"

	"vkm/transport/handshake"
	"vkm/transport/seal"
)

// Drops counts datagrams a Server or Client dropped without acting on them,
// by cause. Dropping is what untrusted bytes get; nothing is logged per
// datagram, so these counters are where a status line finds them. The zero
// value is an empty count; Drops is a plain value, safe to copy.
type Drops struct {
	// Oversize: longer than MaxDatagram, which no vkm end sends.
	Oversize uint64
	// Foreign: shorter than the 12-byte message header, or not starting
	// with vkm's tag.
	Foreign uint64
	// Unread: a kind this protocol version does not define, or a message at
	// another version that is not one of the two every version shares
	// (Hello, Refuse), or a Hello at another version too short to answer.
	Unread uint64
	// Malformed: a body, or the connection header under a Data, that failed
	// to parse.
	Malformed uint64
	// Unexpected: a kind this end never receives (a Challenge at a server),
	// or one at a moment it means nothing (a Welcome while playing).
	Unexpected uint64
	// NoSeat (server only): Data or a Goodbye from an address with no seat.
	NoSeat uint64
	// BadToken: a datagram whose token is not its seat's (server) or not the
	// client's own, or (client) a Challenge or Refuse that does not echo
	// the nonce of the Hello it answers; also a proven Hello from an address whose seat already
	// plays under another token, or, on a sealed seat, that carries
	// another connect token. The connection core never sees these.
	BadToken uint64
	// Retired (server only): a proven Hello carrying the token of a seat
	// that has since been vacated, such as a Hello its player sent before
	// the Welcome arrived, delayed past its Goodbye or Kick.
	Retired uint64
	// Forged: a sealed datagram that failed authentication (altered,
	// forged, or sealed under another key), or one that should have been
	// sealed and was not. The connection core never sees these.
	Forged uint64
	// Replayed: a sealed datagram whose counter was already accepted, or
	// is too far behind the newest to tell (seal.ErrReplayed,
	// seal.ErrTooOld); on a server also a Hello of a join attempt that
	// already took its seat, seen again from another address or cookie.
	Replayed uint64
	// Flooded (server only): an authenticated datagram from a seat over
	// its rate (SeatRateFactor), dropped before the connection core.
	Flooded uint64
	// Unproven (server only): a Hello whose connect token is genuine but
	// whose proof is not (handshake.Proven): the sealed token without its
	// keys, as anyone who saw it go by could send it.
	Unproven uint64
	// Stale: Data the connection core refused as not newer than the newest
	// it accepted (late, reordered or duplicated).
	Stale uint64
}

// dropUnread counts a datagram Classify said to drop, telling a datagram
// that is not vkm's from one that is but cannot be read.
func (d *Drops) dropUnread(datagram []byte) {
	if _, _, err := handshake.ParseHeader(datagram); err != nil {
		d.Foreign++
		return
	}
	d.Unread++
}

// dropSealed counts a sealed datagram seal.Receiver.Open refused with err.
func (d *Drops) dropSealed(err error) {
	switch {
	case errors.Is(err, seal.ErrReplayed), errors.Is(err, seal.ErrTooOld):
		d.Replayed++
	default: // seal.ErrForged, and seal.ErrMalformed: too short to be sealed
		d.Forged++
	}
}
