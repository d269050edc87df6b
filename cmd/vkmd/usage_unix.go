//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// usage returns the process's CPU time so far (user + system) and its peak
// resident size in bytes.
func usage() (cpu time.Duration, maxRSS int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	maxRSS = int64(ru.Maxrss) // KiB on Linux and the BSDs
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return cpu, maxRSS, true // bytes there
	}
	return cpu, maxRSS * 1024, true
}
