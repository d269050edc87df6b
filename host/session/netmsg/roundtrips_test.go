package netmsg

import (
	"bytes"
	"testing"
	"time"
)

// roundTripSeeds are round trips as a server sends them: none, one, a
// round trip past what the message says, one rounded up, a negative one
// (a clock's error), a full arena.
func roundTripSeeds() []RoundTrips {
	return []RoundTrips{
		nil,
		{{Player: 1, RTT: 40 * time.Millisecond}},
		{{Player: 3, RTT: 70 * time.Second}, {Player: 65535, RTT: 1500 * time.Microsecond}},
		{{Player: 1, RTT: -time.Millisecond}, {Player: 2, RTT: time.Millisecond}, {Player: 3, RTT: 70 * time.Millisecond},
			{Player: 4, RTT: MaxRoundTrip}},
	}
}

// FuzzRoundTrips feeds the round trips parser anything: it must not panic,
// a message it refuses tells nothing, and one it accepts lists rising
// players and is exactly what Append writes for them.
func FuzzRoundTrips(f *testing.F) {
	for _, rs := range roundTripSeeds() {
		f.Add(rs.Append(nil))
	}
	f.Add([]byte{byte(KindRoundTrips), 2, 0, 2, 0, 1, 0, 1, 0, 1, 0})
	f.Add([]byte{byte(KindRoundTrips), 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParseRoundTrips(b, nil)
		mustParseError(t, err)
		if err != nil {
			if len(rs) != 0 {
				t.Fatalf("refused (%v) after telling %d", err, len(rs))
			}
			return
		}
		for i, r := range rs {
			if r.Player == 0 || i > 0 && rs[i-1].Player >= r.Player || r.RTT < 0 || r.RTT > MaxRoundTrip || r.RTT%time.Millisecond != 0 {
				t.Fatalf("accepted %+v", r)
			}
		}
		if again := rs.Append(nil); !bytes.Equal(again, b) {
			t.Fatalf("parsed %+v from % x, which encodes as % x", rs, b, again)
		}
	})
}

// TestRoundTripsRoundTrip: each round trip comes back to the millisecond,
// held to 0..MaxRoundTrip, and every strict prefix is refused.
func TestRoundTripsRoundTrip(t *testing.T) {
	for _, rs := range roundTripSeeds() {
		b := rs.Append(nil)
		got, err := ParseRoundTrips(b, nil)
		if err != nil || len(got) != len(rs) {
			t.Fatalf("%+v: %+v, %v", rs, got, err)
		}
		for i := range rs {
			want := min(max(rs[i].RTT.Round(time.Millisecond), 0), MaxRoundTrip)
			if got[i].Player != rs[i].Player || got[i].RTT != want {
				t.Errorf("%+v came back %+v; want %v", rs[i], got[i], want)
			}
		}
		prefixesFail(t, "round trips", b, func(b []byte) error { _, err := ParseRoundTrips(b, nil); return err })
	}
}

// TestRoundTripsRefuses checks the parser's bounds one by one.
func TestRoundTripsRefuses(t *testing.T) {
	base := RoundTrips{{Player: 1, RTT: time.Millisecond}, {Player: 2}}.Append(nil)
	edit := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), base...)) }
	many := append(RoundTrips{}.Append(nil), make([]byte, 4*(MaxPlayers+1))...)
	many[1], many[2] = byte((MaxPlayers+1)&0xff), byte((MaxPlayers+1)>>8)
	for i := range MaxPlayers + 1 {
		many[3+4*i] = byte(i + 1)
		many[4+4*i] = byte((i + 1) >> 8)
	}
	for name, b := range map[string][]byte{
		"wrong kind":   edit(func(b []byte) []byte { b[0] = byte(KindPlayers); return b }),
		"too many":     many,
		"trailing":     append(append([]byte(nil), base...), 0),
		"player 0":     edit(func(b []byte) []byte { b[3] = 0; return b }),
		"out of order": edit(func(b []byte) []byte { b[7] = 1; return b }),
	} {
		rs, err := ParseRoundTrips(b, nil)
		if err == nil || len(rs) != 0 {
			t.Errorf("%s: %+v, %v", name, rs, err)
		}
		mustParseError(t, err)
	}
}
