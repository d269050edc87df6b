package handshake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// A server may ask for a password (vkmd --password-file). A Hello answers
// it with a proof (flag bit 2, PasswordProofSize bytes at body offset
// passwordAt, datagram offset 432) that the client knows the password,
// bound to the Hello's nonce and the cookie it echoes, so a Hello seen on
// the wire proves nothing from another address or for another attempt,
// and the password itself never travels. A server with a password refuses
// a Hello without the proof, or with another, with ReasonPassword.

// PasswordProofSize is the length of a Hello's password proof.
const PasswordProofSize = 32

// flagPassword is the Hello flag bit saying the Hello carries a password
// proof at passwordAt.
const flagPassword = 1 << 2

// passwordAt is where a password proof sits in a Hello's body, after a
// carried token's proof (or where it would be): datagram offset 432.
const passwordAt = proofAt + ProofSize

// PasswordProof returns the proof of password for a Hello with nonce
// echoing cookie: HMAC-SHA256 keyed with the password over the label
// "vkm password", the nonce and the cookie (each a u64, little endian).
func PasswordProof(password []byte, nonce, cookie uint64) [PasswordProofSize]byte {
	m := hmac.New(sha256.New, password)
	m.Write([]byte("vkm password"))
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], nonce)
	binary.LittleEndian.PutUint64(b[8:], cookie)
	m.Write(b[:])
	var out [PasswordProofSize]byte
	m.Sum(out[:0])
	return out
}

// PasswordProven reports, in constant time, whether h carries the proof
// of password for its nonce and cookie.
func PasswordProven(h Hello, password []byte, cookie uint64) bool {
	want := PasswordProof(password, h.Nonce, cookie)
	got := [PasswordProofSize]byte{}
	if h.Password != nil {
		got = *h.Password
	}
	return hmac.Equal(want[:], got[:]) && h.Password != nil
}
