package relay

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// Code is a join code: 30 bits, written as six characters of Crockford's
// base 32 in two groups of three, "K7M-Q2P". 0 is no code.
type Code uint32

// CodeBits is how many bits a code holds; MaxCode is the largest.
const (
	CodeBits         = 30
	MaxCode     Code = 1<<CodeBits - 1
	codeLetters      = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
)

// ErrCode is returned for text that is not a join code.
var ErrCode = errors.New("relay: a join code is six letters and digits such as K7M-Q2P")

// String writes c as "K7M-Q2P".
func (c Code) String() string {
	var b [7]byte
	for i, at := 0, 0; i < 6; i++ {
		if i == 3 {
			b[at] = '-'
			at++
		}
		b[at] = codeLetters[(uint32(c)>>(5*(5-i)))&31]
		at++
	}
	return string(b[:])
}

// ParseCode reads a code as people type it: case does not matter, the
// dash and spaces are optional, and O reads as 0 and I and L as 1.
func ParseCode(s string) (Code, error) {
	var c uint32
	n := 0
	for _, r := range s {
		if r == '-' || r == ' ' {
			continue
		}
		switch r = toUpper(r); r {
		case 'O':
			r = '0'
		case 'I', 'L':
			r = '1'
		}
		v := strings.IndexRune(codeLetters, r)
		if v < 0 || n == 6 {
			return 0, fmt.Errorf("%w, not %q", ErrCode, s)
		}
		c = c<<5 | uint32(v)
		n++
	}
	if n != 6 || c == 0 {
		return 0, fmt.Errorf("%w, not %q", ErrCode, s)
	}
	return Code(c), nil
}

func toUpper(r rune) rune {
	if r >= 'a' && r <= 'z' {
		return r - 'a' + 'A'
	}
	return r
}

// SplitJoin splits "CODE@RELAY" into the code and the relay's address
// ("host:port", or a host alone, whose port is then the caller's
// default). ok is false when s has no "@" or what is before it is not a
// code (it is then an ordinary address).
func SplitJoin(s string) (c Code, relayAddr string, ok bool, err error) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return 0, "", false, nil
	}
	c, err = ParseCode(s[:at])
	if err != nil {
		return 0, "", true, err
	}
	if s[at+1:] == "" {
		return 0, "", true, fmt.Errorf("relay: %q names no relay after the @", s)
	}
	return c, s[at+1:], true, nil
}

// TokenAddr is the address a connect token names a server reached by
// code c through a relay on relayPort: fd76:6b6d:0:2::/64 with the code
// in the last 32 bits, at the relay's port. The range is unique-local
// (never routed), so it names no real host; the server adds it to the
// addresses its tokens may name once the relay has given it the code.
func TokenAddr(c Code, relayPort uint16) netip.AddrPort {
	b := [16]byte{0xfd, 0x76, 0x6b, 0x6d, 0, 0, 0, 2}
	b[12], b[13], b[14], b[15] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
	return netip.AddrPortFrom(netip.AddrFrom16(b), relayPort)
}

// PeerAddr is the address a server's transport knows relayed peer p by:
// fd76:6b6d:0:3::/64 with p in the last 32 bits, port 1. The host drops
// UDP datagrams from the range (IsPeerAddr) so none passes for a peer.
func PeerAddr(p uint32) netip.AddrPort {
	b := [16]byte{0xfd, 0x76, 0x6b, 0x6d, 0, 0, 0, 3}
	b[12], b[13], b[14], b[15] = byte(p>>24), byte(p>>16), byte(p>>8), byte(p)
	return netip.AddrPortFrom(netip.AddrFrom16(b), 1)
}

// IsPeerAddr reports whether a is a relayed peer's address, and its
// number.
func IsPeerAddr(a netip.AddrPort) (uint32, bool) {
	if !a.Addr().Is6() || a.Addr().Is4In6() {
		return 0, false
	}
	b := a.Addr().As16()
	if [8]byte(b[:8]) != [8]byte{0xfd, 0x76, 0x6b, 0x6d, 0, 0, 0, 3} || [4]byte(b[8:12]) != [4]byte{} {
		return 0, false
	}
	return uint32(b[12])<<24 | uint32(b[13])<<16 | uint32(b[14])<<8 | uint32(b[15]), true
}
