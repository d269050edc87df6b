package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Welcome sizes ("Messages"): 23 bytes, 47 sealed.
const (
	WelcomeLen       = 23
	SealedWelcomeLen = 47
	welcomeBodyLen   = WelcomeLen - HeaderLen
	welcomeFlagDev   = 1 << 0
)

// Welcome is a decoded Welcome (kind 3).
type Welcome struct {
	Header
	ServerTick uint32
	Player     uint16
	MaxPlayers uint16
	TickRate   uint16
	Dev        bool
}

// ParseWelcome decodes an unsealed Welcome.
func ParseWelcome(b []byte) (Welcome, error) {
	h, err := expectKind(b, KindWelcome)
	if err != nil {
		return Welcome{}, err
	}
	if len(b) != WelcomeLen {
		return Welcome{}, fmt.Errorf("conformance: welcome of %d bytes, not %d", len(b), WelcomeLen)
	}
	return parseWelcomeBody(h, b[HeaderLen:])
}

// parseWelcomeBody reads the 11 bytes after the header (or, sealed, after
// the counter once opened). It refuses what "a client cannot read": a bad
// length, unknown flags, a zero field.
func parseWelcomeBody(h Header, body []byte) (Welcome, error) {
	if len(body) != welcomeBodyLen {
		return Welcome{}, fmt.Errorf("conformance: welcome body of %d bytes, not %d", len(body), welcomeBodyLen)
	}
	le := binary.LittleEndian
	w := Welcome{
		Header:     h,
		ServerTick: le.Uint32(body[0:4]),
		Player:     le.Uint16(body[4:6]),
		MaxPlayers: le.Uint16(body[6:8]),
		TickRate:   le.Uint16(body[8:10]),
		Dev:        body[10]&welcomeFlagDev != 0,
	}
	if body[10]&^welcomeFlagDev != 0 {
		return Welcome{}, fmt.Errorf("conformance: welcome flags %#x with unknown bits", body[10])
	}
	if w.Player == 0 || w.MaxPlayers == 0 || w.TickRate == 0 {
		return Welcome{}, errors.New("conformance: welcome with a zero player, max players or tick rate")
	}
	return w, nil
}

// OpenWelcome opens a sealed Welcome (47 bytes) under the
// server-to-client key and decodes it.
func OpenWelcome(s2c []byte, b []byte) (Welcome, uint64, error) {
	h, err := expectKind(b, KindWelcome)
	if err != nil {
		return Welcome{}, 0, err
	}
	if len(b) != SealedWelcomeLen {
		return Welcome{}, 0, fmt.Errorf("conformance: sealed welcome of %d bytes, not %d", len(b), SealedWelcomeLen)
	}
	counter, body, err := Open(s2c, b)
	if err != nil {
		return Welcome{}, 0, err
	}
	w, err := parseWelcomeBody(h, body)
	return w, counter, err
}
