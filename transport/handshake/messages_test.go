package handshake

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestEveryMessageRoundTrips(t *testing.T) {
	for _, c := range sampleMessages {
		t.Run(c.name, func(t *testing.T) {
			b := AppendDatagram(nil, c.token, c.msg)
			h, m, err := parseDatagram(b)
			if err != nil {
				t.Fatal(err)
			}
			want := Header{Version: Version, Kind: c.msg.Kind(), Token: c.token}
			if h != want || !reflect.DeepEqual(m, c.msg) {
				t.Fatalf("round trip gave %+v %+v, want %+v %+v", h, m, want, c.msg)
			}
			if again := AppendDatagram(nil, h.Token, m); !bytes.Equal(again, b) {
				t.Fatalf("re-encoding differs:\n% x\n% x", again, b)
			}
		})
	}
}

func TestEveryStrictPrefixFails(t *testing.T) {
	for _, c := range sampleMessages {
		b := AppendDatagram(nil, c.token, c.msg)
		for n := range len(b) {
			if _, m, err := parseDatagram(b[:n]); err == nil {
				t.Fatalf("%s: %d of %d bytes parsed as %+v", c.name, n, len(b), m)
			}
		}
	}
}

func TestEveryLongerDatagramFails(t *testing.T) {
	for _, c := range sampleMessages {
		b := append(AppendDatagram(nil, c.token, c.msg), 0)
		_, _, err := parseDatagram(b)
		wantProblem(t, err, ProblemLength)
	}
}

func TestHelloIsExactlyHelloSize(t *testing.T) {
	for _, c := range sampleMessages {
		b := AppendDatagram(nil, c.token, c.msg)
		if _, ok := c.msg.(Hello); ok && len(b) != HelloSize {
			t.Errorf("%s: %d bytes, want HelloSize %d", c.name, len(b), HelloSize)
		}
	}
}

func TestNoAnswerIsLargerThanAHello(t *testing.T) {
	for _, m := range []Message{Challenge{}, Refuse{}, Welcome{}, Goodbye{}} {
		if n := len(AppendDatagram(nil, 1, m)); n > HelloSize {
			t.Errorf("%v is %d bytes, larger than a Hello", m.Kind(), n)
		}
	}
}

func TestUnpaddedHelloIsRefused(t *testing.T) {
	full := sampleHello.Append(nil)
	unpadded := full[:helloFixed+len(sampleHello.Name)] // every field, no padding
	_, err := ParseHello(unpadded)
	wantProblem(t, err, ProblemUnpadded)
	_, err = ParseHello(full[:len(full)-1])
	wantProblem(t, err, ProblemUnpadded)
}

func TestHelloRefusesNonZeroPadding(t *testing.T) {
	b := sampleHello.Append(nil)
	b[len(b)-1] = 1
	_, err := ParseHello(b)
	wantProblem(t, err, ProblemPadding)
}

func TestHelloRefusesUnknownFlags(t *testing.T) {
	b := sampleHello.Append(nil)
	b[27] |= 0x80
	_, err := ParseHello(b)
	wantProblem(t, err, ProblemFlags)
}

func TestHelloRefusesBadNames(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  []byte
		n    byte
	}{
		{"too long", bytes.Repeat([]byte("a"), NameMax+1), NameMax + 1},
		{"invalid UTF-8", []byte{'a', 0xff}, 2},
		{"newline", []byte("a\nb"), 3},
		{"right-to-left override", []byte("a\u202eb"), 5},
	} {
		b := Hello{}.Append(nil)
		b[helloFixed-1] = c.n
		copy(b[helloFixed:], c.raw)
		_, err := ParseHello(b)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		wantProblem(t, err, ProblemName)
	}
}

func TestCleanName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ada", "ada"},
		{"", ""},
		{"two words", "two words"},
		{"line\nbreak\x00", "linebreak"},
		{"bad\xffbyte", "bad\ufffdbyte"},
		{strings.Repeat("x", 40), strings.Repeat("x", NameMax)},
		{strings.Repeat("é", 20), strings.Repeat("é", 16)},               // 2-byte runes: cut at 32
		{"abc" + strings.Repeat("🐉", 8), "abc" + strings.Repeat("🐉", 7)}, // never half a rune
	} {
		got := CleanName(c.in)
		if got != c.want {
			t.Errorf("CleanName(%q) = %q, want %q", c.in, got, c.want)
		}
		if CleanName(got) != got {
			t.Errorf("CleanName is not idempotent on %q", got)
		}
	}
}

func TestHelloAppendCleansTheName(t *testing.T) {
	h := Hello{Name: "bad\nname" + strings.Repeat("!", 40)}
	got, err := ParseHello(h.Append(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != CleanName(h.Name) {
		t.Fatalf("name = %q, want %q", got.Name, CleanName(h.Name))
	}
}

func TestHelloAppendDoesNotAllocateIntoRoom(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	buf := make([]byte, 0, HelloSize)
	h := sampleHello
	if n := testing.AllocsPerRun(100, func() {
		b := Header{Version: Version, Kind: KindHello}.Append(buf[:0])
		h.Append(b)
	}); n != 0 {
		t.Fatalf("appending a Hello to a buffer with room allocates %v times", n)
	}
}

func TestWelcomeRefusesZeroesAndFlags(t *testing.T) {
	good := Welcome{ServerTick: 1, Player: 1, MaxPlayers: 1, TickRate: 64}
	for _, w := range []Welcome{
		{ServerTick: 1, Player: 0, MaxPlayers: 1, TickRate: 64},
		{ServerTick: 1, Player: 1, MaxPlayers: 0, TickRate: 64},
		{ServerTick: 1, Player: 1, MaxPlayers: 1, TickRate: 0},
	} {
		_, err := ParseWelcome(w.Append(nil))
		wantProblem(t, err, ProblemValue)
	}
	b := good.Append(nil)
	b[10] = 2
	_, err := ParseWelcome(b)
	wantProblem(t, err, ProblemFlags)
}

func TestChallengeBodyIsItsNonce(t *testing.T) {
	_, err := ParseChallenge(make([]byte, 9))
	wantProblem(t, err, ProblemLength)
	_, err = ParseChallenge(make([]byte, 7))
	wantProblem(t, err, ProblemShort)
	c, err := ParseChallenge(Challenge{Nonce: sampleNonce}.Append(nil))
	if err != nil || c.Nonce != sampleNonce {
		t.Fatalf("Challenge round trip = %+v, %v", c, err)
	}
}
