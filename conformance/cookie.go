package conformance

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
)

// CookieWindow is the cookie's window in nanoseconds ("The session token
// and what it is bound to": the server's time since it started, divided by
// 10 s, rounded down).
const CookieWindow = 10_000_000_000

// Cookie computes the header token a Challenge hands out: SipHash-2-4
// under the server's 128-bit key (k0 and k1 read little endian from its 16
// bytes) of 34 bytes: the client's IP as 16 bytes (IPv4 in its
// IPv4-mapped form), its UDP port u16, the window number i64 and the
// Hello's nonce u64. A hash of 0 is sent as 1.
func Cookie(key [16]byte, client netip.AddrPort, window int64, nonce uint64) uint64 {
	ip := client.Addr().As16() // As16 maps an IPv4 address to ::ffff:a.b.c.d
	msg := append([]byte(nil), ip[:]...)
	msg = binary.LittleEndian.AppendUint16(msg, client.Port())
	msg = binary.LittleEndian.AppendUint64(msg, uint64(window))
	msg = binary.LittleEndian.AppendUint64(msg, nonce)
	h := sipHash24(binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:]), msg)
	if h == 0 {
		return 1
	}
	return h
}

// sipHash24 is SipHash-2-4 (Aumasson and Bernstein, 2012), written out
// because the standard library has none and the cookie is its only use.
func sipHash24(k0, k1 uint64, m []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	compress := func(w uint64) {
		v3 ^= w
		round()
		round()
		v0 ^= w
	}
	n := len(m)
	for ; len(m) >= 8; m = m[8:] {
		compress(binary.LittleEndian.Uint64(m))
	}
	var last [8]byte
	copy(last[:], m)
	last[7] = byte(n)
	compress(binary.LittleEndian.Uint64(last[:]))
	v2 ^= 0xff
	for range 4 {
		round()
	}
	return v0 ^ v1 ^ v2 ^ v3
}
