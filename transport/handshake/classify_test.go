package handshake

import "testing"

func TestClassify(t *testing.T) {
	other := Version + 1
	datagram := func(v uint8, k Kind, body []byte) []byte {
		return append(Header{Version: v, Kind: k, Token: 5}.Append(nil), body...)
	}
	hello := Hello{TickRate: 64}.Append(nil)
	for _, c := range []struct {
		name string
		b    []byte
		want Verdict
	}{
		{"empty", nil, VerdictDrop},
		{"11 bytes", datagram(Version, KindHello, nil)[:11], VerdictDrop},
		{"foreign tag", append([]byte("xk"), datagram(Version, KindHello, hello)[2:]...), VerdictDrop},
		{"hello", datagram(Version, KindHello, hello), VerdictRead},
		{"data", datagram(Version, KindData, []byte{1, 2, 3}), VerdictRead},
		{"unknown kind", datagram(Version, 0, nil), VerdictDrop},
		{"sealed refuse", datagram(Version, KindSealedRefuse, []byte{1}), VerdictRead},
		{"kind past sealed refuse", datagram(Version, KindSealedRefuse+1, nil), VerdictDrop},
		{"hello at another version", datagram(other, KindHello, hello), VerdictAnswerVersion},
		{"hello at version 0", datagram(0, KindHello, hello), VerdictAnswerVersion},
		{"tiny hello at another version", datagram(other, KindHello, []byte{1}), VerdictDrop},
		{"refuse at another version", datagram(other, KindRefuse, []byte{9}), VerdictRefusedVersion},
		{"bodiless refuse at another version", datagram(other, KindRefuse, nil), VerdictRefusedVersion},
		{"data at another version", datagram(other, KindData, []byte{1}), VerdictDrop},
		{"challenge at another version", datagram(other, KindChallenge, nil), VerdictDrop},
		{"goodbye at another version", datagram(other, KindGoodbye, []byte{1}), VerdictDrop},
	} {
		h, body, v := Classify(c.b)
		if v != c.want {
			t.Errorf("%s: verdict %v, want %v", c.name, v, c.want)
		}
		if v != VerdictDrop && len(body) != len(c.b)-HeaderSize {
			t.Errorf("%s: body of %d bytes, want %d", c.name, len(body), len(c.b)-HeaderSize)
		}
		if v != VerdictDrop && h.Token != 5 {
			t.Errorf("%s: token %d, want 5", c.name, h.Token)
		}
	}
}

// The answer to a Hello at another version is never larger than the Hello.
func TestVersionAnswerFitsTheSmallestAnsweredHello(t *testing.T) {
	answer := AppendDatagram(nil, 0, VersionRefusal(Version, 9))
	for n := HeaderSize; n <= HelloSize; n++ {
		b := append(Header{Version: 9, Kind: KindHello}.Append(nil), make([]byte, n-HeaderSize)...)
		if _, _, v := Classify(b); v == VerdictAnswerVersion && len(answer) > n {
			t.Fatalf("a %d-byte foreign Hello is answered with %d bytes", n, len(answer))
		}
	}
}
