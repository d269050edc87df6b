package session

import (
	"bytes"
	"encoding/hex"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/scripting"
	"vkm/transport/handshake"
)

// rosterSeeds are player lists as a server sends them: none, one, a
// full-length name, unicode, a player with no entity, a full arena.
func rosterSeeds() [][]scripting.PlayerInfo {
	return [][]scripting.PlayerInfo{
		nil,
		{{Number: 1, Name: "p1", Entity: entity.ID{Slot: 60, Gen: 1}, RTT: 40 * time.Millisecond}},
		{{Number: 3, Name: "Zoë ünstoppable!! 🐉🐉🐉", Entity: entity.ID{Slot: entity.MaxSlot, Gen: 1<<29 - 1}},
			{Number: 65535, Name: "0123456789abcdef0123456789abcdef"}},
		{{Number: 1, Name: "a"}, {Number: 2, Name: "b", Entity: entity.ID{Slot: 61, Gen: 2}},
			{Number: 3, Name: "c", Entity: entity.ID{Slot: 62, Gen: 1}, RTT: 70 * time.Second},
			{Number: 4, Name: "Player 4", Entity: entity.ID{Slot: 63, Gen: 9}, RTT: time.Millisecond}},
	}
}

// FuzzRoster feeds the client's player list decoder what a broken or
// hostile server could send: it must not panic, and what it accepts is a
// list a client can show: numbers rising, names no longer than a Hello's
// and fit to print, entities Lua can hold, and exactly what the encoder
// would write for it.
func FuzzRoster(f *testing.F) {
	for _, ps := range rosterSeeds() {
		f.Add(encodeRoster(nil, ps))
	}
	f.Add([]byte{msgRoster, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, '\n'})
	f.Add([]byte{msgRoster, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := decodeRoster(b, nil)
		if err != nil {
			return
		}
		prev := uint16(0)
		for _, p := range ps {
			if p.Number <= prev || len(p.Name) > handshake.NameMax || handshake.CleanName(p.Name) != p.Name ||
				entity.Unpack(p.Entity.Pack()) != p.Entity {
				t.Fatalf("accepted %+v", p)
			}
			prev = p.Number
		}
		if again := encodeRoster(nil, ps); !bytes.Equal(again, b) {
			t.Fatalf("decoded %+v from % x, which encodes as % x", ps, b, again)
		}
	})
}

// FuzzRoundTrips feeds the round trip decoder anything: it must not
// panic, and it tells nothing of a message it refuses.
func FuzzRoundTrips(f *testing.F) {
	for _, ps := range rosterSeeds() {
		f.Add(encodeRoundTrips(nil, ps))
	}
	f.Add([]byte{msgRoundTrips, 2, 0, 2, 0, 1, 0, 1, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		told := 0
		err := decodeRoundTrips(b, func(uint16, time.Duration) { told++ })
		if err != nil && told != 0 {
			t.Fatalf("refused (%v) after telling %d", err, told)
		}
	})
}

func TestRosterRoundTrip(t *testing.T) {
	for _, ps := range rosterSeeds() {
		got, err := decodeRoster(encodeRoster(nil, ps), nil)
		if err != nil || len(got) != len(ps) {
			t.Fatalf("%+v: %+v, %v", ps, got, err)
		}
		for i := range ps {
			if w := ps[i]; got[i].Number != w.Number || got[i].Name != w.Name || got[i].Entity != w.Entity || got[i].RTT != 0 {
				t.Errorf("%+v came back %+v", w, got[i])
			}
		}
		var rtts []time.Duration
		if err := decodeRoundTrips(encodeRoundTrips(nil, ps), func(_ uint16, d time.Duration) { rtts = append(rtts, d) }); err != nil {
			t.Fatal(err)
		}
		for i := range ps {
			if want := min(ps[i].RTT.Round(time.Millisecond), 65535*time.Millisecond); rtts[i] != want {
				t.Errorf("round trip %v came back %v", ps[i].RTT, rtts[i])
			}
		}
	}
}

// TestRosterRefuses checks the decoder's bounds one by one.
func TestRosterRefuses(t *testing.T) {
	ok := []scripting.PlayerInfo{{Number: 1, Name: "a", Entity: entity.ID{Slot: 5, Gen: 1}}, {Number: 2, Name: "b"}}
	base := encodeRoster(nil, ok)
	edit := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), base...)) }
	for name, b := range map[string][]byte{
		"wrong kind":        edit(func(b []byte) []byte { b[0] = msgRoundTrips; return b }),
		"too many":          edit(func(b []byte) []byte { b[1], b[2] = 1, 1; return b }),
		"short":             base[:len(base)-1],
		"trailing":          append(append([]byte(nil), base...), 0),
		"player 0":          edit(func(b []byte) []byte { b[3] = 0; return b }),
		"out of order":      edit(func(b []byte) []byte { b[3] = 2; return b }),
		"slot too big":      edit(func(b []byte) []byte { b[8] = 1; return b }),
		"slot without gen":  edit(func(b []byte) []byte { b[9] = 0; return b }),
		"control character": edit(func(b []byte) []byte { b[14] = '\x1b'; return b }),
		"invalid utf-8":     edit(func(b []byte) []byte { b[14] = 0xff; return b }),
		"name too long":     append(append(base[:3:3], 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 33), bytes.Repeat([]byte("x"), 33)...),
	} {
		if ps, err := decodeRoster(b, nil); err == nil {
			t.Errorf("%s: accepted %+v", name, ps)
		}
	}
}

// TestRosterVector is the example in docs/protocol.md.
func TestRosterVector(t *testing.T) {
	got := encodeRoster(nil, []scripting.PlayerInfo{
		{Number: 1, Name: "ada", Entity: entity.ID{Slot: 60, Gen: 1}},
		{Number: 2, Name: "bo", Entity: entity.ID{Slot: 61, Gen: 3}},
	})
	want := "03" + "0200" + "0100" + "3c000000" + "01000000" + "03" + "616461" + "0200" + "3d000000" + "03000000" + "02" + "626f"
	if hex.EncodeToString(got) != want {
		t.Fatalf("% x\nwant %s", got, want)
	}
}
