package handshake

import (
	"bytes"
	"strings"
	"testing"
)

// The header layout is frozen across protocol versions; these bytes must
// never change.
func TestHeaderGoldenBytes(t *testing.T) {
	h := Header{Version: 1, Kind: KindChallenge, Token: 0x0123456789abcdef}
	want := []byte{
		'v', 'k', // tag
		0x01,                                           // version
		0x02,                                           // kind: challenge
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, // token, little endian
	}
	got := h.Append(nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("header = % x, want % x", got, want)
	}
	back, rest, err := ParseHeader(append(got, 0xaa))
	if err != nil || back != h || !bytes.Equal(rest, []byte{0xaa}) {
		t.Fatalf("ParseHeader = %+v, % x, %v", back, rest, err)
	}
}

func TestFrozenNumbers(t *testing.T) {
	// Another build relies on these to say "another version" instead of
	// staying silent.
	if HeaderSize != 12 || KindHello != 1 || KindRefuse != 4 ||
		ReasonFull != 1 || ReasonDeclined != 2 || ReasonMismatch != 3 ||
		ReasonTickRate != 4 || ReasonVersion != 5 {
		t.Fatal("a frozen protocol number changed")
	}
}

func TestParseHeaderRefusesShortAndForeign(t *testing.T) {
	b := Header{Version: Version, Kind: KindHello}.Append(nil)
	for n := range len(b) {
		_, _, err := ParseHeader(b[:n])
		wantProblem(t, err, ProblemShort)
	}
	b[1] = 'x'
	_, _, err := ParseHeader(b)
	wantProblem(t, err, ProblemTag)
}

func TestParseHeaderAcceptsAnyVersionAndKind(t *testing.T) {
	h := Header{Version: 200, Kind: 77, Token: 1}
	got, _, err := ParseHeader(h.Append(nil))
	if err != nil || got != h {
		t.Fatalf("ParseHeader = %+v, %v; want %+v", got, err, h)
	}
}

func TestAppendDatagramWritesHeaderThenBody(t *testing.T) {
	b := AppendDatagram([]byte{0xee}, 42, Goodbye{Reason: GoodbyeQuit})
	want := append([]byte{0xee}, Header{Version: Version, Kind: KindGoodbye, Token: 42}.Append(nil)...)
	want = append(want, byte(GoodbyeQuit))
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendDatagram = % x, want % x", b, want)
	}
}

func TestStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{KindHello.String(), "hello"},
		{KindData.String(), "data"},
		{Kind(9).String(), "kind(9)"},
		{ReasonTickRate.String(), "tick_rate"},
		{Reason(0).String(), "reason(0)"},
		{GoodbyeKicked.String(), "kicked"},
		{GoodbyeReason(40).String(), "goodbye(40)"},
		{VerdictAnswerVersion.String(), "answer_version"},
		{(&ParseError{Problem: ProblemTag}).Error(), "handshake: header: not a vkm datagram"},
		{(&ParseError{Kind: KindHello, Problem: ProblemUnpadded}).Error(), "handshake: hello: not padded to HelloSize"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Every known value has its own name, distinct from the fallback for
// numbers this build does not know.
func TestNamesAreDistinct(t *testing.T) {
	check := func(what string, names []string) {
		t.Helper()
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || seen[n] || strings.Contains(n, "(") {
				t.Errorf("%s: name %q is empty, repeated or a fallback", what, n)
			}
			seen[n] = true
		}
	}
	var names []string
	for k := KindHello; k <= KindData; k++ {
		names = append(names, k.String())
	}
	check("kinds", names)
	names = nil
	for r := ReasonFull; r <= ReasonVersion; r++ {
		names = append(names, r.String())
	}
	check("reasons", names)
	names = nil
	for g := GoodbyeQuit; g <= GoodbyeFlood; g++ {
		names = append(names, g.String())
	}
	check("goodbye reasons", names)
	names = nil
	for p := ProblemShort; p <= ProblemValue; p++ {
		names = append(names, p.String())
	}
	check("problems", names)
	names = nil
	for v := VerdictDrop; v <= VerdictRefusedVersion; v++ {
		names = append(names, v.String())
	}
	check("verdicts", names)
	if Problem(0).String() != "problem(0)" || Verdict(9).String() != "verdict(9)" {
		t.Error("fallback names changed")
	}
}
