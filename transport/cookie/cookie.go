// Package cookie issues and checks the join token of the vkm handshake: a
// keyed hash of a peer's address and the current time window, so the server
// can ask a joining address to prove it hears replies without remembering
// anything about it (DESIGN.md, "Constants": join cookie; the model's
// NetJoinCookie).
//
// A Gate is sans-IO: it never reads a clock or a socket. The caller passes the
// time since an epoch of its choosing, the same epoch for every call.
package cookie

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/dchest/siphash"
)

// Window is the length of one token window. It is a protocol constant: a
// token is accepted in the window it was issued in and in the one after, so
// it lives between one and two windows, long enough for a Challenge to make a
// round trip on a bad link and short enough that a captured token soon stops
// working.
const Window = 10 * time.Second

// KeySize is how many bytes New reads for the SipHash key (128 bits).
const KeySize = 16

// msgSize is the length of the hashed message: the address as 16 bytes
// (IPv4 in its IPv4-mapped IPv6 form), the port, the window number and the
// client's nonce.
const msgSize = 16 + 2 + 8 + 8

// Gate issues and checks join tokens under one secret key.
//
// A Gate never changes after New, so it is safe for concurrent use. The zero
// Gate works but its key is all zeros, which anyone can compute tokens for;
// always build one with New.
type Gate struct {
	k0, k1 uint64
}

// New returns a Gate whose 128-bit key is read from rand, which should be
// crypto/rand.Reader in production (a nil rand means exactly that) and a
// fixed reader in tests. It fails only if rand cannot supply KeySize bytes.
func New(rand io.Reader) (*Gate, error) {
	if rand == nil {
		rand = crand.Reader
	}
	var key [KeySize]byte
	if _, err := io.ReadFull(rand, key[:]); err != nil {
		return nil, fmt.Errorf("cookie: reading key: %w", err)
	}
	return &Gate{
		k0: binary.LittleEndian.Uint64(key[0:8]),
		k1: binary.LittleEndian.Uint64(key[8:16]),
	}, nil
}

// Token returns the token for addr and the client's nonce in the window
// that contains now (time since the caller's epoch). It is SipHash-2-4,
// under the Gate's key, of the address's 16-byte IP, its port, the window
// number and the nonce: bound to the join attempt that asked for it as
// well as to the address, so a token seen by one attempt proves nothing
// for another. The IP's zone is
// ignored, and an IPv4 address gets the same token as its IPv4-mapped IPv6
// form. Token never returns 0, which a Hello uses to say it holds no token,
// and it does not allocate.
func (g *Gate) Token(addr netip.AddrPort, nonce uint64, now time.Duration) uint64 {
	return g.tokenIn(addr, nonce, windowOf(now))
}

// Check reports whether token is the one Token gave addr and nonce in now's
// window or in the window before it. A token of 0 never passes.
func (g *Gate) Check(addr netip.AddrPort, nonce, token uint64, now time.Duration) bool {
	if token == 0 {
		return false
	}
	w := windowOf(now)
	// Both hashes are always computed, so the time Check takes does not say
	// which window a near miss was for.
	cur := g.tokenIn(addr, nonce, w)
	prev := g.tokenIn(addr, nonce, w-1)
	return token == cur || token == prev
}

// tokenIn hashes addr and nonce with window number w. The message lives on the stack:
// siphash.Hash does not let its argument escape.
func (g *Gate) tokenIn(addr netip.AddrPort, nonce uint64, w int64) uint64 {
	var msg [msgSize]byte
	ip := addr.Addr().As16()
	copy(msg[0:16], ip[:])
	binary.LittleEndian.PutUint16(msg[16:18], addr.Port())
	binary.LittleEndian.PutUint64(msg[18:26], uint64(w))
	binary.LittleEndian.PutUint64(msg[26:34], nonce)
	return nonzero(siphash.Hash(g.k0, g.k1, msg[:]))
}

// nonzero maps a hash of 0 to 1, because 0 means "no token" on the wire.
// This makes the value 1 twice as likely as any other, which costs nothing
// against a 64-bit guess.
func nonzero(t uint64) uint64 {
	if t == 0 {
		return 1
	}
	return t
}

// windowOf returns the number of the window containing now, rounding toward
// minus infinity so that a negative time is not folded into window 0.
func windowOf(now time.Duration) int64 {
	w := int64(now / Window)
	if now < 0 && now%Window != 0 {
		w--
	}
	return w
}
