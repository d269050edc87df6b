package conformance

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Hello layout ("Joining", "Messages", the Hello's table).
const (
	HelloLen         = MaxDatagram
	helloNameAt      = 49
	helloNameEnd     = 81 // zeros to 81
	helloTokenAt     = 81
	helloProofAt     = 404
	helloProofEnd    = 420
	MaxNameLen       = 32
	helloFlagDev     = 1 << 0
	helloFlagToken   = 1 << 1
	helloProofLabel  = "vkm hello proof"
	helloProofLength = 16
)

// Hello is a decoded Hello (kind 1).
type Hello struct {
	Header
	SchemaFP, ActionFP, WorldFP uint64
	TickRate                    uint16
	ActionCount                 uint8
	Dev                         bool
	Nonce                       uint64
	Name                        string
	ConnectToken                []byte // the 323 sealed bytes at 81, with flag bit 1
	Proof                       []byte // the 16 bytes at 404, with flag bit 1
}

// ParseHello decodes a Hello and refuses what rule 1 of "What the server
// does with a Hello" drops: another length than 1200, unknown flags, a bad
// name, non-zero padding.
func ParseHello(b []byte) (Hello, error) {
	h, err := expectKind(b, KindHello)
	if err != nil {
		return Hello{}, err
	}
	if len(b) != HelloLen {
		return Hello{}, fmt.Errorf("conformance: hello of %d bytes, not %d", len(b), HelloLen)
	}
	le := binary.LittleEndian
	m := Hello{
		Header:      h,
		SchemaFP:    le.Uint64(b[12:20]),
		ActionFP:    le.Uint64(b[20:28]),
		WorldFP:     le.Uint64(b[28:36]),
		TickRate:    le.Uint16(b[36:38]),
		ActionCount: b[38],
		Dev:         b[39]&helloFlagDev != 0,
		Nonce:       le.Uint64(b[40:48]),
	}
	flags := b[39]
	if flags&^(helloFlagDev|helloFlagToken) != 0 {
		return Hello{}, fmt.Errorf("conformance: hello flags %#x with unknown bits", flags)
	}
	n := int(b[48])
	if n > MaxNameLen {
		return Hello{}, fmt.Errorf("conformance: hello name of %d bytes, over %d", n, MaxNameLen)
	}
	name := b[helloNameAt : helloNameAt+n]
	if err := checkName(name); err != nil {
		return Hello{}, err
	}
	m.Name = string(name)
	if !allZero(b[helloNameAt+n : helloNameEnd]) {
		return Hello{}, errors.New("conformance: hello: non-zero bytes between the name and 81")
	}
	tail := helloTokenAt
	if flags&helloFlagToken != 0 {
		m.ConnectToken = b[helloTokenAt:helloProofAt]
		m.Proof = b[helloProofAt:helloProofEnd]
		tail = helloProofEnd
	}
	if !allZero(b[tail:]) {
		return Hello{}, fmt.Errorf("conformance: hello: non-zero padding after %d", tail)
	}
	return m, nil
}

// checkName applies the Hello's name rule: valid UTF-8 of graphic
// characters only (Unicode's letters, marks, numbers, punctuation, symbols
// and space separators: unicode.IsGraphic), so no control or format
// characters.
func checkName(name []byte) error {
	if !utf8.Valid(name) {
		return errors.New("conformance: name is not valid UTF-8")
	}
	for _, r := range string(name) {
		if !unicode.IsGraphic(r) {
			return fmt.Errorf("conformance: name has the character %U", r)
		}
	}
	return nil
}

// HelloProof is the proof a Hello carries at 404: the first 16 bytes of
// HMAC-SHA256, keyed with the client-to-server session key, of the 15
// ASCII bytes "vkm hello proof" and the datagram's bytes 0 to 403.
func HelloProof(c2s []byte, datagram []byte) ([]byte, error) {
	if len(c2s) != 32 {
		return nil, fmt.Errorf("conformance: proof key of %d bytes, not 32", len(c2s))
	}
	if len(datagram) < helloProofAt {
		return nil, fmt.Errorf("conformance: %d bytes, under the proof's %d", len(datagram), helloProofAt)
	}
	mac := hmac.New(sha256.New, c2s)
	mac.Write([]byte(helloProofLabel))
	mac.Write(datagram[:helloProofAt])
	return mac.Sum(nil)[:helloProofLength], nil
}
