package loop

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestDurationBucketsCoverTheirValues(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 15, 16, 17, 31, 32, 1000, 1023, 1024, 65 * time.Microsecond, 3 * time.Millisecond, time.Second, 17 * time.Minute} {
		i := durBucket(d)
		if up := durUpper(i); up < d || (i > 0 && durUpper(i-1) >= d) {
			t.Errorf("%v: bucket %d spans (%v, %v]", d, i, durUpper(i-1), up)
		}
	}
	if i := durBucket(time.Hour); i != durBuckets-1 {
		t.Errorf("an hour is in bucket %d, not the last (%d)", i, durBuckets-1)
	}
	for i := 1; i < durBuckets; i++ {
		if durUpper(i) <= durUpper(i-1) {
			t.Fatalf("bucket %d ends at %v, not after bucket %d's %v", i, durUpper(i), i-1, durUpper(i-1))
		}
	}
}

func TestDurationQuantilesAreWithinABucket(t *testing.T) {
	const seed = 5
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var h Durations
	var all []time.Duration
	for range 10000 {
		d := time.Duration(rng.ExpFloat64() * float64(200*time.Microsecond))
		h.Add(d)
		all = append(all, d)
	}
	slices.Sort(all)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		exact := all[int(q*float64(len(all)))-1]
		got := h.Quantile(q)
		if got < exact || float64(got) > float64(exact)*(1+1.0/durSub)+1 {
			t.Errorf("p%v = %v, exact %v: more than a bucket off", q*100, got, exact)
		}
	}
	if h.Quantile(1) != all[len(all)-1] || h.max != all[len(all)-1] {
		t.Errorf("max %v / p100 %v, want %v", h.max, h.Quantile(1), all[len(all)-1])
	}
	var empty Durations
	if empty.Quantile(0.99) != 0 {
		t.Error("an empty histogram has a percentile")
	}
}

// TestThreadCPUCountsWork: the thread clock advances with work done on
// the thread, and not while it sleeps.
func TestThreadCPUCountsWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := ThreadCPU()
	if !ok {
		t.Skip("no thread CPU clock here")
	}
	x := 1.0
	for i := range 20_000_000 {
		x = x*1.0000001 + float64(i&1)
	}
	worked, _ := ThreadCPU()
	if worked <= start {
		t.Fatalf("the thread clock stood still through work (%v, %v; %v)", start, worked, x)
	}
}

// BenchmarkThreadCPU is one reading of the thread CPU clock, which a
// served game's behavior budget takes at a long call's first check and
// when the wall says the budget is spent.
func BenchmarkThreadCPU(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		ThreadCPU()
	}
}

// The loop pairs ticks only while they run fast (pairedTickMax), judged by
// the slowest tick of the last wake-up: a run of ticks keeps its longest,
// and the next run starts from nothing.
func TestStatsKeepTheSlowestTickOfARun(t *testing.T) {
	st := NewStats()
	st.Begin()
	st.mark = time.Now().Add(-3 * time.Millisecond) // a tick of at least 3 ms
	st.TickDone(nil)
	st.TickDone(nil) // then one of next to nothing
	if st.slowest < 3*time.Millisecond {
		t.Fatalf("slowest of a 3 ms tick and a quick one = %v", st.slowest)
	}
	st.Begin()
	st.TickDone(nil)
	if st.slowest >= 3*time.Millisecond {
		t.Fatalf("a new run kept the last run's slowest tick: %v", st.slowest)
	}
}
