package handshake

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// seedBodies adds the body of every sample message of kind k to f's corpus,
// with a few damaged copies.
func seedBodies(f *testing.F, k Kind) {
	f.Helper()
	for _, c := range sampleMessages {
		if c.msg.Kind() != k {
			continue
		}
		body := c.msg.Append(nil)
		f.Add(body)
		if len(body) > 0 {
			f.Add(body[:len(body)-1])
			f.Add(append(bytes.Clone(body), 0))
		}
	}
	f.Add([]byte{})
}

// mustParseError fails t unless err is nil or a *ParseError.
func mustParseError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
}

// fuzzBody is the body of every message fuzz target: parse b; if that
// succeeds, the value must encode back to exactly b (every accepted encoding
// is the canonical one) and parse to an equal value.
func fuzzBody[M Message](t *testing.T, b []byte, parse func([]byte) (M, error)) {
	t.Helper()
	m, err := parse(b)
	mustParseError(t, err)
	if err != nil {
		return
	}
	again := m.Append(nil)
	if !bytes.Equal(again, b) {
		t.Fatalf("%+v re-encodes as\n% x\nnot\n% x", m, again, b)
	}
	back, err := parse(again)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Fatalf("re-encoded %+v parses as %+v, %v", m, back, err)
	}
}

func FuzzParseHeader(f *testing.F) {
	for _, c := range sampleMessages {
		f.Add(AppendDatagram(nil, c.token, c.msg))
	}
	f.Add(Header{Version: 8, Kind: KindHello}.Append(nil))
	f.Add([]byte("vk"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, rest, err := ParseHeader(b)
		mustParseError(t, err)
		ch, cbody, v := Classify(b)
		if err != nil {
			if v != VerdictDrop {
				t.Fatalf("Classify gave %v to a datagram ParseHeader refuses", v)
			}
			return
		}
		if ch != h || len(cbody) != len(rest) {
			t.Fatalf("Classify read %+v (%d bytes), ParseHeader %+v (%d bytes)", ch, len(cbody), h, len(rest))
		}
		again := append(h.Append(nil), rest...)
		if !bytes.Equal(again, b) {
			t.Fatalf("%+v re-encodes as % x, not % x", h, again, b)
		}
		back, _, err := ParseHeader(again)
		if err != nil || back != h {
			t.Fatalf("re-encoded header parses as %+v, %v", back, err)
		}
	})
}

// fuzzHelloMax bounds FuzzParseHello's inputs: every field, the longest
// name, a connect token and its proof, a password proof, and room to spare.
const fuzzHelloMax = passwordAt + PasswordProofSize + 16

// FuzzParseHello reads each input twice: as it is, and padded with zeros to
// a full Hello body. Most of a Hello is padding, so inputs are kept to the
// fields and a little more (fuzzHelloMax): the fuzzer spends its mutations
// on the bytes that mean something, and minimizing an interesting input
// stays cheap, where minimizing a 1188-byte one takes the fuzzer most of a
// minute. A full-size input differs from its padded reading only in the
// padding, which the padded reading already explores; over-long bodies are
// covered by TestEveryLongerDatagramFails.
func FuzzParseHello(f *testing.F) {
	for _, c := range sampleMessages {
		if h, ok := c.msg.(Hello); ok {
			end := helloFixed + len(h.Name)
			if h.Token != nil {
				end = proofAt + ProofSize
			}
			fields := h.Append(nil)[:end]
			f.Add(fields)
			f.Add(fields[:len(fields)-1])
		}
	}
	pw := PasswordProof([]byte("pw"), 1, 2)
	f.Add(Hello{Name: "ada", Password: &pw}.Append(nil)[:passwordAt+PasswordProofSize])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > fuzzHelloMax {
			t.Skip("longer than a Hello's fields; see FuzzParseHello")
		}
		fuzzBody(t, b, ParseHello)
		fuzzBody(t, append(b, make([]byte, helloBody-len(b))...), ParseHello)
	})
}

func FuzzParseChallenge(f *testing.F) {
	seedBodies(f, KindChallenge)
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) { fuzzBody(t, b, ParseChallenge) })
}

func FuzzParseWelcome(f *testing.F) {
	seedBodies(f, KindWelcome)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzBody(t, b, ParseWelcome) })
}

func FuzzParseRefuse(f *testing.F) {
	seedBodies(f, KindRefuse)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzBody(t, b, ParseRefuse) })
}

func FuzzParseGoodbye(f *testing.F) {
	seedBodies(f, KindGoodbye)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzBody(t, b, ParseGoodbye) })
}

// Proven never panics, and is true for exactly the datagram Prove wrote
// under the same key: changing any byte it covers, or the key, fails it.
func FuzzProven(f *testing.F) {
	for _, c := range sampleMessages {
		if h, ok := c.msg.(Hello); ok && h.Token != nil {
			d := AppendDatagram(nil, c.token, h)
			Prove(d, sampleKey)
			f.Add(d, uint16(0))
			f.Add(d, uint16(41))
		}
	}
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, d []byte, flip uint16) {
		_ = Proven(d, sampleKey)
		if len(d) < ProofEnd {
			return
		}
		d = bytes.Clone(d)
		Prove(d, sampleKey)
		if !Proven(d, sampleKey) {
			t.Fatal("a proof Prove wrote does not check")
		}
		var other [32]byte
		if Proven(d, &other) {
			t.Fatal("a proof checks under another key")
		}
		d[int(flip)%(ProofEnd-ProofSize)] ^= 1
		if Proven(d, sampleKey) {
			t.Fatal("a proof checks after a byte it covers changed")
		}
	})
}
