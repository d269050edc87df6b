package conformance

import (
	"bytes"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docExample returns the bytes of the first fenced hex block after the
// first line of docs/protocol.md that contains marker.
func docExample(t testing.TB, marker string) []byte {
	t.Helper()
	raw, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, marker) {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("the doc has no %q", marker)
	}
	var hexText strings.Builder
	in := false
	for _, l := range lines[at+1:] {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if in {
				b, err := hex.DecodeString(hexText.String())
				if err != nil {
					t.Fatalf("the example after %q: %v", marker, err)
				}
				return b
			}
			in = true
			continue
		}
		if in {
			hexText.WriteString(strings.Join(strings.Fields(l), ""))
		}
	}
	t.Fatalf("no fenced block after %q", marker)
	return nil
}

// TestDocCheckedExamples: the two examples the doc marks as checked are the
// transcript's command payload and snapshot.
func TestDocCheckedExamples(t *testing.T) {
	tr := readTranscript(t)
	j := decodeJoin(t, tr)
	trace := walkData(t, tr, j)
	cmd := docExample(t, "<!-- check: commands -->")
	if got := trace.conns[trace.commands[0].n].Payload; !bytes.Equal(cmd, got) {
		t.Errorf("the doc's command payload\n%x\nis not the transcript's\n%x", cmd, got)
	}
	snap := docExample(t, "<!-- check: snapshot -->")
	if got := trace.conns[trace.snapshots[0].n].Payload[1:]; !bytes.Equal(snap, got) {
		t.Errorf("the doc's snapshot\n%x\nis not the transcript's\n%x", snap, got)
	}
}

// TestDocRelayExample decodes the relay section example inside a server
// payload: 60#1 running right at full speed, 200#3 left at 64/127 of it.
func TestDocRelayExample(t *testing.T) {
	section := docExample(t, "Example (entity 60#1 running right at full speed")
	p, err := ParsePayload(append([]byte{FlagRelay}, section...), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Relayed{{60, 1, 255, 128}, {200, 3, 128 - 64, 128}}
	if len(p.Relay) != len(want) || len(p.Packet) != 0 {
		t.Fatalf("relay %+v, %d bytes after it", p.Relay, len(p.Packet))
	}
	for i := range want {
		if p.Relay[i] != want[i] {
			t.Errorf("character %d is %+v, want %+v", i, p.Relay[i], want[i])
		}
	}
	if AxisValue(p.Relay[0].RunX) != 1 || AxisValue(p.Relay[1].RunX) != -64.0/127 {
		t.Errorf("runs %v, %v", AxisValue(p.Relay[0].RunX), AxisValue(p.Relay[1].RunX))
	}
	if _, err := ParsePayload(append([]byte{FlagRelay}, section...), false); err == nil {
		t.Error("a client's payload with a relay section is accepted")
	}
	// A run code 0 is "never written and refused", along x and along y.
	for _, at := range []int{3, 4, 8, 9} {
		bad := bytes.Clone(section)
		bad[at] = 0
		if _, err := ParsePayload(append([]byte{FlagRelay}, bad...), true); err == nil {
			t.Errorf("a relay section with run code 0 at byte %d is accepted", at)
		}
	}
	for n := range len(section) {
		if p, err := ParsePayload(append([]byte{FlagRelay}, section[:n]...), true); err == nil && len(p.Relay) == 2 {
			t.Errorf("the %d-byte prefix reads two characters", n)
		}
	}
}

// TestDocReliableExample: messages 0 ("hi") and 1 ("hello") in a 26-byte
// budget are message 0 whole and the first three bytes of message 1.
func TestDocReliableExample(t *testing.T) {
	section := docExample(t, "Test vector: messages 0 (`hi`) and 1 (`hello`)")
	if len(section) != 26 {
		t.Errorf("the section is %d bytes, the budget 26", len(section))
	}
	p, err := ParsePayload(append([]byte{FlagReliable}, section...), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Fragment{{0, 2, 0, []byte("hi")}, {1, 5, 0, []byte("hel")}}
	if len(p.Reliable) != 2 || len(p.Packet) != 0 {
		t.Fatalf("fragments %+v, %d bytes after them", p.Reliable, len(p.Packet))
	}
	for i, f := range p.Reliable {
		w := want[i]
		if f.Message != w.Message || f.Size != w.Size || f.Offset != w.Offset || !bytes.Equal(f.Data, w.Data) {
			t.Errorf("fragment %d is %+v, want %+v", i, f, w)
		}
	}
	bad := bytes.Clone(section)
	bad[1+2] = 1 // message 0's size 1: "hi" past its end
	if _, err := ParsePayload(append([]byte{FlagReliable}, bad...), true); err == nil {
		t.Error("a fragment past its message's end is accepted")
	}
	if _, err := ParsePayload([]byte{FlagReliable, 0}, true); err == nil {
		t.Error("a reliable section of 0 fragments is accepted")
	}
}

// TestDocPlayersExample: players 1 ("ada", entity 60#1) and 2 ("bo",
// entity 61#3).
func TestDocPlayersExample(t *testing.T) {
	m := docExample(t, "Example: players 1 (\"ada\", entity 60#1)")
	ps, err := ParsePlayers(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Player{{1, Entity{60, 1}, "ada"}, {2, Entity{61, 3}, "bo"}}
	if len(ps) != len(want) || ps[0] != want[0] || ps[1] != want[1] {
		t.Errorf("players %+v, want %+v", ps, want)
	}
	if _, err := ParsePlayers(append(bytes.Clone(m), 0)); err == nil {
		t.Error("a byte after the players is accepted")
	}
}

// TestDocVarintExample reads the doc's bit string for slot 60 generation 1
// in the order it says the bits are written: it must be 60#1, exactly those
// 12 bits, and the transcript's own 60#1 (the stated own entity of its
// snapshot's header) must be written so.
func TestDocVarintExample(t *testing.T) {
	m := regexp.MustCompile("slot 60 generation 1 is, bit by bit in the order written, `([01 ]+)`").FindStringSubmatch(docWords(t))
	if m == nil {
		t.Fatal("the doc's group varint example is gone")
	}
	printed := strings.ReplaceAll(m[1], " ", "")
	inOrder := &bitWriter{}
	for _, c := range printed {
		inOrder.flag(c == '1')
	}
	r := newBitReader(inOrder.b)
	if e := readEntity(r); r.err != nil || e != (Entity{60, 1}) || r.pos != len(printed) {
		t.Errorf("the doc's bits %s, in the order written, read %v in %d of %d bits (%v); want 60#1 in all of them", m[1], e, r.pos, len(printed), r.err)
	}
	if want := (&bitWriter{}).entity(Entity{60, 1}); want.n != len(printed) || !bytes.Equal(want.b, inOrder.b) {
		t.Errorf("the doc's bits %s are not 60#1 as \"Conventions\" writes it", m[1])
	}

	// The transcript's header states 60#1 at bit 35 (full 1, tick 32,
	// stated 1, has-own 1).
	b, _ := transcriptSnapshot(t)
	var wire strings.Builder
	r = newBitReader(b)
	r.read(35)
	for range len(printed) {
		wire.WriteByte('0' + byte(r.read(1)))
	}
	if got := wire.String(); got != printed {
		t.Errorf("the transcript's 60#1 is %s on the wire; the doc says %s", got, printed)
	}
}
