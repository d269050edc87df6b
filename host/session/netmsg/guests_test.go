package netmsg

import (
	"bytes"
	"reflect"
	"testing"

	"vkm/internal/entity"
	"vkm/prediction"
)

// guestSeeds are guest messages of every op.
func guestSeeds() []Guest {
	return []Guest{
		{Op: GuestJoin, Local: 1, Text: "bo"},
		{Op: GuestJoin, Local: 7},
		{Op: GuestLeave, Local: 2},
		{Op: GuestSeated, Local: 1, Player: 5},
		{Op: GuestRefused, Local: 3, Text: "Every seat is taken."},
		{Op: GuestKicked, Local: 1, Player: 5, Text: "You were kicked: spam."},
		{Op: GuestKicked, Local: 1, Player: 5},
		{Op: GuestLeft, Local: 4, Player: 65535},
	}
}

// FuzzGuest feeds the guest message parser anything: it must not panic,
// and what it accepts is what Append writes for the message it read.
func FuzzGuest(f *testing.F) {
	for _, g := range guestSeeds() {
		f.Add(g.Append(nil))
	}
	f.Add([]byte{byte(KindGuest), 9, 1})
	f.Add([]byte{byte(KindGuest), byte(GuestSeated), 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGuest(b)
		mustParseError(t, err)
		if err == nil && !bytes.Equal(g.Append(nil), b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", g, b, g.Append(nil))
		}
	})
}

func TestGuestRoundTrip(t *testing.T) {
	for _, g := range guestSeeds() {
		got, err := ParseGuest(g.Append(nil))
		if err != nil || got != g {
			t.Errorf("%+v came back %+v, %v", g, got, err)
		}
	}
	long := Guest{Op: GuestJoin, Local: 1, Text: "Zoë ünstoppable and then some more letters"}
	got, err := ParseGuest(long.Append(nil))
	if err != nil || len(got.Text) > MaxName || got.Text == "" {
		t.Errorf("a long name came back %q, %v", got.Text, err)
	}
	for name, b := range map[string][]byte{
		"local 0":          {byte(KindGuest), byte(GuestLeave), 0},
		"local 8":          {byte(KindGuest), byte(GuestLeave), 8},
		"player 0":         {byte(KindGuest), byte(GuestSeated), 1, 0, 0},
		"leave with bytes": {byte(KindGuest), byte(GuestLeave), 1, 'x'},
		"empty refusal":    {byte(KindGuest), byte(GuestRefused), 1},
		"unknown op":       {byte(KindGuest), 7, 1},
		"cut short":        {byte(KindGuest), byte(GuestSeated), 1, 5},
	} {
		if _, err := ParseGuest(b); err == nil {
			t.Errorf("%s: % x parsed", name, b)
		}
	}
}

// sectionSeeds are guest sections.
func sectionSeeds() []GuestSection {
	return []GuestSection{
		{{Local: 1, Player: 3, Entity: entity.ID{Slot: 61, Gen: 1}}},
		{{Local: 1, Player: 3}, {Local: 2, Player: 65535, Entity: entity.ID{Slot: entity.MaxSlot, Gen: 1<<32 - 1}}, {Local: 7, Player: 9, Entity: entity.ID{Slot: 200, Gen: 2}}},
	}
}

// FuzzGuestSection feeds the guest section parser anything: no panic, a
// refusal is a *ParseError, and an accepted section is the bytes Append
// writes for it, after what the parser left before it.
func FuzzGuestSection(f *testing.F) {
	for _, s := range sectionSeeds() {
		f.Add(append([]byte{0xAA}, s.Append(nil)...))
	}
	f.Add([]byte{1, 1, 3, 0, 0, 1, 6})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, head, err := ParseGuestSection(b, nil)
		mustParseError(t, err)
		if err == nil {
			if again := append(bytes.Clone(head), s.Append(nil)...); !bytes.Equal(again, b) {
				t.Fatalf("parsed % x as % x and %+v, which write as % x", b, head, s, again)
			}
		}
	})
}

func TestGuestSectionRoundTrip(t *testing.T) {
	for _, s := range sectionSeeds() {
		b := append([]byte{1, 2, 3}, s.Append(nil)...)
		got, head, err := ParseGuestSection(b, nil)
		if err != nil || !reflect.DeepEqual(got, s) || !bytes.Equal(head, []byte{1, 2, 3}) {
			t.Errorf("%+v came back %+v before % x, %v", s, got, head, err)
		}
	}
	for name, b := range map[string][]byte{
		"length past the start": {1, 1, 3, 0, 0, 0, 9},
		"no guest":              {0, 1},
		"locals not rising":     {2, 2, 3, 0, 0, 0, 1, 4, 0, 0, 0, 11},
		"slot without gen":      {1, 1, 3, 0, 5, 0, 6},
		"bytes past entries":    {1, 1, 3, 0, 0, 0, 9, 7},
	} {
		if _, _, err := ParseGuestSection(b, nil); err == nil {
			t.Errorf("%s: % x parsed", name, b)
		}
	}
}

// guestPacket is a command packet of n commands under 2 axes and 2 buttons.
func guestPacket(seq uint32, n int) []byte {
	p := prediction.Packet{FirstSeq: seq, FirstTick: 100 + seq}
	for i := range n {
		p.Commands = append(p.Commands, prediction.Command{Axes: [prediction.MaxAxes]float64{float64(i%3) - 1}})
	}
	return p.Append(nil, 2, 2)
}

func TestSplitGuestCommands(t *testing.T) {
	own, a, b := guestPacket(5, 3), guestPacket(1, 0), guestPacket(9, 16)
	p := AppendGuestCommands(AppendGuestCommands(bytes.Clone(own), 1, a), 3, b)
	gotOwn, guests, err := SplitGuestCommands(p, 2, 2, nil)
	if err != nil || !bytes.Equal(gotOwn, own) || len(guests) != 2 ||
		guests[0].Local != 1 || !bytes.Equal(guests[0].Packet, a) || guests[1].Local != 3 || !bytes.Equal(guests[1].Packet, b) {
		t.Fatalf("split % x into % x and %+v, %v", p, gotOwn, guests, err)
	}
	var pk prediction.Packet
	if err := prediction.ParsePacket(guests[1].Packet, 2, 2, &pk); err != nil || len(pk.Commands) != 16 || pk.FirstSeq != 9 {
		t.Fatalf("the second guest's packet reads %d commands from %d, %v", len(pk.Commands), pk.FirstSeq, err)
	}
	// Alone, the own packet is all there is.
	if gotOwn, guests, err := SplitGuestCommands(own, 2, 2, nil); err != nil || !bytes.Equal(gotOwn, own) || len(guests) != 0 {
		t.Fatalf("an owner's packet alone split into % x and %+v, %v", gotOwn, guests, err)
	}
	for name, q := range map[string][]byte{
		"cut short":    p[:len(p)-1],
		"local 0":      AppendGuestCommands(bytes.Clone(own), 0, a),
		"local twice":  AppendGuestCommands(AppendGuestCommands(bytes.Clone(own), 2, a), 2, a),
		"no packet":    append(bytes.Clone(own), 1),
		"local past 7": AppendGuestCommands(bytes.Clone(own), 8, a),
	} {
		if _, _, err := SplitGuestCommands(q, 2, 2, nil); err == nil {
			t.Errorf("%s: % x split", name, q)
		}
	}
}

// FuzzGuestCommands feeds the splitter anything: no panic, and what it
// accepts is the own packet then each stream, end to end.
func FuzzGuestCommands(f *testing.F) {
	f.Add(AppendGuestCommands(guestPacket(5, 3), 1, guestPacket(1, 2)))
	f.Add(guestPacket(1, 0))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, p []byte) {
		own, guests, err := SplitGuestCommands(p, 2, 2, nil)
		mustParseError(t, err)
		if err == nil {
			again := bytes.Clone(own)
			for _, g := range guests {
				again = AppendGuestCommands(again, g.Local, g.Packet)
			}
			if !bytes.Equal(again, p) {
				t.Fatalf("split % x into % x and %+v", p, own, guests)
			}
		}
	})
}

// BenchmarkGuestCommands is the server's cost of taking apart a packet
// proper carrying the own player's commands and seven guests' (12
// commands each, 2 axes and 2 buttons) and parsing each guest's packet.
func BenchmarkGuestCommands(b *testing.B) {
	p := guestPacket(100, 12)
	for l := uint8(1); l <= MaxGuests; l++ {
		p = AppendGuestCommands(p, l, guestPacket(100, 12))
	}
	var streams []GuestCommands
	var pk prediction.Packet
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		_, gs, err := SplitGuestCommands(p, 2, 2, streams)
		if err != nil || len(gs) != MaxGuests {
			b.Fatal(err)
		}
		for _, g := range gs {
			if err := prediction.ParsePacket(g.Packet, 2, 2, &pk); err != nil {
				b.Fatal(err)
			}
		}
		streams = gs
	}
}
