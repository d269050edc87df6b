package watch

import (
	"os"
	"testing"
	"time"
)

// BenchmarkWatcherPoll is the cost of one look at the arena's files, which
// a dev server makes ten times a second.
func BenchmarkWatcherPoll(b *testing.B) {
	w, err := New(os.DirFS("../../projects/arena"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Poll(time.Duration(i) * Every)
	}
	b.ReportMetric(float64(len(w.stamp)), "files")
}
