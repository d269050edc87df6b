package seal

import (
	"fmt"
	"testing"
)

// datagramSizes are whole sealed datagrams: a small command packet, a
// typical snapshot, and the largest datagram vkm sends.
var datagramSizes = []int{64, 400, 1200}

func BenchmarkSeal(b *testing.B) {
	for _, size := range datagramSizes {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s, _ := pair(b, &keyA)
			hdr := header(1)
			payload := make([]byte, size-testHeader-Overhead)
			out := make([]byte, 0, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				out = s.Seal(out[:0], hdr, payload)
			}
			b.ReportMetric(Overhead, "B-added/op")
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, size := range datagramSizes {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s, r := pair(b, &keyA)
			hdr := header(1)
			payload := make([]byte, size-testHeader-Overhead)
			// A run of datagrams, each opened once, so the window moves as
			// on a real connection.
			const run = 1024
			sealed := make([][]byte, run)
			for i := range sealed {
				sealed[i] = s.Seal(nil, hdr, payload)
			}
			plain := make([]byte, 0, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i == run {
					// Reseal the run at the next counters; not timed.
					b.StopTimer()
					for j := range sealed {
						sealed[j] = s.Seal(sealed[j][:0], hdr, payload)
					}
					i = 0
					b.StartTimer()
				}
				if _, _, err := r.Open(plain[:0], sealed[i]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(Overhead, "B-added/op")
		})
	}
}
