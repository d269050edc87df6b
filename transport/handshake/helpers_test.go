package handshake

import (
	"vkm/transport/seal"

	"errors"
	"testing"
)

// parseDatagram reads a whole datagram of this version: header, then the
// body by kind. It is what a host does after Classify says VerdictRead.
func parseDatagram(b []byte) (Header, Message, error) {
	h, body, err := ParseHeader(b)
	if err != nil {
		return h, nil, err
	}
	var m Message
	switch h.Kind {
	case KindHello:
		m, err = ParseHello(body)
	case KindChallenge:
		m, err = ParseChallenge(body)
	case KindWelcome:
		m, err = ParseWelcome(body)
	case KindRefuse:
		m, err = ParseRefuse(body)
	case KindSealedRefuse:
		var plain []byte
		if _, _, plain, err = seal.OpenOnce(nil, sampleKey, HeaderSize, b); err == nil {
			m, err = ParseRefuse(plain)
		}
	case KindGoodbye:
		m, err = ParseGoodbye(body)
	default:
		err = &ParseError{Kind: h.Kind, Problem: ProblemValue}
	}
	return h, m, err
}

// wantProblem fails t unless err is a *ParseError with problem p.
func wantProblem(tb testing.TB, err error, p Problem) {
	tb.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		tb.Fatalf("err = %v, want a *ParseError with %v", err, p)
	}
	if pe.Problem != p {
		tb.Fatalf("problem = %v (%v), want %v", pe.Problem, err, p)
	}
}

// sampleHello is a Hello with every field set.
var sampleHello = Hello{
	SchemaFP:    0x1122334455667788,
	ActionCount: 5,
	ActionFP:    0x99aabbccddeeff00,
	WorldFP:     0x0102030405060708,
	TickRate:    64,
	Name:        "ada",
	Dev:         true,
	Nonce:       sampleNonce,
}

// sampleNonce is the join attempt's nonce the sample messages carry.
const sampleNonce = 0x1f2e3d4c5b6a7988

// sampleKey stands for a connect token's session key: 0x40, 0x41, ...
var sampleKey = func() *[32]byte {
	var k [32]byte
	for i := range k {
		k[i] = byte(0x40 + i)
	}
	return &k
}()

// sampleToken stands for a sealed connect token: TokenSize bytes, none of
// them zero, so a misplaced copy shows.
var sampleToken = func() *[TokenSize]byte {
	var b [TokenSize]byte
	for i := range b {
		b[i] = byte(i%251 + 1)
	}
	return &b
}()

// sampleMessages is one message of each kind, with its token.
var sampleMessages = []struct {
	name  string
	token uint64
	msg   Message
}{
	{"first hello", 0, Hello{SchemaFP: 1, TickRate: 64}},
	{"echoed hello", 0x0123456789abcdef, sampleHello},
	{"echoed hello with connect token", 0x0123456789abcdef, Hello{SchemaFP: 3, TickRate: 64, Name: "grace", Token: sampleToken}},
	{"refuse token used", 0x0123456789abcdef, Refuse{Reason: ReasonTokenUsed}},
	{"refuse bad token", 0x0123456789abcdef, Refuse{Reason: ReasonBadToken, Detail: "minted for another game"}},
	{"hello with long unicode name", 7, Hello{SchemaFP: 2, ActionCount: 255, ActionFP: ^uint64(0), WorldFP: ^uint64(0), TickRate: 65535, Name: "Zoë ünstoppable!! 🐉🐉🐉"}},
	{"challenge", 0xfeedface, Challenge{Nonce: sampleNonce}},
	{"welcome", 9, Welcome{ServerTick: 123456, Player: 3, MaxPlayers: 4, TickRate: 64, Dev: true}},
	{"welcome max", ^uint64(0), Welcome{ServerTick: ^uint32(0), Player: 65535, MaxPlayers: 65535, TickRate: 65535}},
	{"refuse full", 0, Refuse{Reason: ReasonFull, Nonce: sampleNonce, MaxPlayers: 4}},
	{"refuse tick rate", 5, Refuse{Reason: ReasonTickRate, ServerTickRate: 64, ClientTickRate: 128}},
	{"refuse version", 0, VersionRefusal(Version, 2)},
	{"refuse join failed", 3, Refuse{Reason: ReasonJoinFailed}},
	{"refuse join failed with detail", 3, Refuse{Reason: ReasonJoinFailed, Detail: "scripts/join.lua:7: attempt to index a nil value (global 'spawn')"}},
	{"refuse unknown reason", 0, Refuse{Reason: 200, MaxPlayers: 1, ServerTickRate: 2, ClientTickRate: 3, ServerVersion: 4, ClientVersion: 5}},
	{"goodbye", 11, Goodbye{Reason: GoodbyeShutdown}},
	{"goodbye unknown reason", 11, Goodbye{Reason: 99}},
}
