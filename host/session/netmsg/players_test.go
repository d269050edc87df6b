package netmsg

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"

	"vkm/internal/entity"
	"vkm/transport/handshake"
)

// playerSeeds are player lists as a server sends them: none, one, a
// full-length name, unicode, a player with no entity, a full arena.
func playerSeeds() []Players {
	return []Players{
		nil,
		{{Number: 1, Name: "p1", Entity: entity.ID{Slot: 60, Gen: 1}}},
		{{Number: 3, Name: "Zoë ünstoppable!! 🐉🐉🐉", Entity: entity.ID{Slot: entity.MaxSlot, Gen: 1<<29 - 1}},
			{Number: 65535, Name: "0123456789abcdef0123456789abcdef"}},
		{{Number: 1, Name: "a"}, {Number: 2, Name: "b", Entity: entity.ID{Slot: 61, Gen: 2}},
			{Number: 3, Name: "c", Entity: entity.ID{Slot: 62, Gen: 1}},
			{Number: 4, Name: "Player 4", Entity: entity.ID{Slot: 63, Gen: 9}}},
	}
}

// FuzzPlayers feeds the client's player list parser what a broken or
// hostile server could send: it must not panic, and what it accepts is a
// list a client can show: numbers rising, names no longer than a Hello's
// and fit to print, entities Lua can hold, and exactly what Append would
// write for it.
func FuzzPlayers(f *testing.F) {
	for _, ps := range playerSeeds() {
		f.Add(ps.Append(nil))
	}
	f.Add([]byte{byte(KindPlayers), 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, '\n'})
	f.Add([]byte{byte(KindPlayers), 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ParsePlayers(b, nil)
		mustParseError(t, err)
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
		if again := ps.Append(nil); !bytes.Equal(again, b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", ps, b, again)
		}
	})
}

// TestPlayersRoundTrip: a list comes back as it went, and every strict
// prefix of it is refused.
func TestPlayersRoundTrip(t *testing.T) {
	for _, ps := range playerSeeds() {
		b := ps.Append(nil)
		got, err := ParsePlayers(b, nil)
		if err != nil || len(got) != len(ps) || len(ps) > 0 && !reflect.DeepEqual(got, ps) {
			t.Fatalf("%+v: %+v, %v", ps, got, err)
		}
		prefixesFail(t, "players", b, func(b []byte) error { _, err := ParsePlayers(b, nil); return err })
	}
}

// TestPlayersCleansNames: a name that could not be parsed is written as
// handshake.CleanName makes it.
func TestPlayersCleansNames(t *testing.T) {
	dirty := Players{{Number: 1, Name: "a\x1b[2Jb\xff" + string(bytes.Repeat([]byte("x"), 40))}}
	got, err := ParsePlayers(dirty.Append(nil), nil)
	if err != nil || got[0].Name != handshake.CleanName(dirty[0].Name) {
		t.Fatalf("%+v, %v", got, err)
	}
}

// TestPlayersRefuses checks the parser's bounds one by one.
func TestPlayersRefuses(t *testing.T) {
	ok := Players{{Number: 1, Name: "a", Entity: entity.ID{Slot: 5, Gen: 1}}, {Number: 2, Name: "b"}}
	base := ok.Append(nil)
	edit := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), base...)) }
	for name, b := range map[string][]byte{
		"wrong kind":        edit(func(b []byte) []byte { b[0] = byte(KindRoundTrips); return b }),
		"too many":          edit(func(b []byte) []byte { b[1], b[2] = 1, 1; return b }),
		"short":             base[:len(base)-1],
		"trailing":          append(append([]byte(nil), base...), 0),
		"player 0":          edit(func(b []byte) []byte { b[3] = 0; return b }),
		"out of order":      edit(func(b []byte) []byte { b[3] = 2; return b }),
		"slot too big":      edit(func(b []byte) []byte { b[8] = 1; return b }),
		"slot without gen":  edit(func(b []byte) []byte { b[9] = 0; return b }),
		"gen Lua can't":     edit(func(b []byte) []byte { b[12] = 0x20; return b }),
		"control character": edit(func(b []byte) []byte { b[14] = '\x1b'; return b }),
		"invalid utf-8":     edit(func(b []byte) []byte { b[14] = 0xff; return b }),
		"name too long":     append(append(base[:3:3], 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 33), bytes.Repeat([]byte("x"), 33)...),
	} {
		ps, err := ParsePlayers(b, nil)
		if err == nil {
			t.Errorf("%s: accepted %+v", name, ps)
		}
		mustParseError(t, err)
	}
}

// TestPlayersVector is the example in docs/protocol.md ("Messages a server
// sends").
func TestPlayersVector(t *testing.T) {
	got := Players{
		{Number: 1, Name: "ada", Entity: entity.ID{Slot: 60, Gen: 1}},
		{Number: 2, Name: "bo", Entity: entity.ID{Slot: 61, Gen: 3}},
	}.Append(nil)
	want := "03" + "0200" + "0100" + "3c000000" + "01000000" + "03" + "616461" + "0200" + "3d000000" + "03000000" + "02" + "626f"
	if hex.EncodeToString(got) != want {
		t.Fatalf("% x\nwant %s", got, want)
	}
}
