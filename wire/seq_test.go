package wire

import "testing"

func TestNewerAtTheWrap(t *testing.T) {
	tests := []struct {
		a, b  Seq
		newer bool
		diff  int
	}{
		{1, 0, true, 1},
		{0, 1, false, -1},
		{5, 5, false, 0},
		{0, 65535, true, 1}, // the wrap: 0 follows 65535
		{65535, 0, false, -1},
		{10, 65530, true, 16},
		{65530, 10, false, -16},
		{32767, 0, true, 32767}, // the farthest a packet can be ahead
		{32768, 0, false, -32768},
		{0, 32768, false, -32768}, // half the range away: neither is newer
		{0, 32767, false, -32767},
		{32768, 1, true, 32767},
		{65535, 32768, true, 32767},
		{32767, 32768, false, -1},
		{32768, 32767, true, 1},
	}
	for _, tt := range tests {
		if got := tt.a.Newer(tt.b); got != tt.newer {
			t.Errorf("%d.Newer(%d) = %v, want %v", tt.a, tt.b, got, tt.newer)
		}
		if got := Diff(tt.a, tt.b); got != tt.diff {
			t.Errorf("Diff(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.diff)
		}
	}
}

func TestNewerAgreesWithDiffEverywhere(t *testing.T) {
	for _, b := range []Seq{0, 1, 100, 32767, 32768, 40000, 65535} {
		for d := range 1 << 16 {
			a := b + Seq(d)
			if a.Newer(b) != (Diff(a, b) > 0) {
				t.Fatalf("a=%d b=%d: Newer %v, Diff %d", a, b, a.Newer(b), Diff(a, b))
			}
			if b+Seq(Diff(a, b)) != a {
				t.Fatalf("a=%d b=%d: b+Diff != a", a, b)
			}
			if a.Newer(b) && b.Newer(a) {
				t.Fatalf("a=%d b=%d: each newer than the other", a, b)
			}
		}
	}
}

// A counter stepped through three wraps: each sequence is newer than the one
// before and than everything up to 32767 behind it.
func TestNewerAcrossManyWraps(t *testing.T) {
	var s Seq
	for i := range 3 * 65536 {
		next := s + 1
		if !next.Newer(s) || s.Newer(next) {
			t.Fatalf("step %d: %d vs %d", i, next, s)
		}
		if !next.Newer(next - 32767) {
			t.Fatalf("step %d: %d not newer than %d", i, next, next-32767)
		}
		s = next
	}
}
