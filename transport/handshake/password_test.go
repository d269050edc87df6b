package handshake

import (
	"bytes"
	"testing"
)

func TestPasswordProofInAHello(t *testing.T) {
	pw := []byte("correct horse")
	proof := PasswordProof(pw, 0x1122, 0x3344)
	for _, tok := range []*[TokenSize]byte{nil, {0: 1, TokenSize - 1: 2}} {
		h := Hello{SchemaFP: 1, TickRate: 64, Name: "ada", Nonce: 0x1122, Token: tok, Password: &proof}
		b := h.Append(nil)
		got, err := ParseHello(b)
		if err != nil || got.Password == nil || *got.Password != proof {
			t.Fatalf("token %v: %+v, %v", tok != nil, got.Password, err)
		}
		if !PasswordProven(got, pw, 0x3344) {
			t.Fatal("the proof does not check")
		}
		for _, c := range []struct {
			pw     string
			cookie uint64
		}{{"wrong", 0x3344}, {"correct horse", 0x3345}, {"", 0x3344}} {
			if PasswordProven(got, []byte(c.pw), c.cookie) {
				t.Errorf("proven for %q, cookie %x", c.pw, c.cookie)
			}
		}
		if !bytes.Equal(got.Append(nil), b) {
			t.Fatal("a Hello with a password proof does not write back as read")
		}
	}
	// A Hello without the flag proves nothing; one without a proof, with
	// bytes where it would sit, is padding gone wrong.
	plain := Hello{Nonce: 0x1122}
	if PasswordProven(plain, pw, 0x3344) {
		t.Fatal("a Hello with no proof is proven")
	}
	b := plain.Append(nil)
	b[passwordAt] = 1
	if _, err := ParseHello(b); err == nil {
		t.Fatal("bytes at the proof's place without its flag parsed")
	}
}
