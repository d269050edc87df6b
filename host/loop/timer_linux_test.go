package loop

import (
	"runtime"
	"testing"
	"time"
)

// The serving loop's wait parks it on the poller: with one P (vkmd's
// default), a goroutine made runnable before the loop waits has run by the
// time it wakes, and each wait lasts until its wake time, the timer armed
// anew each time.
func TestSleepUntilLetsOthersRunAndWaits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	lt, err := NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer lt.Close()
	for i := range 20 {
		ran := make(chan struct{})
		go func() { close(ran) }()
		wake := time.Now().Add(time.Millisecond)
		lt.SleepUntil(wake)
		if time.Now().Before(wake) {
			t.Fatalf("wait %d: woke before the wake time", i)
		}
		select {
		case <-ran:
		default:
			t.Fatalf("wait %d: a runnable goroutine did not run while the loop waited", i)
		}
	}
	// A wake time already past is no wait at all: the timer is not armed
	// with zero, which would disarm it and leave the read waiting forever.
	lt.SleepUntil(time.Now().Add(-time.Second))
}
