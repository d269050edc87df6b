package udp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/udp"
)

// frame is the loops' frame interval: the rate the host polls at.
const frame = time.Second / 64

var hello = handshake.Hello{SchemaFP: 0xfeed, ActionCount: 3, ActionFP: 0xbeef, TickRate: 64}

// packet is a datagram copied out of a read loop.
type packet struct {
	from netip.AddrPort
	b    []byte
}

// loop is a sans-IO end driven by a goroutine: datagrams from its socket,
// a frame ticker and calls from the test (do) are handled one at a time, so
// the end itself is never touched concurrently.
type loop struct {
	in chan packet
	do chan func(now transport.Time)
}

func newLoop() *loop {
	return &loop{in: make(chan packet, 256), do: make(chan func(transport.Time))}
}

// call runs f on the loop's goroutine and waits for it.
func (l *loop) call(ctx context.Context, t *testing.T, f func(now transport.Time)) {
	t.Helper()
	done := make(chan struct{})
	select {
	case l.do <- func(now transport.Time) { f(now); close(done) }:
	case <-ctx.Done():
		t.Fatal("loop gone")
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("loop gone")
	}
}

// run drives the end until ctx ends: receive, poll every frame, run calls;
// after each, flush (send what the end queued, pass its events on).
func (l *loop) run(ctx context.Context, clock func() transport.Time, receive func(packet, transport.Time),
	poll func(transport.Time), flush func()) {
	tick := time.NewTicker(frame)
	defer tick.Stop()
	for {
		select {
		case p := <-l.in:
			receive(p, clock())
		case <-tick.C:
			poll(clock())
		case f := <-l.do:
			f(clock())
		case <-ctx.Done():
			return
		}
		flush()
	}
}

// feed passes a copy of each datagram to the loop, giving up when ctx ends.
func (l *loop) feed(ctx context.Context, from netip.AddrPort, b []byte) {
	select {
	case l.in <- packet{from, bytes.Clone(b)}:
	case <-ctx.Done():
	}
}

// send passes an event on, giving up when ctx ends.
func send[E any](ctx context.Context, ch chan<- E, e E) {
	select {
	case ch <- e:
	case <-ctx.Done():
	}
}

// playerList is the server's Data to every player in this test: the player
// numbers seated, as "players 1,2".
func playerList(ps []transport.PlayerInfo) []byte {
	nums := make([]string, len(ps))
	for i, p := range ps {
		nums[i] = strconv.Itoa(int(p.Player))
	}
	return []byte("players " + strings.Join(nums, ","))
}

// A server and two clients on 127.0.0.1: both join, each sees both players
// in the player list the server sends, and both leave.
func TestTwoClientsJoinSeeEachOtherAndLeave(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	clock := func() transport.Time { return transport.Time(time.Since(start)) }
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait) // runs after cancel: every goroutine has ended

	srvSock, err := udp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srvSock.Close() }) // before wg.Wait: ends Serve on any path
	srv, err := transport.NewServer(transport.ServerConfig{
		Hello: hello, MaxPlayers: 4,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srvLoop, srvEvents := newLoop(), make(chan transport.ServerEvent, 64)
	serveErrs := make(chan error, 3)
	wg.Go(func() {
		serveErrs <- srvSock.Serve(func(from netip.AddrPort, b []byte) { srvLoop.feed(ctx, from, b) })
	})
	var list []transport.PlayerInfo
	wg.Go(func() {
		srvLoop.run(ctx, clock,
			func(p packet, now transport.Time) { srv.Receive(p.from, p.b, now) },
			func(now transport.Time) {
				srv.Poll(now)
				list = srv.Players(list[:0], now)
				for _, p := range list {
					if p.Playing {
						srv.Send(p.Player, playerList(list), now)
					}
				}
			},
			func() {
				for to, b, ok := srv.NextDatagram(); ok; to, b, ok = srv.NextDatagram() {
					if err := srvSock.WriteTo(b, to); err != nil {
						t.Errorf("server write: %v", err)
					}
				}
				for e, ok := srv.NextEvent(); ok; e, ok = srv.NextEvent() {
					send(ctx, srvEvents, e)
				}
			})
	})

	type end struct {
		name   string
		sock   *udp.Client
		c      *transport.Client
		l      *loop
		events chan transport.ClientEvent
	}
	var ends []*end
	for _, name := range []string{"ada", "bob"} {
		sock, err := udp.Dial(srvSock.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sock.Close() })
		h := hello
		h.Name = name
		e := &end{name: name, sock: sock, l: newLoop(), events: make(chan transport.ClientEvent, 512),
			c: transport.NewClient(transport.ClientConfig{Hello: h}, clock())}
		ends = append(ends, e)
		wg.Go(func() { serveErrs <- sock.Serve(func(b []byte) { e.l.feed(ctx, netip.AddrPort{}, b) }) })
		wg.Go(func() {
			e.l.run(ctx, clock,
				func(p packet, now transport.Time) { e.c.Receive(p.b, now) },
				e.c.Poll,
				func() {
					for b, ok := e.c.NextDatagram(); ok; b, ok = e.c.NextDatagram() {
						if err := sock.Write(b); err != nil {
							t.Errorf("%s write: %v", name, err)
						}
					}
					for ev, ok := e.c.NextEvent(); ok; ev, ok = e.c.NextEvent() {
						ev.Payload = bytes.Clone(ev.Payload)
						send(ctx, e.events, ev)
					}
				})
		})
	}

	// Both are welcomed, and the server saw both join from their sockets.
	players := map[string]uint16{}
	joined := map[netip.AddrPort]uint16{}
	for len(players) < 2 || len(joined) < 2 {
		select {
		case ev := <-ends[0].events:
			if ev.Kind == transport.EventWelcome {
				players["ada"] = ev.Welcome.Player
			}
		case ev := <-ends[1].events:
			if ev.Kind == transport.EventWelcome {
				players["bob"] = ev.Welcome.Player
			}
		case ev := <-srvEvents:
			if ev.Kind == transport.EventJoined {
				joined[ev.Addr] = ev.Player
			}
		case <-ctx.Done():
			t.Fatalf("join: welcomed %v, server joined %v", players, joined)
		}
	}
	for _, e := range ends {
		if joined[e.sock.LocalAddr()] != players[e.name] {
			t.Fatalf("%s: welcomed as %d, server seated %v", e.name, players[e.name], joined)
		}
	}
	both := fmt.Sprintf("players %d,%d", min(players["ada"], players["bob"]), max(players["ada"], players["bob"]))

	// Each client sees both players in the list.
	for _, e := range ends {
		var last string
		for last != both {
			select {
			case ev := <-e.events:
				if ev.Kind == transport.EventData {
					last = string(ev.Payload)
				}
			case <-ctx.Done():
				t.Fatalf("%s never saw %q (last %q)", e.name, both, last)
			}
		}
	}
	var info []transport.PlayerInfo
	srvLoop.call(ctx, t, func(now transport.Time) { info = srv.Players(nil, now) })
	t.Logf("server on %v: %d players after %v:", srvSock.LocalAddr(), len(info), time.Since(start))
	for _, p := range info {
		t.Logf("  player %d %q at %v: rtt %v loss %.3f in %d B out %d B", p.Player, p.Name, p.Addr, p.RTT, p.Loss, p.BytesIn, p.BytesOut)
	}

	// Both leave; the server sees each go.
	for _, e := range ends {
		e.l.call(ctx, t, func(now transport.Time) { e.c.Leave(now) })
	}
	var left []uint16
	for len(left) < 2 {
		select {
		case ev := <-srvEvents:
			if ev.Kind == transport.EventLeft {
				if ev.Reason != handshake.GoodbyeQuit {
					t.Fatalf("player %d left for %v", ev.Player, ev.Reason)
				}
				left = append(left, ev.Player)
			}
		case <-ctx.Done():
			t.Fatalf("leave: server saw %v go", left)
		}
	}
	srvLoop.call(ctx, t, func(now transport.Time) { info = srv.Players(nil, now) })
	slices.Sort(left)
	t.Logf("left: %v; players now %d; server drops %+v; socket %+v", left, len(info), srv.Stats().Drops, srvSock.Stats())
	if len(info) != 0 {
		t.Fatalf("players after both left: %+v", info)
	}

	cancel()
	for _, c := range []interface{ Close() error }{srvSock, ends[0].sock, ends[1].sock} {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	for range 3 {
		if err := <-serveErrs; err != nil {
			t.Errorf("Serve after Close: %v", err)
		}
	}
}

// Neither endpoint sends a datagram over transport.MaxDatagram, and the
// server drops, uncut, one that arrives larger.
func TestMaxDatagram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := udp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := udp.Dial(s.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := make([]byte, transport.MaxDatagram+1)
	if err := c.Write(big); !errors.Is(err, udp.ErrTooLarge) {
		t.Fatalf("client wrote %d bytes: %v", len(big), err)
	}
	if err := s.WriteTo(big, c.LocalAddr()); !errors.Is(err, udp.ErrTooLarge) {
		t.Fatalf("server wrote %d bytes: %v", len(big), err)
	}

	got := make(chan int, 4)
	go s.Serve(func(_ netip.AddrPort, b []byte) { got <- len(b) })
	raw, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(s.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Write(make([]byte, 1300))                  // dropped
	raw.Write(make([]byte, transport.MaxDatagram)) // the largest allowed
	select {
	case n := <-got:
		t.Logf("received %d bytes; socket %+v", n, s.Stats())
		if n != transport.MaxDatagram || s.Stats().Oversize != 1 {
			t.Fatalf("got %d bytes, stats %+v", n, s.Stats())
		}
	case <-ctx.Done():
		t.Fatal("nothing arrived")
	}
}
