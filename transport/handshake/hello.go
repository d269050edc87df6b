package handshake

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HelloSize is the length of every Hello datagram, header included. A Hello
// is padded with zeros to this size and a shorter one is refused unread, so
// that no answer the server sends to an address that has proven nothing (a
// Challenge or a Refuse, at most a few dozen bytes) is ever larger than the
// datagram that asked for it: forging Hellos from a victim's address buys an
// attacker no amplification. It is the protocol's largest datagram (1200
// bytes, never fragmented), so a join also proves the path carries a
// full-size snapshot before a seat is given out.
const HelloSize = 1200

// NameMax is the longest player name, in bytes of UTF-8.
const NameMax = 32

// helloBody is the length of a Hello's body after the header.
const helloBody = HelloSize - HeaderSize

// helloFixed is the length of a Hello body's fixed fields, up to and
// including the name's length byte.
const helloFixed = 37

// nonceAt is where the client's nonce sits in a Hello's body: datagram
// offset 40.
const nonceAt = 28

// flagDev is the Hello flag bit saying the client runs in dev mode.
const flagDev = 1 << 0

// flagToken is the Hello flag bit saying the Hello carries a sealed connect
// token at tokenAt.
const flagToken = 1 << 1

// flagSpectator is the Hello flag bit saying the client joins to watch.
const flagSpectator = 1 << 3

// TokenSize is the length of the sealed connect token a Hello may carry:
// transport/token's SealedSize, which that package checks against this.
const TokenSize = 323

// tokenAt is where a carried token starts in a Hello's body, after the
// longest name: datagram offset 81.
const tokenAt = helloFixed + NameMax

// ProofSize is the length of the proof a Hello carrying a connect token
// ends its fields with (see Prove).
const ProofSize = 16

// proofAt is where a carried token's proof starts in a Hello's body, right
// after the token: datagram offset 404.
const proofAt = tokenAt + TokenSize

// ProofEnd is the datagram offset where a Hello's proof ends: the proof
// covers the datagram's bytes before ProofEnd-ProofSize.
const ProofEnd = HeaderSize + proofAt + ProofSize

// Hello asks to join. Its token travels in the header: 0 on a first Hello,
// the Challenge's token when echoed. It says what the client holds, so the
// server can refuse a build that would read the game differently (Check).
//
// Body layout (offsets from the start of the datagram, integers little
// endian): 12 SchemaFP u64, 20 ActionFP u64, 28 WorldFP u64, 36 TickRate
// u16, 38 ActionCount u8, 39 flags u8 (bit 0 Dev, bit 1 token, bit 3 spectator, others
// zero), 40 Nonce u64, 48 name length u8 (at most NameMax), 49
// name, zeros up to 81; with the token bit, 81 the sealed connect token
// (TokenSize bytes, to 404) and 404 its proof (ProofSize bytes, to 420);
// then zeros up to HelloSize.
type Hello struct {
	// SchemaFP is the replication schema's fingerprint.
	SchemaFP uint64
	// ActionCount is how many input actions the project defines.
	ActionCount uint8
	// ActionFP is ActionFingerprint of the actions in slot order; 0 while
	// none are defined, which is compared with nothing.
	ActionFP uint64
	// WorldFP is WorldFingerprint of the entry scene file; 0 for a world
	// generated rather than loaded, which is compared with nothing.
	WorldFP uint64
	// TickRate is the project's tick rate, in ticks a second.
	TickRate uint16
	// Name is the player's name. Append writes CleanName(Name); ParseHello
	// refuses a name that CleanName would change. Empty leaves the name to
	// the server.
	Name string
	// Dev says the client runs in dev mode (scripts hot-reloaded).
	Dev bool
	// Spectator asks to watch rather than play: a spectator takes no
	// player seat and drives no entity (flag bit 3).
	Spectator bool
	// Nonce is drawn at random by the client for each join attempt. The server's cookie is bound to it and every answer to the
	// Hello echoes it, so a Challenge or Refuse from anyone who did not
	// see the Hello is told from the server's at once.
	Nonce uint64
	// Token is the client's sealed connect token (transport/token), or
	// nil. A client sends it only in a Hello that echoes a Challenge's
	// token, so a server opens tokens only for an address that has proven
	// it receives. ParseHello returns it aliasing the body. A pointer keeps
	// Hello comparable and cheap to copy.
	Token *[TokenSize]byte
	// Proof, with Token, proves the sender holds the token's
	// client-to-server key (Prove, Proven): the sealed token alone, which
	// anyone on the path can copy, seats nobody and moves no seat. Append
	// writes it as it is; a client leaves it zero and has Prove fill it
	// in once the datagram is whole.
	Proof [ProofSize]byte
	// Password, if set, is the proof that the client knows the server's
	// password (PasswordProof), at datagram offset 432 with flag bit 2.
	Password *[PasswordProofSize]byte
}

// Kind returns KindHello.
func (Hello) Kind() Kind { return KindHello }

// Append appends the Hello's body, padded so the datagram is HelloSize
// bytes when b held just the header, and returns the longer slice.
func (h Hello) Append(b []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, h.SchemaFP)
	b = binary.LittleEndian.AppendUint64(b, h.ActionFP)
	b = binary.LittleEndian.AppendUint64(b, h.WorldFP)
	b = binary.LittleEndian.AppendUint16(b, h.TickRate)
	var flags byte
	if h.Dev {
		flags |= flagDev
	}
	carry := h.Token != nil
	if carry {
		flags |= flagToken
	}
	if h.Password != nil {
		flags |= flagPassword
	}
	if h.Spectator {
		flags |= flagSpectator
	}
	name := CleanName(h.Name)
	b = append(b, h.ActionCount, flags)
	b = binary.LittleEndian.AppendUint64(b, h.Nonce)
	b = append(b, byte(len(name)))
	b = append(b, name...)
	// The compiler turns append of a fresh make into a grow-and-clear, so
	// padding allocates nothing beyond b's own growth.
	if carry {
		b = append(b, make([]byte, tokenAt-(len(b)-start))...)
		b = append(b, h.Token[:]...)
		b = append(b, h.Proof[:]...)
	}
	if h.Password != nil {
		b = append(b, make([]byte, passwordAt-(len(b)-start))...)
		b = append(b, h.Password[:]...)
	}
	return append(b, make([]byte, helloBody-(len(b)-start))...)
}

// ParseHello reads a Hello body (what ParseHeader left after the header).
// It refuses, with a *ParseError, a body that would make the datagram
// shorter than HelloSize (ProblemUnpadded) or longer, unknown flag bits, a
// name CleanName would change, and padding that is not all zero.
func ParseHello(body []byte) (Hello, error) {
	switch {
	case len(body) < helloBody:
		return Hello{}, fail(KindHello, ProblemUnpadded)
	case len(body) > helloBody:
		return Hello{}, fail(KindHello, ProblemLength)
	}
	flags := body[27]
	if flags&^(flagDev|flagToken|flagPassword|flagSpectator) != 0 {
		return Hello{}, fail(KindHello, ProblemFlags)
	}
	nonce := binary.LittleEndian.Uint64(body[nonceAt:])
	n := int(body[helloFixed-1])
	if n > NameMax {
		return Hello{}, fail(KindHello, ProblemName)
	}
	name := body[helloFixed : helloFixed+n]
	if !cleanName(name) {
		return Hello{}, fail(KindHello, ProblemName)
	}
	var tok *[TokenSize]byte
	var proof [ProofSize]byte
	pad := body[helloFixed+n:]
	if flags&flagToken != 0 {
		tok = (*[TokenSize]byte)(body[tokenAt:proofAt])
		proof = [ProofSize]byte(body[proofAt : proofAt+ProofSize])
		if !zero(body[helloFixed+n : tokenAt]) {
			return Hello{}, fail(KindHello, ProblemPadding)
		}
		pad = body[proofAt+ProofSize:]
	}
	var password *[PasswordProofSize]byte
	if flags&flagPassword != 0 {
		// The proof sits at a fixed place: what lies between the fields
		// before it and it is padding.
		off := len(body) - len(pad)
		if !zero(body[off:passwordAt]) {
			return Hello{}, fail(KindHello, ProblemPadding)
		}
		password = (*[PasswordProofSize]byte)(body[passwordAt : passwordAt+PasswordProofSize])
		pad = body[passwordAt+PasswordProofSize:]
	}
	if !zero(pad) {
		return Hello{}, fail(KindHello, ProblemPadding)
	}
	return Hello{
		Password:    password,
		Token:       tok,
		Proof:       proof,
		Nonce:       nonce,
		SchemaFP:    binary.LittleEndian.Uint64(body[0:8]),
		ActionFP:    binary.LittleEndian.Uint64(body[8:16]),
		WorldFP:     binary.LittleEndian.Uint64(body[16:24]),
		TickRate:    binary.LittleEndian.Uint16(body[24:26]),
		ActionCount: body[26],
		Dev:         flags&flagDev != 0,
		Spectator:   flags&flagSpectator != 0,
		Name:        string(name),
	}, nil
}

// CleanName returns s made fit to travel as a player name: each invalid
// UTF-8 byte becomes U+FFFD, characters that draw nothing (controls, format
// characters, line separators) are dropped, so a name can neither break a
// log line nor hide text, and the result is cut at a character boundary to
// at most NameMax bytes. A name that is already fit is returned unchanged.
func CleanName(s string) string {
	if cleanName([]byte(s)) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // an invalid byte ranges as utf8.RuneError
		if !nameRune(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > NameMax {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanName reports whether CleanName would leave name unchanged.
func cleanName(name []byte) bool {
	if len(name) > NameMax || !utf8.Valid(name) {
		return false
	}
	for len(name) > 0 {
		r, size := utf8.DecodeRune(name)
		if !nameRune(r) {
			return false
		}
		name = name[size:]
	}
	return true
}

// nameRune reports whether r may appear in a player name: anything that
// draws, and the ordinary space.
func nameRune(r rune) bool { return unicode.IsGraphic(r) }

// zero reports whether b is all zero bytes.
func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
