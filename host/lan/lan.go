// Package lan is the LAN discovery datagram: a client's request, sent to a
// broadcast address on Port, and each server's answer, sent back to the
// request's source. It only encodes and decodes, and bounds how often one
// source is answered; the host owns the sockets and the clock.
//
// A request is RequestSize bytes: Magic, Version, KindRequest, an 8-byte
// nonce, and zeros to pad it. An answer is at most RequestSize bytes (no
// server answers with more than it was sent, so discovery cannot amplify
// a spoofed request): Magic, Version, KindAnswer, the nonce echoed, flags,
// players seated and seats (2 bytes each), the game's UDP port (2 bytes),
// the schema fingerprint (8 bytes), and the project's name (a length byte
// and at most MaxName bytes). Integers are big-endian. See docs/protocol.md.
package lan

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"time"
	"unicode/utf8"
)

// Port is the UDP port servers hear discovery requests on: near the game
// ports (27960 by default), and shared by every server on one machine.
const Port = 27959

// Magic opens every discovery datagram.
const Magic = "VKML"

// Version is the discovery format's version, apart from the game's wire.
const Version = 1

// The second byte after Magic: what the datagram is.
const (
	KindRequest = 1
	KindAnswer  = 2
)

// RequestSize is a request's exact size, and the most an answer may take.
const RequestSize = 64

// answerHead is an answer's size before the name's bytes.
const answerHead = 4 + 1 + 1 + 8 + 1 + 2 + 2 + 2 + 8 + 1

// MaxName is the most of the project's name an answer carries.
const MaxName = RequestSize - answerHead

// FlagKey says the server admits only players with a connect token.
const FlagKey = 1

// Answer is what a server says of itself.
type Answer struct {
	Nonce       uint64
	Project     string
	Fingerprint uint64
	Players     uint16
	Seats       uint16
	Port        uint16
	// Key: the server needs a connect token (a sealed server).
	Key bool
}

// Errors a decoder returns.
var (
	ErrShort   = errors.New("lan: datagram too short")
	ErrSize    = errors.New("lan: datagram of the wrong size")
	ErrMagic   = errors.New("lan: not a discovery datagram")
	ErrVersion = errors.New("lan: unknown discovery version")
	ErrKind    = errors.New("lan: unexpected kind")
	ErrPadding = errors.New("lan: request padding is not zero")
	ErrName    = errors.New("lan: bad project name")
	ErrFlags   = errors.New("lan: unknown flags")
)

// AppendRequest appends a request carrying nonce to b.
func AppendRequest(b []byte, nonce uint64) []byte {
	b = append(b, Magic...)
	b = append(b, Version, KindRequest)
	b = binary.BigEndian.AppendUint64(b, nonce)
	return append(b, make([]byte, RequestSize-4-2-8)...)
}

// ParseRequest returns a request's nonce, or why b is not a request.
func ParseRequest(b []byte) (uint64, error) {
	if err := head(b, KindRequest); err != nil {
		return 0, err
	}
	if len(b) != RequestSize {
		return 0, ErrSize
	}
	for _, c := range b[14:] {
		if c != 0 {
			return 0, ErrPadding
		}
	}
	return binary.BigEndian.Uint64(b[6:]), nil
}

func head(b []byte, kind byte) error {
	if len(b) < 14 {
		return ErrShort
	}
	if string(b[:4]) != Magic {
		return ErrMagic
	}
	if b[4] != Version {
		return ErrVersion
	}
	if b[5] != kind {
		return ErrKind
	}
	return nil
}

// AppendAnswer appends a to b; a project name longer than MaxName bytes is
// cut at a character's boundary, so the answer never exceeds RequestSize.
func AppendAnswer(b []byte, a Answer) []byte {
	name := a.Project
	if len(name) > MaxName {
		n := MaxName
		for n > 0 && !utf8.RuneStart(name[n]) {
			n--
		}
		name = name[:n]
	}
	b = append(b, Magic...)
	b = append(b, Version, KindAnswer)
	b = binary.BigEndian.AppendUint64(b, a.Nonce)
	var flags byte
	if a.Key {
		flags |= FlagKey
	}
	b = append(b, flags)
	b = binary.BigEndian.AppendUint16(b, a.Players)
	b = binary.BigEndian.AppendUint16(b, a.Seats)
	b = binary.BigEndian.AppendUint16(b, a.Port)
	b = binary.BigEndian.AppendUint64(b, a.Fingerprint)
	b = append(b, byte(len(name)))
	return append(b, name...)
}

// ParseAnswer decodes an answer, refusing anything malformed: a wrong
// size, unknown flags, a name that is too long, not UTF-8 or holds control
// characters, or a port of 0.
func ParseAnswer(b []byte) (Answer, error) {
	if err := head(b, KindAnswer); err != nil {
		return Answer{}, err
	}
	if len(b) < answerHead {
		return Answer{}, ErrShort
	}
	if len(b) > RequestSize {
		return Answer{}, ErrSize
	}
	a := Answer{Nonce: binary.BigEndian.Uint64(b[6:])}
	flags := b[14]
	if flags&^FlagKey != 0 {
		return Answer{}, ErrFlags
	}
	a.Key = flags&FlagKey != 0
	a.Players = binary.BigEndian.Uint16(b[15:])
	a.Seats = binary.BigEndian.Uint16(b[17:])
	a.Port = binary.BigEndian.Uint16(b[19:])
	a.Fingerprint = binary.BigEndian.Uint64(b[21:])
	n := int(b[29])
	if len(b) != answerHead+n {
		return Answer{}, ErrSize
	}
	name := b[answerHead:]
	if n == 0 || !utf8.Valid(name) {
		return Answer{}, ErrName
	}
	for _, r := range string(name) {
		if r < 0x20 || r == 0x7f {
			return Answer{}, ErrName
		}
	}
	if a.Port == 0 {
		return Answer{}, ErrSize
	}
	a.Project = string(name)
	return a, nil
}

// Limiter bounds how often a server answers one source address (and all
// of them): a token bucket per address, Burst deep and refilled at Rate a
// second, and one for the whole server at Total a second. It remembers at
// most MaxSources addresses; when full it forgets them all, which at worst
// lets a source a fresh burst.
type Limiter struct {
	Rate, Burst, Total float64
	MaxSources         int
	src                map[netip.Addr]*bucket
	all                bucket
}

type bucket struct {
	tokens float64
	at     time.Duration
}

// NewLimiter returns the server's limiter: 4 answers a second to one
// address (a burst of 8), 200 a second in all, 4096 addresses remembered.
func NewLimiter() *Limiter {
	return &Limiter{Rate: 4, Burst: 8, Total: 200, MaxSources: 4096}
}

// Allow says whether to answer from at now (any monotonic time, such as
// the time since the server started), and counts it if so.
func (l *Limiter) Allow(from netip.Addr, now time.Duration) bool {
	if l.src == nil {
		l.src = make(map[netip.Addr]*bucket)
		l.all = bucket{tokens: l.Total, at: now}
	}
	s := l.src[from]
	if s == nil {
		if len(l.src) >= l.MaxSources {
			clear(l.src)
		}
		s = &bucket{tokens: l.Burst, at: now}
		l.src[from] = s
	}
	if !s.take(now, l.Rate, l.Burst) {
		return false
	}
	return l.all.take(now, l.Total, l.Total)
}

func (b *bucket) take(now time.Duration, rate, max float64) bool {
	if now > b.at {
		b.tokens = min(max, b.tokens+rate*(now-b.at).Seconds())
		b.at = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
