package netmsg

import "strconv"

// Kind is the first byte of a message on the reliable channel, saying which
// message it is. Protocol constants: a kind's number never changes meaning.
type Kind uint8

// The kinds of message a server sends.
const (
	// KindBundle is a script bundle (Bundle): a dev server's hot reload.
	KindBundle Kind = 1
	// KindNoReload tells a client that did not join with --dev why it
	// cannot follow the reload the server is about to make (NoReload).
	KindNoReload Kind = 2
	// KindPlayers lists every seated player (Players).
	KindPlayers Kind = 3
	// KindRoundTrips gives the round trip the server measures to each
	// player (RoundTrips).
	KindRoundTrips Kind = 4
)

// The kind both ends send.
const (
	// KindMessage is a project message (Message): a client's net.send to
	// the server, or the server's net.send_to and net.broadcast to
	// players.
	KindMessage Kind = 5
)

// The chat: a player's line to the server, and the lines the server sends.
const (
	// KindChat is a line a player typed (Chat), client to server.
	KindChat Kind = 6
	// KindChatLine is a line the server sends players (ChatLine): a
	// player's, as the server kept it, or its own.
	KindChatLine Kind = 7
)

// KindKicked tells a player they are being removed, and why (Kicked),
// server to client.
const KindKicked Kind = 8

// KindDevNotice tells a dev client of a reload the server refused
// (DevNotice), server to client.
const KindDevNotice Kind = 9

// KindFollow tells the server which player a spectator follows (Follow),
// client to server.
const KindFollow Kind = 11

// KindVoice tells a listener whose voice each of its voice slots carries
// (Voice), server to client.
const KindVoice Kind = 10

// KindOf returns the kind of msg, or 0 (no kind) for an empty message.
func KindOf(msg []byte) Kind {
	if len(msg) == 0 {
		return 0
	}
	return Kind(msg[0])
}

// String returns the kind's name, or "kind(N)" for a number this build
// does not know.
// Not made by stringer, which would spell that Kind(N).
func (k Kind) String() string {
	switch k {
	case KindBundle:
		return "bundle"
	case KindNoReload:
		return "no reload"
	case KindPlayers:
		return "players"
	case KindRoundTrips:
		return "round trips"
	case KindMessage:
		return "message"
	case KindChat:
		return "chat"
	case KindChatLine:
		return "chat line"
	case KindKicked:
		return "kicked"
	case KindDevNotice:
		return "dev notice"
	case KindGuest:
		return "guest"
	case KindFollow:
		return "follow"
	case KindVoice:
		return "voice"
	case KindInspect:
		return "inspect"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
