// Package netmsg encodes and decodes the session's own datagram formats,
// as docs/protocol.md lays them out: the framing of every Data payload
// ("Data: the payload"), the relay section a server's payload may carry
// ("The relay section"), and the messages a server sends on the reliable
// channel ("Messages a server sends"): a script bundle, no reload, the
// players and their round trips; and the project's messages, which go
// both ways ("Project messages"). Package session decides who sends which,
// and when; this package only says what the bytes are.
//
// The package is sans-IO and keeps no state. Each format has an Append
// that writes it after what a slice already holds and a ParseXxx that reads
// it back. Parsers are strict (every field canonical, nothing left over
// where the layout ends) and never panic on any input, so bytes from
// anyone can be handed to them; what they refuse is a *ParseError naming
// the format, except a reliable section the channel refuses, whose error is
// transport.Reliable's.
//
// A Data payload, after the connection header, both ways:
//
//	flags u8 | reliable section     | relay section   | the packet proper:             | guest section
//	         | with bit 0: written  | with bit 1: a   | a snapshot from the server,    | with bit 2: a
//	         | and read by          | Relay, from the | a command packet (and guests'  | GuestSection,
//	         | transport.Reliable   | server only     | streams) from a client         | server only
//
// The packet proper and the relay are planned first; the reliable section
// gets the bytes of the datagram they leave (see AppendPayload).
//
// A reliable message's first byte is its Kind, and the rest its body:
//
//	1 Bundle      a dev server's hot reload: its files and the tick they take effect at
//	2 NoReload    why a client that did not join with --dev cannot follow one
//	3 Players     every seated player: number, entity, name
//	4 RoundTrips  the round trip to each player, about once a second
//	5 Message     a project message, both ways: its number and its fields
//	6 Chat        a line a player typed, client to server
//	7 ChatLine    a line the server sends: a player's, or its own (from 0)
//	8 Kicked      why the server is removing the player
//	9 DevNotice   a reload a dev server refused, and why, to dev clients
//	12 Guest      seating and unseating a connection's guests, both ways
//
// A client ignores a kind it does not know and an empty message, so a later
// server can add kinds. Integers are little endian, bar the relay's slots
// and generations (LEB128). Each format has an example in
// testdata/vectors.txt, written by the encoders and read back by the
// parsers.
package netmsg
