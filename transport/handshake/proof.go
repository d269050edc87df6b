package handshake

import (
	"crypto/hmac"
	"crypto/sha256"
)

// proofLabel opens the message a Hello's proof is computed over, so the
// MAC under a session key can never be mistaken for any other use of it.
const proofLabel = "vkm hello proof"

// proofOf returns the proof of datagram, a Hello carrying a connect token,
// under key.
func proofOf(datagram []byte, key *[32]byte) [ProofSize]byte {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(proofLabel))
	m.Write(datagram[:ProofEnd-ProofSize])
	var sum [sha256.Size]byte
	return [ProofSize]byte(m.Sum(sum[:0]))
}

// Prove fills in the proof of a whole Hello datagram that carries a connect
// token (as AppendDatagram wrote it, with the token flag), under key, the
// token's client-to-server session key: the first ProofSize bytes of
// HMAC-SHA256 under key of "vkm hello proof" and the datagram's first 404
// bytes, its header (with the cookie it echoes) and every field up to the
// proof. A server believes a Hello's connect token only with a proof that
// matches the keys inside it, so a sealed token copied off the path seats
// no one and moves no seat. It does nothing to a datagram too short to be
// such a Hello.
func Prove(datagram []byte, key *[32]byte) {
	if len(datagram) < ProofEnd {
		return
	}
	p := proofOf(datagram, key)
	copy(datagram[ProofEnd-ProofSize:ProofEnd], p[:])
}

// Proven reports whether the Hello datagram's proof is the one Prove would
// write under key. It compares in constant time.
func Proven(datagram []byte, key *[32]byte) bool {
	if len(datagram) < ProofEnd {
		return false
	}
	p := proofOf(datagram, key)
	return hmac.Equal(p[:], datagram[ProofEnd-ProofSize:ProofEnd])
}
