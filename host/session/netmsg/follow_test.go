package netmsg

import (
	"bytes"
	"testing"
)

func TestFollowRoundTrip(t *testing.T) {
	for _, n := range []uint16{0, 1, 7, 65535} {
		b := Follow{Player: n}.Append(nil)
		if len(b) != FollowSize || b[0] != 11 {
			t.Fatalf("follow %d encoded as % x", n, b)
		}
		f, err := ParseFollow(b)
		if err != nil || f.Player != n {
			t.Fatalf("follow %d read back as %d, %v", n, f.Player, err)
		}
	}
	for _, bad := range [][]byte{nil, {11}, {11, 1}, {11, 1, 0, 0}, {8, 1, 0}} {
		if _, err := ParseFollow(bad); err == nil {
			t.Errorf("ParseFollow(% x) took it", bad)
		}
	}
}

func FuzzFollow(f *testing.F) {
	f.Add([]byte{11, 3, 0})
	f.Add([]byte{11, 0, 0})
	f.Add([]byte{11})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseFollow(b)
		if err != nil {
			return
		}
		if again := m.Append(nil); !bytes.Equal(again, b) {
			t.Fatalf("% x read as %d, written as % x", b, m.Player, again)
		}
	})
}
