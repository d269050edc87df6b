package netmsg

import "encoding/binary"

// Follow tells the server which player a spectator follows (KindFollow):
// its snapshots then look from that player's entity (replication's focus),
// and its camera follows it. Player 0 follows no one: the spectator is
// told of the whole level every round. On the wire:
//
//	kind u8 = 11, player u16 little endian
//
// A player who is not seated is followed as no one until they are.
type Follow struct {
	Player uint16
}

// FollowSize is a follow message's length.
const FollowSize = 3

// Append appends the follow message of f.
func (f Follow) Append(b []byte) []byte {
	return binary.LittleEndian.AppendUint16(append(b, byte(KindFollow)), f.Player)
}

// ParseFollow reads a follow message. It refuses another kind and any
// length but FollowSize.
func ParseFollow(msg []byte) (Follow, error) {
	if KindOf(msg) != KindFollow || len(msg) != FollowSize {
		return Follow{}, fail(FormatFollow)
	}
	return Follow{Player: binary.LittleEndian.Uint16(msg[1:])}, nil
}
