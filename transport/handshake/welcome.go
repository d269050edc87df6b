package handshake

import "encoding/binary"

// WelcomeSize is the length of a Welcome's body (unsealed; sealing adds
// its counter and tag).
const WelcomeSize = 11

// welcomeBody is the length of a Welcome's body.
const welcomeBody = WelcomeSize

// welcomeDev is the Welcome flag bit saying the server runs in dev mode.
const welcomeDev = 1 << 0

// Welcome seats the player whose Hello echoed a valid token. From it on, the
// token in the header is the seat: both ends drop datagrams without it.
//
// Body layout (offsets from the start of the datagram, little endian):
// 12 ServerTick u32, 16 Player u16, 18 MaxPlayers u16, 20 TickRate u16,
// 22 flags u8 (bit 0 Dev, others zero). 23 bytes in all.
type Welcome struct {
	// ServerTick is the server's tick when it sent the Welcome, where the
	// client starts its clock.
	ServerTick uint32
	// Player is the player number given to this client; never 0.
	Player uint16
	// MaxPlayers is how many seats the server has; never 0.
	MaxPlayers uint16
	// TickRate is the server's tick rate, in ticks a second; never 0. It
	// equals the Hello's, or the join would have been refused.
	TickRate uint16
	// Dev says the server runs in dev mode and may push script changes.
	Dev bool
}

// Kind returns KindWelcome.
func (Welcome) Kind() Kind { return KindWelcome }

// Append appends the Welcome's body to b and returns the longer slice.
func (w Welcome) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, w.ServerTick)
	b = binary.LittleEndian.AppendUint16(b, w.Player)
	b = binary.LittleEndian.AppendUint16(b, w.MaxPlayers)
	b = binary.LittleEndian.AppendUint16(b, w.TickRate)
	var flags byte
	if w.Dev {
		flags |= welcomeDev
	}
	return append(b, flags)
}

// ParseWelcome reads a Welcome body. It refuses, with a *ParseError, a body
// of the wrong length, unknown flag bits, and a zero player number, seat
// count or tick rate.
func ParseWelcome(body []byte) (Welcome, error) {
	if err := exact(KindWelcome, body, welcomeBody); err != nil {
		return Welcome{}, err
	}
	w := Welcome{
		ServerTick: binary.LittleEndian.Uint32(body[0:4]),
		Player:     binary.LittleEndian.Uint16(body[4:6]),
		MaxPlayers: binary.LittleEndian.Uint16(body[6:8]),
		TickRate:   binary.LittleEndian.Uint16(body[8:10]),
		Dev:        body[10]&welcomeDev != 0,
	}
	if body[10]&^welcomeDev != 0 {
		return Welcome{}, fail(KindWelcome, ProblemFlags)
	}
	if w.Player == 0 || w.MaxPlayers == 0 || w.TickRate == 0 {
		return Welcome{}, fail(KindWelcome, ProblemValue)
	}
	return w, nil
}
