package transport

import (
	"vkm/transport/handshake"

	"testing"
	"time"
)

// A playing session's steady state allocates nothing: Data each way through
// Send, NextDatagram, Receive and NextEvent, a Poll, and the player list.
func TestSessionSteadyStateAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	s, c, _ := seatedServer(t)
	now := fuzzNow
	payload := make([]byte, 300)
	var list []PlayerInfo
	round := func() {
		now = now.Add(time.Second / 64)
		c.Send(payload, now)
		for b, ok := c.NextDatagram(); ok; b, ok = c.NextDatagram() {
			s.Receive(fuzzSeated, b, now)
		}
		for _, ok := s.NextEvent(); ok; _, ok = s.NextEvent() {
		}
		s.Send(1, payload, now)
		s.Poll(now)
		for _, b, ok := s.NextDatagram(); ok; _, b, ok = s.NextDatagram() {
			c.Receive(b, now)
		}
		for _, ok := c.NextEvent(); ok; _, ok = c.NextEvent() {
		}
		c.Poll(now)
		list = s.Players(list[:0], now)
	}
	for range 10 { // buffers reach their working size
		round()
	}
	allocs := testing.AllocsPerRun(1000, round)
	t.Logf("allocations per round (a Data each way, polls, player list): %v; server %+v", allocs, s.Stats().Drops)
	if allocs != 0 {
		t.Fatalf("%v allocations per round", allocs)
	}
}

// Answering a forged Hello allocates nothing in the Server. A Hello that
// carries a name costs the one allocation handshake.ParseHello makes for the
// name string, which is garbage at once: nothing of it is kept.
func TestChallengeAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	s, _, _ := seatedServer(t)
	from := fuzzAddr(2)
	answer := func(hello []byte) float64 {
		return testing.AllocsPerRun(1000, func() {
			s.Receive(from, hello, fuzzNow)
			for _, _, ok := s.NextDatagram(); ok; _, _, ok = s.NextDatagram() {
			}
		})
	}
	nameless := fuzzHello
	nameless.Name = ""
	bare := answer(handshake.AppendDatagram(nil, 0, nameless))
	named := answer(handshake.AppendDatagram(nil, 0, fuzzHello))
	t.Logf("allocations per forged Hello answered: %v without a name, %v with one (challenges %d)", bare, named, s.Stats().Challenges)
	if bare != 0 || named > 1 {
		t.Fatalf("%v and %v allocations per Hello", bare, named)
	}
}
