package session

import "vkm/transport"

// Every payload, both ways, is framed by package netmsg: its flags, a
// section of the reliable message channel (transport.Reliable) in the room
// the packet proper leaves, from the server a relay section (see
// relay.go), then the snapshot or command packet. This file holds the
// channels' limits.

// seatReceiveWindow bounds what a server holds, for each player, of the
// player's messages in reassembly: a client sends only the project's
// messages (at most 3 + netmsg.MaxMessageBody bytes each, MessageBurst at
// once), so this is well above what a game sends and what a hostile
// client could make the server keep before its connection ends (the
// default window is 8 MiB, for the bundles the server sends).
// Tuning constant.
const seatReceiveWindow = 16 << 10

// seatReliable returns a seat's message channel: the default limits for
// what the server sends, seatReceiveWindow for what it receives.
func seatReliable() *transport.Reliable {
	rel, err := transport.NewReliable(transport.ReliableConfig{ReceiveWindow: seatReceiveWindow})
	if err != nil {
		panic(err)
	}
	return rel
}

// mustReliable returns a message channel with the default limits, which
// are valid.
func mustReliable() *transport.Reliable {
	rel, err := transport.NewReliable(transport.ReliableConfig{})
	if err != nil {
		panic(err)
	}
	return rel
}
