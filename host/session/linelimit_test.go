package session

import (
	"testing"
	"time"

	"vkm/transport"
)

// A seat that rejoins 400 times a second for 12 s writes one line each
// rejoinLogEvery, each counting the lines it held back, and loses none of
// the count.
func TestRejoinLinesAreLimited(t *testing.T) {
	var l lineLimit
	lines, counted := 0, 0
	for i := range 400 * 12 {
		now := transport.Time(0).Add(time.Duration(i) * time.Second / 400)
		if held, ok := l.allow(now); ok {
			lines++
			counted += 1 + held
		}
	}
	counted += l.held
	t.Logf("%d rejoins: %d lines", 400*12, lines)
	if lines != 3 || counted != 400*12 {
		t.Fatalf("%d lines counting %d rejoins, want 3 lines counting %d", lines, counted, 400*12)
	}
}
