package netmsg

import (
	"encoding/binary"
	"time"
)

// roundTripEntry is each player's part of a round trips message: number
// u16, milliseconds u16.
const roundTripEntry = 2 + 2

// MaxRoundTrip is the longest round trip a round trips message says; a
// longer one is sent as this. Protocol constant.
const MaxRoundTrip = 65535 * time.Millisecond

// RoundTrip is the round trip the server measures to one player.
type RoundTrip struct {
	// Player is the player's number; never 0.
	Player uint16
	// RTT is the round trip, to the millisecond, at most MaxRoundTrip.
	RTT time.Duration
}

// RoundTrips is the round trips message (KindRoundTrips), about once a
// second, for a scoreboard, never the simulation. On the wire:
//
//	kind u8 = 4, count u16 (at most MaxPlayers), then per player in
//	rising number: number u16, round trip u16 in milliseconds (65535: that
//	or more)
type RoundTrips []RoundTrip

// Append appends the round trips message of rs, which are in rising
// number, at most MaxPlayers of them. Each round trip is rounded to the
// millisecond and held to 0..MaxRoundTrip.
func (rs RoundTrips) Append(b []byte) []byte {
	b = append(b, byte(KindRoundTrips))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(rs)))
	for _, r := range rs {
		ms := min(r.RTT.Round(time.Millisecond), MaxRoundTrip) / time.Millisecond
		b = binary.LittleEndian.AppendUint16(b, r.Player)
		b = binary.LittleEndian.AppendUint16(b, uint16(max(ms, 0)))
	}
	return b
}

// ParseRoundTrips reads a round trips message into dst[:0]. It refuses
// another kind, more than MaxPlayers players, numbers that are 0 or not
// rising, and a length that is not the count's; a refused message returns
// dst[:0], telling nothing.
func ParseRoundTrips(msg []byte, dst RoundTrips) (RoundTrips, error) {
	dst = dst[:0]
	if len(msg) < 3 || Kind(msg[0]) != KindRoundTrips {
		return dst, fail(FormatRoundTrips)
	}
	n := int(binary.LittleEndian.Uint16(msg[1:3]))
	b := msg[3:]
	if n > MaxPlayers || len(b) != roundTripEntry*n {
		return dst, failf(FormatRoundTrips, "%d round trips in %d bytes", n, len(b))
	}
	prev := uint16(0)
	for i := 0; i < len(b); i += roundTripEntry {
		num := binary.LittleEndian.Uint16(b[i:])
		if num <= prev {
			return dst[:0], failf(FormatRoundTrips, "player %d after %d", num, prev)
		}
		prev = num
		dst = append(dst, RoundTrip{Player: num, RTT: time.Duration(binary.LittleEndian.Uint16(b[i+2:])) * time.Millisecond})
	}
	return dst, nil
}
