package conformance

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// docHexLines returns each line of the first fenced block after the first
// line of docs/protocol.md containing marker, as the bytes of its leading
// hex fields (a line's words after them are its comment).
func docHexLines(t *testing.T, marker string) [][]byte {
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
	var out [][]byte
	in := false
	for _, l := range lines[at+1:] {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			if in {
				return out
			}
			in = true
			continue
		}
		if !in {
			continue
		}
		var h strings.Builder
		for _, f := range strings.Fields(l) {
			if _, err := hex.DecodeString(f); err != nil || len(f)%2 != 0 {
				break
			}
			h.WriteString(f)
		}
		b, _ := hex.DecodeString(h.String())
		out = append(out, b)
	}
	t.Fatalf("no fenced block after %q", marker)
	return nil
}

// TestDocGuestMessages decodes the guest message examples: a join named
// "bo", local 1 seated as player 5, and its kick for "spam".
func TestDocGuestMessages(t *testing.T) {
	ls := docHexLines(t, "A server ignores a server's op from a client")
	want := []Guest{{Op: GuestJoin, Local: 1, Text: "bo"}, {Op: GuestSeated, Local: 1, Player: 5}, {Op: GuestKicked, Local: 1, Player: 5, Text: "spam"}}
	if len(ls) != len(want) {
		t.Fatalf("%d examples", len(ls))
	}
	for i, b := range ls {
		g, err := ParseGuest(b)
		if err != nil || g != want[i] {
			t.Errorf("example %d (% x): %+v, %v; want %+v", i, b, g, err, want[i])
		}
	}
}

// TestDocGuestSection decodes the guest section example inside a server
// payload after a stand-in packet proper: local 1 is player 5 with 61#1,
// local 2 player 6 with 200#3.
func TestDocGuestSection(t *testing.T) {
	section := docExample(t, "Example (local 1 is player 5 with entity 61#1")
	p, err := ParsePayload(append([]byte{FlagGuests, 0xAB}, section...), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []GuestSeat{{1, 5, Entity{61, 1}}, {2, 6, Entity{200, 3}}}
	if len(p.Guests) != 2 || p.Guests[0] != want[0] || p.Guests[1] != want[1] || len(p.Packet) != 1 || p.Packet[0] != 0xAB {
		t.Fatalf("guests %+v, packet % x", p.Guests, p.Packet)
	}
	if _, err := ParsePayload(append([]byte{FlagGuests}, section...), false); err == nil {
		t.Error("a client's payload with a guest section parsed")
	}
}

// TestGuestStreams: a packet proper of the own command packet (the
// transcript's, 2 axes and 2 buttons) and a guest's empty one, as the doc
// lays out the streams; and what it refuses.
func TestGuestStreams(t *testing.T) {
	own := mustHex(t, "0100000088130000e603000080e21f08fe010b")
	guest := mustHex(t, "0100000088130000e60300008000")
	b := append(append(append([]byte{}, own...), 1), guest...)
	p, gs, err := SplitCommands(b, 2, 2)
	if err != nil || len(p.Commands) != 2 || len(gs) != 1 || gs[0].Local != 1 || len(gs[0].Packet.Commands) != 0 {
		t.Fatalf("own %+v, guests %+v, %v", p, gs, err)
	}
	for name, bad := range map[string][]byte{
		"local 0":      append(append(append([]byte{}, own...), 0), guest...),
		"cut short":    b[:len(b)-1],
		"local twice":  append(append(append([]byte{}, b...), 1), guest...),
		"local over 7": append(append(append([]byte{}, own...), 8), guest...),
	} {
		if _, _, err := SplitCommands(bad, 2, 2); err == nil {
			t.Errorf("%s: split", name)
		}
	}
}

// FuzzGuests feeds the guest decoders any bytes; no panic.
func FuzzGuests(f *testing.F) {
	f.Add(mustHex(f, "0c0101626f"))
	f.Add(mustHex(f, "ab020105003d01020600c801030c"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseGuest(b)
		if gs, head, err := ParseGuestSection(b); err == nil && (len(gs) == 0 || len(head) >= len(b)) {
			t.Fatalf("accepted %d guests leaving % x of % x", len(gs), head, b)
		}
		SplitCommands(b, 2, 2)
	})
}
