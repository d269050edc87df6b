package session

import (
	"testing"
	"time"

	"vkm/transport"
)

// A loop that sleeps for Until and then advances wakes only for ticks that
// bring a send round: at 128 Hz it runs two ticks a wake-up and sends every
// time, at 100 Hz 100 ticks and 64 rounds a second, and at 64 Hz (a round
// every tick) one tick a wake-up, as before.
func TestUntilWakesOnlyForRounds(t *testing.T) {
	for _, tc := range []struct {
		rate, wakes, ticks int
	}{
		{128, 64, 128},
		{100, 64, 100},
		{64, 64, 64},
	} {
		p := loadArena(t)
		p.TickRate = tc.rate
		s, err := NewServer(ServerConfig{Project: p, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		now := transport.Time(0)
		start := s.Game().Tick()
		wakes, rounds := 0, 0
		for now < transport.Time(time.Second) {
			d := s.Until(now)
			if d <= 0 {
				t.Fatalf("%d Hz: Until asked for no wait at wake-up %d", tc.rate, wakes)
			}
			now += transport.Time(d)
			wakes++
			if s.Advance(d, now) {
				rounds++
			}
		}
		ticks := int(s.Game().Tick() - start)
		t.Logf("%d Hz: %d wake-ups, %d ticks, %d rounds in a second", tc.rate, wakes, ticks, rounds)
		if wakes != rounds {
			t.Errorf("%d Hz: %d wake-ups sent %d rounds: a wake-up without one was for nothing", tc.rate, wakes, rounds)
		}
		if wakes < tc.wakes-1 || wakes > tc.wakes+1 || ticks < tc.ticks-1 || ticks > tc.ticks+1 {
			t.Errorf("%d Hz: %d wake-ups and %d ticks in a second, want %d and %d", tc.rate, wakes, ticks, tc.wakes, tc.ticks)
		}
		// UntilTick wakes for every tick, as a loop with slow ticks does.
		start, wakes = s.Game().Tick(), 0
		for end := now + transport.Time(time.Second); now < end; wakes++ {
			d := s.UntilTick(now)
			now += transport.Time(d)
			s.Advance(d, now)
			if ran := int(s.Game().Tick() - start); ran != wakes+1 {
				t.Fatalf("%d Hz: wake-up %d by UntilTick brought the ticks run to %d", tc.rate, wakes, ran)
			}
		}
		s.Close()
	}
}
