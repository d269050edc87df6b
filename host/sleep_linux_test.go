package host

import (
	"runtime"
	"testing"
	"time"
)

// sleepUntil yields before it sleeps: with one P and the raw sleep (vkmd's
// default), a goroutine made runnable before the loop goes to sleep has
// run by the time it wakes, and the sleep lasts until the wake time.
func TestSleepUntilLetsOthersRunAndWaits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, raw := range []bool{true, false} {
		ran := make(chan struct{})
		go func() { close(ran) }()
		wake := time.Now().Add(2 * time.Millisecond)
		sleepUntil(wake, raw)
		if time.Now().Before(wake) {
			t.Fatalf("raw %v: woke before the wake time", raw)
		}
		select {
		case <-ran:
		default:
			t.Fatalf("raw %v: a runnable goroutine did not run while the loop slept", raw)
		}
	}
	// A wake time already past is no sleep at all, and no error.
	sleepUntil(time.Now().Add(-time.Second), true)
}
