// Command noise measures how much this machine alone spreads the time of a
// fixed piece of work: the floor under any tick-time percentile a server
// reports here. It runs the same work, about a millisecond and a half, a
// thousand times back to back and a thousand times after a 12 ms sleep (as
// a 64 Hz server sleeps between ticks), over a buffer that fits the core's
// caches and over one that does not, and prints p50, p99 and their ratio.
//
//	go run ./bench/noise
//
// A tick whose median is M cannot have a p99 much below M times the ratio
// printed for work like it: the work here never changes, so all of its
// spread is the machine's (other processes, the hypervisor, caches gone
// cold while it slept).
package main

import (
	"fmt"
	"slices"
	"time"
)

// work passes over buf n times, reading and writing every word.
func work(buf []uint64, n int) {
	var s uint64
	for i := range n {
		for j := range buf {
			s += buf[j] * uint64(i+j+1)
			buf[j] = s
		}
	}
}

// calibrate returns the number of passes over buf that take about target
// back to back.
func calibrate(buf []uint64, target time.Duration) int {
	n := 1
	for {
		best := time.Duration(1 << 62)
		for range 5 {
			s := time.Now()
			work(buf, n)
			best = min(best, time.Since(s))
		}
		if best >= target {
			return n
		}
		n = max(n+1, int(float64(n)*float64(target)/float64(best)))
	}
}

func main() {
	const runs = 1000
	fmt.Printf("%-10s %-14s %10s %10s %10s %8s\n", "buffer", "before each", "p50", "p99", "max", "p99/p50")
	for _, words := range []int{1 << 10, 1 << 19} { // 8 KB, 4 MB
		buf := make([]uint64, words)
		n := calibrate(buf, 1500*time.Microsecond)
		for _, sleep := range []time.Duration{0, 12 * time.Millisecond} {
			ds := make([]time.Duration, runs)
			for i := range ds {
				if sleep > 0 {
					time.Sleep(sleep)
				}
				s := time.Now()
				work(buf, n)
				ds[i] = time.Since(s)
			}
			slices.Sort(ds)
			p50, p99 := ds[runs/2], ds[runs*99/100]
			before := "nothing"
			if sleep > 0 {
				before = "a 12 ms sleep"
			}
			fmt.Printf("%-10s %-14s %10v %10v %10v %8.2f\n", fmt.Sprintf("%d KB", words*8/1024), before,
				p50.Round(time.Microsecond), p99.Round(time.Microsecond), ds[runs-1].Round(time.Microsecond), float64(p99)/float64(p50))
		}
	}
}
