package record

import (
	"testing"

	"vkm/host/bot"
)

// TestAMatchWithGuestsReplays: a full client seats two guests, each a
// wander bot, beside a lite bot, filling the arena's four seats; one
// guest leaves halfway. Each guest
// is recorded as a player of its own, and the match replays exactly.
func TestAMatchWithGuestsReplays(t *testing.T) {
	const ticks = 6 * 64
	m := newMatch(t, loadArena(t), nil, Config{HashEvery: 4})
	m.join(false, 31)
	host := m.join(true, 32)
	m.run(64)
	var locals []uint8
	for i := range 2 {
		b, err := bot.New("wander", uint64(40+i), len(m.p.Axes), len(m.p.Buttons))
		if err != nil {
			t.Fatal(err)
		}
		local, err := host.full.AddGuest("", b)
		if err != nil {
			t.Fatal(err)
		}
		locals = append(locals, local)
	}
	m.run(ticks / 2)
	if n := m.server.Net().PlayerCount(); n != 4 {
		t.Fatalf("%d seats taken with two guests", n)
	}
	host.full.RemoveGuest(locals[0])
	m.run(ticks)
	if n := m.server.Net().PlayerCount(); n != 3 {
		t.Fatalf("%d seats taken after a guest left", n)
	}
	if err := m.rec.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := Parse(m.out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var joins, leaves int
	dc := NewDecoder(rec)
	for {
		ev, err := dc.Next()
		if err != nil {
			break
		}
		switch ev.Kind {
		case KindJoin:
			joins++
		case KindLeave:
			leaves++
		}
	}
	rep, err := Play(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %d joins, %d leaves; %d ticks replayed, %d hashes equal", m.out.Len(), joins, leaves, rep.Ticks, rep.Checked)
	if joins != 4 || leaves != 1 {
		t.Errorf("the recording holds %d joins and %d leaves; want 4 and 1", joins, leaves)
	}
	if rep.Err != nil || rep.Mismatch != nil || rep.Ticks != ticks || rep.Checked != ticks/4 {
		t.Fatalf("replay: %d ticks, %d hashes, %v %v", rep.Ticks, rep.Checked, rep.Err, rep.Mismatch)
	}
}
