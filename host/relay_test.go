package host

import (
	"bytes"
	"context"
	"errors"
	"math"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/bot"
	"vkm/host/netio"
	"vkm/host/relayd"
	"vkm/transport/relay"
	"vkm/transport/token"
)

// runRelay starts a relay on n (nil: UDP on 127.0.0.1) and returns its
// address and a function that stops it and returns its counts.
func runRelay(t *testing.T, n *netio.Loopback, tap func(bool, netip.AddrPort, []byte)) (string, func() relay.Stats) {
	return runRelayAt(t, n, "127.0.0.1:0", tap)
}

// runRelayAt is runRelay listening on addr.
func runRelayAt(t *testing.T, n *netio.Loopback, addr string, tap func(bool, netip.AddrPort, []byte)) (string, func() relay.Stats) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan netip.AddrPort, 1)
	type result struct {
		st  relay.Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := relayd.Serve(ctx, relayd.Config{Addr: addr, Net: n, Logger: testLogger(t), Tap: tap,
			Ready: func(a netip.AddrPort) { ready <- a }})
		done <- result{st, err}
	}()
	var at netip.AddrPort
	select {
	case at = <-ready:
	case r := <-done:
		cancel()
		t.Fatalf("the relay ended before listening: %v", r.err)
	}
	return at.String(), func() relay.Stats {
		cancel()
		r := <-done
		if r.err != nil {
			t.Errorf("the relay: %v", r.err)
		}
		return r.st
	}
}

// relayedServe serves cfg behind the relay at relayAt and returns the
// join code it was given.
func relayedServe(t *testing.T, n *netio.Loopback, relayAt string, cfg ServeConfig) (string, func() *ServerReport) {
	t.Helper()
	codes := make(chan string, 4)
	cfg.Project = loadArena(t)
	cfg.Relay, cfg.JoinCode = relayAt, func(c string) { codes <- c }
	_, stop := servedWith(t, n, cfg)
	return <-codes, stop
}

// playFor plays the arena with a wandering bot for d through connect.
func playFor(t *testing.T, n *netio.Loopback, connect string, key *token.Key, d time.Duration) ClientReport {
	t.Helper()
	p := loadArena(t)
	b, err := bot.New("wander", 7, len(p.Axes), len(p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+testDeadline)
	defer cancel()
	rep, err := Play(ctx, PlayConfig{Project: p, Connect: connect, Net: n, Name: "tester", Input: b, Duration: d, Key: key, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.State != "playing" {
		t.Fatalf("through %s: state %s (%s)", connect, rep.State, rep.LastError)
	}
	return rep
}

// A client joins by code through the relay and plays 20 s (on the
// synctest clock) as it does directly: no snapshot fails to decode, and
// the corrections are those of the direct run within noise; keyless and
// with a token naming the relayed server.
func TestJoinCodePlayMatchesDirect(t *testing.T) {
	const play = 20 * time.Second
	var direct ClientReport
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		addr, stop := served(t, n, loadArena(t))
		direct = playFor(t, n, addr, nil, play)
		stop()
	})
	key, err := token.NewKey(strings.NewReader(strings.Repeat("k", 64)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		key  *token.Key
	}{{"keyless", nil}, {"token", &key}} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := netio.NewLoopback()
				// The relay's view: every datagram it is sent. The
				// player's Hello carries its name, "tester", in the clear
				// on a direct join; through the relay no datagram shows it.
				var seen, clear int
				tap := func(in bool, _ netip.AddrPort, b []byte) {
					if in {
						seen++
						if bytes.Contains(b, []byte("tester")) {
							clear++
						}
					}
				}
				relayAt, stopRelay := runRelay(t, n, tap)
				code, stop := relayedServe(t, n, relayAt, ServeConfig{Key: c.key})
				got := playFor(t, n, code, c.key, play)
				stop()
				synctest.Wait() // the relay has taken the server's Leave
				st := stopRelay()
				t.Logf("direct: %d ticks, %d corrections, %d bad; through %s: %d ticks, %d corrections, %d bad; relay %v",
					direct.Ticks, direct.Corrections, direct.BadSnapshots, code, got.Ticks, got.Corrections, got.BadSnapshots, st)
				if got.BadSnapshots != 0 || direct.BadSnapshots != 0 {
					t.Errorf("snapshots that did not decode: %d relayed, %d direct", got.BadSnapshots, direct.BadSnapshots)
				}
				// The relay lost nothing: every datagram it was given went
				// on, none over a rate.
				if st.Limited != 0 || st.Dropped != 0 {
					t.Errorf("the relay limited %d datagrams and dropped %d", st.Limited, st.Dropped)
				}
				// Within noise: both ends run on goroutines of their own,
				// whose order at one instant of the synctest clock the
				// scheduler picks, so a run makes 0 to 2 corrections on a
				// quiet machine and up to 11 (once, in 20 s of play) on
				// one running other packages' tests beside it, relayed or
				// not. A relay that held datagrams would make tens.
				if diff := math.Abs(float64(got.Corrections) - float64(direct.Corrections)); diff > max(16, 0.25*float64(direct.Corrections)) {
					t.Errorf("%d corrections through the relay, %d direct", got.Corrections, direct.Corrections)
				}
				if got.Ticks < direct.Ticks*9/10 {
					t.Errorf("%d ticks through the relay, %d direct", got.Ticks, direct.Ticks)
				}
				if clear != 0 || seen < 1000 {
					t.Errorf("the relay saw the player's name in %d of %d datagrams", clear, seen)
				}
				if st.Forwarded == 0 || st.Codes != 0 {
					t.Errorf("the relay's counts at the end: %v (the server left, so no code)", st)
				}
			})
		})
	}
}

// A wrong code, and the code of a server that has left, are refused with
// a sentence saying which.
func TestJoinCodeWrongAndExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		relayAt, stopRelay := runRelay(t, n, nil)
		defer stopRelay()
		code, stop := relayedServe(t, n, relayAt, ServeConfig{})
		c, _, _, err := relay.SplitJoin(code)
		if err != nil {
			t.Fatal(err)
		}
		wrong := (c ^ 1).String() + "@" + relayAt
		join := func(connect string) error {
			_, err := Play(context.Background(), PlayConfig{Project: loadArena(t), Connect: connect, Net: n, Duration: time.Second})
			return err
		}
		var refused *netio.RelayRefused
		err = join(wrong)
		if !errors.As(err, &refused) || refused.Reason != relay.ReasonUnknown || !strings.Contains(err.Error(), "no server holds this code") {
			t.Errorf("a wrong code: %v", err)
		}
		stop()
		err = join(code)
		if !errors.As(err, &refused) || refused.Reason != relay.ReasonExpired || !strings.Contains(err.Error(), "expired") {
			t.Errorf("the code of a server that left: %v", err)
		}
		t.Logf("refusals: %v", err)
		if err := join("K7M-Q2@" + relayAt); !errors.Is(err, relay.ErrCode) {
			t.Errorf("a code too short: %v", err)
		}
	})
}

// Players behind one address who join at once (a LAN party behind one
// NAT) are all let in: those the relay refuses for the address's join
// rate ask again at the resend pace, which the rate allows.
func TestManyJoinersBehindOneAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		relayAt, stopRelay := runRelay(t, n, nil)
		code, stop := relayedServe(t, n, relayAt, ServeConfig{})
		c, at, _, err := relay.SplitJoin(code)
		if err != nil {
			t.Fatal(err)
		}
		const joiners = 16 // twice the join burst
		errs := make(chan error, joiners)
		for range joiners {
			go func() {
				s, err := netio.DialRelay(context.Background(), n, at, c)
				if err == nil {
					s.Close()
				}
				errs <- err
			}()
		}
		for range joiners {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		stop()
		if st := stopRelay(); st.Refused == 0 || st.Peers != 0 {
			t.Errorf("the relay refused none of %d joins at once for the rate (or kept peers after the server left): %v", joiners, st)
		} else {
			t.Logf("%d joiners at once: %v", joiners, st)
		}
	})
}
