package handshake

import "testing"

// The proof is what a server computes for every proven Hello that carries
// a connect token, once the token has opened, and a client once a Hello.
func BenchmarkProven(b *testing.B) {
	h := sampleHello
	h.Token = sampleToken
	d := AppendDatagram(nil, 0x0123456789abcdef, h)
	Prove(d, sampleKey)
	b.ReportAllocs()
	for b.Loop() {
		if !Proven(d, sampleKey) {
			b.Fatal("not proven")
		}
	}
}

// A Hello's proof changes with any byte it covers and with the key, and
// not with the padding after it.
func TestProofCoversTheHello(t *testing.T) {
	h := sampleHello
	h.Token = sampleToken
	d := AppendDatagram(nil, 0x0123456789abcdef, h)
	if Proven(d, sampleKey) {
		t.Fatal("a zero proof checks")
	}
	Prove(d, sampleKey)
	if !Proven(d, sampleKey) {
		t.Fatal("the proof Prove wrote does not check")
	}
	for _, at := range []int{4, 11, 40, 47, 81, 403} { // cookie, nonce, token
		c := append([]byte(nil), d...)
		c[at] ^= 0x80
		if Proven(c, sampleKey) {
			t.Errorf("the proof still checks with byte %d changed", at)
		}
	}
	k := *sampleKey
	k[31] ^= 1
	if Proven(d, &k) {
		t.Error("the proof checks under another key")
	}
	if Proven(d[:ProofEnd-1], sampleKey) {
		t.Error("a datagram too short to hold a proof is proven")
	}
}
