package handshake

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reason says why a join was refused. The numbers are frozen across protocol
// versions, like the header. A number this build does not know (one a newer
// build added) is kept as it is, and its String and Sentence say only that
// the server refused.
type Reason uint8

// The refusal reasons.
const (
	// ReasonFull: every seat is taken.
	ReasonFull Reason = 1
	// ReasonDeclined: the game's join handler said no, for instance
	// because the match has started.
	ReasonDeclined Reason = 2
	// ReasonMismatch: the two ends hold a different schema, input actions
	// or world, so they would read each other's bytes as something else.
	ReasonMismatch Reason = 3
	// ReasonTickRate: the two ends run at different tick rates.
	ReasonTickRate Reason = 4
	// ReasonVersion: the two ends speak different protocol versions.
	ReasonVersion Reason = 5
	// ReasonJoinFailed: the game's join handler failed (a script error),
	// which is the game's fault, not the player's.
	ReasonJoinFailed Reason = 6
	// ReasonNoToken: the server admits only players with a connect token
	// (it holds a key) and the Hello carried none.
	ReasonNoToken Reason = 7
	// ReasonBadToken: the connect token is not one of this game's: it does
	// not authenticate under the server's key (forged, altered, minted
	// with another key, or not a token at all), or it was minted for
	// another game's protocol id.
	ReasonBadToken Reason = 8
	// ReasonTokenExpired: the connect token is genuine but its time is up.
	ReasonTokenExpired Reason = 9
	// ReasonWrongServer: the connect token is genuine but does not name
	// the address it was presented to.
	ReasonWrongServer Reason = 10
	// ReasonTokenUsed: the connect token has already seated a player (a
	// token admits one join), or the server remembers so many live tokens
	// it cannot tell.
	ReasonTokenUsed Reason = 11
	// ReasonClientSeated: a player with the token's client id is already
	// seated, from another address.
	ReasonClientSeated Reason = 12
	// ReasonShuttingDown: the server is stopping (draining): it plays on
	// with the players it has until they leave, and seats no one new.
	ReasonShuttingDown Reason = 13
	// ReasonPassword: the server asks for a password, and the Hello
	// carried no proof of it or another's (see PasswordProof).
	ReasonPassword Reason = 14

	// reasonLast is the highest reason this build knows.
	reasonLast = ReasonPassword
)

// ReasonCount is one more than the highest reason this build knows: the
// length of an array indexed by Reason.
const ReasonCount = int(reasonLast) + 1

// Known reports whether this build knows reason r.
func (r Reason) Known() bool { return r >= ReasonFull && r <= reasonLast }

// String returns the reason's name, or "reason(N)" for a number this build
// does not know.
// Not made by stringer, which would spell that Reason(N).
func (r Reason) String() string {
	switch r {
	case ReasonFull:
		return "full"
	case ReasonDeclined:
		return "declined"
	case ReasonMismatch:
		return "mismatch"
	case ReasonTickRate:
		return "tick_rate"
	case ReasonVersion:
		return "version"
	case ReasonJoinFailed:
		return "join_failed"
	case ReasonNoToken:
		return "no_token"
	case ReasonBadToken:
		return "bad_token"
	case ReasonTokenExpired:
		return "token_expired"
	case ReasonWrongServer:
		return "wrong_server"
	case ReasonTokenUsed:
		return "token_used"
	case ReasonClientSeated:
		return "client_seated"
	case ReasonShuttingDown:
		return "shutting_down"
	case ReasonPassword:
		return "password"
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}

// Sentence returns what a player is shown for this reason when no details
// are known. Refuse.Sentence adds the details a Refuse carries.
func (r Reason) Sentence() string {
	switch r {
	case ReasonFull:
		return "The server is full."
	case ReasonDeclined:
		return "The game is not taking new players right now; the match may already have started."
	case ReasonMismatch:
		return "This game and the server's are different builds (scripts, input actions or level); both need the same version of the project."
	case ReasonTickRate:
		return "This game and the server run at different tick rates."
	case ReasonVersion:
		return "This game and the server speak different network protocol versions; update the older one."
	case ReasonJoinFailed:
		return "The server could not seat you: the game's join handler failed."
	case ReasonNoToken:
		return "The server admits only players with a connect token; get one from the game's backend (or the server's operator)."
	case ReasonBadToken:
		return "The server does not accept this connect token: it is damaged, or it was made for another game or with another key."
	case ReasonTokenExpired:
		return "The connect token has expired; get a fresh one."
	case ReasonWrongServer:
		return "The connect token is for another server address."
	case ReasonTokenUsed:
		return "The connect token has already been used to join; a token admits one join, so get a fresh one."
	case ReasonClientSeated:
		return "A player with this account is already playing on the server from another address."
	case ReasonShuttingDown:
		return "The server is shutting down."
	case ReasonPassword:
		return "The server needs a password, and this one is missing or wrong."
	}
	return "The server refused to let you join (reason " + strconv.Itoa(int(r)) + ")."
}

// refuseBody is the length of a Refuse's body without a detail.
const refuseBody = 18

// DetailMax is the longest detail a Refuse carries, in bytes of UTF-8.
const DetailMax = 255

// Refuse declines a join. Its header carries the token of the Hello it
// answers (0 for a first Hello) and its body the Hello's nonce, so a client
// takes a refusal only from someone who saw its Hello. A server with a key
// seals the refusals it makes once it has opened the Hello's connect token
// (KindSealedRefuse, the same body sealed under the token's
// server-to-client key); a client holding a token takes an unsealed one as
// advice only. It carries details a player can be shown; each is
// 0 when unknown or when the reason is another one, and Sentence then leaves
// it out.
//
// Body layout (offsets from the start of the datagram, little endian):
// 12 Reason u8 (at this offset in every protocol version), 13 Nonce u64,
// 21 MaxPlayers u16, 23 ServerTickRate u16, 25 ClientTickRate u16, 27
// ServerVersion u8, 28 ClientVersion u8, 29 detail length u8 (at most
// DetailMax), 30 detail (UTF-8). 30 bytes and the detail in all.
type Refuse struct {
	Reason Reason
	// Nonce is the nonce of the Hello this Refuse answers (0 when that
	// Hello, of another protocol version, could not be read).
	Nonce uint64
	// MaxPlayers is the server's seat count, for ReasonFull.
	MaxPlayers uint16
	// ServerTickRate and ClientTickRate are both ends' tick rates, for
	// ReasonTickRate.
	ServerTickRate, ClientTickRate uint16
	// ServerVersion and ClientVersion are both ends' protocol versions,
	// for ReasonVersion.
	ServerVersion, ClientVersion uint8
	// Detail says what went wrong, for the game's developer: a dev server
	// tells a dev client the join handler's error (file:line and message)
	// with ReasonJoinFailed. Append writes CleanDetail(Detail); ParseRefuse
	// refuses a detail CleanDetail would change. Empty: none.
	Detail string
}

// VersionRefusal returns the Refuse for two ends at different protocol
// versions. A server answering a Hello at another version sends
// VersionRefusal(Version, hdr.Version); a client that receives a Refuse at
// another version cannot read its body and stands in
// VersionRefusal(hdr.Version, Version) for it.
func VersionRefusal(server, client uint8) Refuse {
	return Refuse{Reason: ReasonVersion, ServerVersion: server, ClientVersion: client}
}

// Kind returns KindRefuse.
func (Refuse) Kind() Kind { return KindRefuse }

// Append appends the Refuse's body to b and returns the longer slice.
func (r Refuse) Append(b []byte) []byte {
	b = append(b, byte(r.Reason))
	b = binary.LittleEndian.AppendUint64(b, r.Nonce)
	b = binary.LittleEndian.AppendUint16(b, r.MaxPlayers)
	b = binary.LittleEndian.AppendUint16(b, r.ServerTickRate)
	b = binary.LittleEndian.AppendUint16(b, r.ClientTickRate)
	detail := CleanDetail(r.Detail)
	b = append(b, r.ServerVersion, r.ClientVersion, byte(len(detail)))
	return append(b, detail...)
}

// ParseRefuse reads a Refuse body of this protocol version. It accepts any
// reason number, known or not, and fails with a *ParseError on a body
// whose length is not the detail's, and on a detail CleanDetail would
// change: a server can show a player nothing that breaks a line or hides
// text.
func ParseRefuse(body []byte) (Refuse, error) {
	if len(body) < refuseBody {
		return Refuse{}, fail(KindRefuse, ProblemLength)
	}
	if err := exact(KindRefuse, body, refuseBody+int(body[refuseBody-1])); err != nil {
		return Refuse{}, err
	}
	detail := string(body[refuseBody:])
	if CleanDetail(detail) != detail {
		return Refuse{}, fail(KindRefuse, ProblemValue)
	}
	return Refuse{
		Detail:         detail,
		Reason:         Reason(body[0]),
		Nonce:          binary.LittleEndian.Uint64(body[1:9]),
		MaxPlayers:     binary.LittleEndian.Uint16(body[9:11]),
		ServerTickRate: binary.LittleEndian.Uint16(body[11:13]),
		ClientTickRate: binary.LittleEndian.Uint16(body[13:15]),
		ServerVersion:  body[15],
		ClientVersion:  body[16],
	}, nil
}

// Sentence returns what a player is shown for this refusal, with the
// details it carries, such as "The server is full (4 of 4 players)."
func (r Refuse) Sentence() string {
	switch {
	case r.Reason == ReasonFull && r.MaxPlayers != 0:
		n := strconv.Itoa(int(r.MaxPlayers))
		return "The server is full (" + n + " of " + n + " players)."
	case r.Reason == ReasonTickRate && r.ServerTickRate != 0 && r.ClientTickRate != 0:
		return "The server runs at " + strconv.Itoa(int(r.ServerTickRate)) +
			" ticks a second and this game at " + strconv.Itoa(int(r.ClientTickRate)) +
			"; both must use the same tick rate."
	case r.Reason == ReasonVersion && r.ServerVersion != 0 && r.ClientVersion != 0:
		return "The server speaks network protocol version " + strconv.Itoa(int(r.ServerVersion)) +
			" and this game version " + strconv.Itoa(int(r.ClientVersion)) + "; update the older one."
	case r.Reason == ReasonDeclined && r.Detail != "":
		// An operator's access list says why (a ban's reason).
		return r.Detail
	case r.Reason == ReasonJoinFailed && r.Detail != "":
		return "The server could not seat you: the game's join handler failed: " + r.Detail
	case r.Reason == ReasonBadToken && r.Detail != "":
		return "The server does not accept this connect token: " + r.Detail + "."
	}
	return r.Reason.Sentence()
}

// CleanDetail returns s made fit to show a player as one line: each
// invalid UTF-8 byte becomes U+FFFD, each run of characters that draw
// nothing (a line break, a tab, a control or format character) becomes
// one space, spaces at either end are dropped, and the result is cut at a
// character boundary to at most DetailMax bytes. A detail already fit is
// returned unchanged.
func CleanDetail(s string) string {
	if cleanDetail(s) {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s { // an invalid byte ranges as utf8.RuneError
		if !unicode.IsGraphic(r) || r == ' ' {
			space = b.Len() > 0
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if b.Len()+n > DetailMax {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanDetail reports whether CleanDetail would leave s unchanged.
func cleanDetail(s string) bool {
	if len(s) > DetailMax || !utf8.ValidString(s) || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}
