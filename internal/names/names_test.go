package names

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	long := strings.Repeat("a", 65)
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"speed", "speed", 0},
		{"sped", "speed", 1},
		{"spede", "speed", 2},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{long, "a", 1 << 30},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}
