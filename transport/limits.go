package transport

import (
	"hash/maphash"
	"net/netip"
	"time"
)

// Tuning constants of the server's limits (docs/protocol.md, "Limits").
const (
	// HelloRate and HelloBurst bound the Hellos a Server reads from one
	// source IP: HelloRate a second, HelloBurst at once. A joining client
	// says Hello 64 times a second until it is answered, a round trip's
	// worth; the burst lets a dozen behind one NAT join together, and the
	// rate lets them go on trying. Hellos over it are dropped unread.
	HelloRate  = 128
	HelloBurst = 256

	// helloSlots is how many buckets the Hello limit keeps: an IP maps to
	// one by a keyed hash, so memory is fixed (64 KiB) however many
	// addresses a flood forges, and two addresses sharing a bucket share
	// its rate, which errs toward refusing, never toward letting through.
	// The key is drawn when the Server is made, so nobody picks the
	// addresses that collide with a player's.
	helloSlots = 4096

	// SeatRateFactor sets how many datagrams a second a seat may send: this
	// many times the tick rate, or the client's command rate (64) when that
	// is higher; a client sends one a command interval and a keep-alive
	// now and then. A second's worth of them may come at once.
	SeatRateFactor = 4

	// FloodWindow is how long a seat may go on over its rate before the
	// Server ends it (handshake.GoodbyeFlood): datagrams over the rate
	// are dropped at once, and a seat more than half its rate's worth of
	// them over within a window (sending half as much again as it may, for
	// a second) is ended.
	FloodWindow = time.Second

	// BackoffAfter is how long a seat may go without acknowledging
	// anything before AckSilent says so, and a send loop sends it fewer
	// snapshots: a peer that hears nothing cannot use them, and a full
	// snapshot stream into a dead link is bandwidth for nothing.
	BackoffAfter = time.Second
)

// bucket is a token bucket: tokens, refilled at a rate up to a burst,
// as of at.
type bucket struct {
	tokens float64
	at     Time
}

// take refills b for the time since it was last used and takes one token,
// reporting whether there was one.
func (b *bucket) take(now Time, rate, burst float64) bool {
	if b.at == 0 && b.tokens == 0 {
		b.tokens = burst
	} else if d := now.Sub(b.at); d > 0 {
		b.tokens = min(burst, b.tokens+d.Seconds()*rate)
	}
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// helloLimit is the per-IP Hello limit: helloSlots buckets by keyed hash,
// each filled at rate up to burst. A nil *helloLimit allows everything.
type helloLimit struct {
	seed        maphash.Seed
	rate, burst float64
	slots       [helloSlots]bucket
}

// newHelloLimit returns the limit for ServerConfig.HelloRate rate.
func newHelloLimit(rate int) *helloLimit {
	switch {
	case rate < 0:
		return nil
	case rate == 0:
		return &helloLimit{seed: maphash.MakeSeed(), rate: HelloRate, burst: HelloBurst}
	}
	return &helloLimit{seed: maphash.MakeSeed(), rate: float64(rate), burst: 2 * float64(rate)}
}

// allow reports whether a Hello from addr may be read at now.
func (l *helloLimit) allow(addr netip.Addr, now Time) bool {
	if l == nil {
		return true
	}
	b := addr.As16()
	i := maphash.Bytes(l.seed, b[:]) % helloSlots
	return l.slots[i].take(now, l.rate, l.burst)
}

// seatMeter is one seat's datagram limit: a token bucket at the seat rate,
// and the datagrams dropped over it in the current flood window.
type seatMeter struct {
	b        bucket
	over     int
	windowAt Time
}

// seatRate is how many datagrams a second a seat may send at tickRate.
func seatRate(tickRate uint16) float64 {
	return SeatRateFactor * float64(max(int(tickRate), 64))
}

// admit reports whether a seat's datagram is within its rate at now, and
// whether the seat has gone over it for too long and is to be ended.
func (m *seatMeter) admit(now Time, rate float64) (ok, flood bool) {
	if m.b.take(now, rate, rate) {
		return true, false
	}
	if now.Sub(m.windowAt) >= FloodWindow {
		m.windowAt, m.over = now, 0
	}
	m.over++
	return false, float64(m.over) > rate/2
}
