package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/token"
)

// mitm is a man in the middle on real UDP: the client sends to its front
// socket, it forwards to the server from its back socket, and it sees
// everything. It forges a Refuse (unsealed, with the Hello's cookie and
// nonce) for every Hello the client sends, drops everything while blip is
// set, and (replay) sends the newest Hello it saw carrying the connect
// token to the server from a third socket of its own, at 400 a second,
// echoing each Challenge that socket is sent.
type mitm struct {
	front, back, third *net.UDPConn
	server             *net.UDPAddr
	blip               atomic.Bool

	mu      sync.Mutex
	client  *net.UDPAddr
	sniffed []byte // the newest Hello with a connect token
	cookie  uint64 // the newest cookie the third socket was handed
	forged  int
	replays int
	chals   int
	// played is closed once 64 Data datagrams went to the client: the
	// server sends Data only to a seat whose own Data it has accepted.
	played   chan struct{}
	dataDown int
}

func newMITM(t *testing.T, front *net.UDPConn, server string) *mitm {
	t.Helper()
	listen := func(ip byte) *net.UDPConn {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, ip)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	sa, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Close() })
	// The third socket has an address of its own (127.0.0.2), as an
	// attacker elsewhere would: on one IP it would share the client's
	// Hello rate limit, which is not what is under test here.
	m := &mitm{front: front, back: listen(1), third: listen(2), server: sa, played: make(chan struct{})}
	go m.up()
	go m.down()
	go m.thirdReads()
	return m
}

// up carries the client's datagrams to the server, forging a Refuse for
// each Hello.
func (m *mitm) up() {
	buf := make([]byte, 2048)
	for {
		n, from, err := m.front.ReadFromUDP(buf)
		if err != nil {
			return
		}
		d := buf[:n]
		m.mu.Lock()
		m.client = from
		if len(d) == handshake.HelloSize && handshake.Kind(d[3]) == handshake.KindHello {
			if d[39]&2 != 0 {
				m.sniffed = bytes.Clone(d)
			}
			r := handshake.Refuse{Reason: handshake.ReasonShuttingDown, Nonce: binary.LittleEndian.Uint64(d[40:48])}
			m.front.WriteToUDP(handshake.AppendDatagram(nil, binary.LittleEndian.Uint64(d[4:12]), r), from)
			m.forged++
		}
		m.mu.Unlock()
		if !m.blip.Load() {
			m.back.WriteToUDP(d, m.server)
		}
	}
}

// down carries the server's datagrams to the client.
func (m *mitm) down() {
	buf := make([]byte, 2048)
	for {
		n, _, err := m.back.ReadFromUDP(buf)
		if err != nil {
			return
		}
		m.mu.Lock()
		to := m.client
		if handshake.Kind(buf[3]) == handshake.KindData && n >= handshake.HeaderSize {
			if m.dataDown++; m.dataDown == 64 {
				close(m.played)
			}
		}
		m.mu.Unlock()
		if to != nil && !m.blip.Load() {
			m.front.WriteToUDP(buf[:n], to)
		}
	}
}

// thirdReads takes the cookies the server hands the third socket.
func (m *mitm) thirdReads() {
	buf := make([]byte, 2048)
	for {
		n, _, err := m.third.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if h, _, v := handshake.Classify(buf[:n]); v == handshake.VerdictRead && h.Kind == handshake.KindChallenge {
			m.mu.Lock()
			m.cookie, m.chals = h.Token, m.chals+1
			m.mu.Unlock()
		}
	}
}

// replay sends the sniffed Hello from the third socket until ctx ends:
// as it was, and echoing the newest cookie the third socket was handed.
//
// It keeps to replayRate however seldom it is woken: a busy machine runs
// it late, and it then sends the replays that were due since.
func (m *mitm) replay(ctx context.Context) {
	tick := time.NewTicker(time.Second / replayRate)
	defer tick.Stop()
	start := time.Now()
	for i := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for due := int(time.Since(start) * replayRate / time.Second); i < due; i++ {
			m.mu.Lock()
			d := bytes.Clone(m.sniffed)
			if m.cookie != 0 && i%2 == 1 {
				binary.LittleEndian.PutUint64(d[4:12], m.cookie)
			}
			m.replays++
			m.mu.Unlock()
			m.third.WriteToUDP(d, m.server)
		}
	}
}

// replayRate is the replays a second the man in the middle sends.
const replayRate = 400

// rejoinLog records the addresses of the server's "player rejoined" lines.
type rejoinLog struct {
	slog.Handler
	mu    *sync.Mutex
	addrs *[]string
}

// Enabled takes every record: the rejoin lines are at Info, below what the
// test prints.
func (h rejoinLog) Enabled(context.Context, slog.Level) bool { return true }

func (h rejoinLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "player rejoined" && r.Level == slog.LevelInfo { // the session's line, not the transport's Debug
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "addr" {
				h.mu.Lock()
				*h.addrs = append(*h.addrs, a.Value.String())
				h.mu.Unlock()
			}
			return true
		})
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h rejoinLog) WithAttrs(as []slog.Attr) slog.Handler {
	return rejoinLog{h.Handler.WithAttrs(as), h.mu, h.addrs}
}

// minReplays is how many Hellos the man in the middle must have replayed
// for the attack to count as run: a second of its rate.
const minReplays = replayRate

// Over real UDP, a man in the middle forges a Refuse for every Hello the
// client sends, cuts the link for 2.5 s once it plays, and meanwhile
// replays the client's Hello with its connect token from another address
// at 400 a second: the join and the resume both go through, the held seat
// never moves to the attacker's address, and the client takes it back
// from its own, once.
func TestAManInTheMiddleCannotEndAJoinOrTakeASeat(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of real sockets on the wall clock: runs without -short")
	}
	key, err := token.NewKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The server must know the address tokens name before it starts: the
	// middle's front socket, which the client sends to.
	front, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	frontAddr := front.LocalAddr().(*net.UDPAddr).AddrPort()
	var mu sync.Mutex
	var rejoins []string
	log := slog.New(rejoinLog{slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}), &mu, &rejoins})
	addr, stop := servedWith(t, nil, ServeConfig{Project: loadArena(t), Key: &key, Public: []netip.AddrPort{frontAddr}, Logger: log})
	m := newMITM(t, front, addr)

	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	states := make(chan string, 16)
	done := make(chan ClientReport, 1)
	go func() {
		rep, err := Play(ctx, PlayConfig{
			Project: loadArena(t), Connect: frontAddr.String(), Key: &key, ClientID: 7, Name: "victim",
			OnState: func(state, why string) { states <- state },
		})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitState := func(want string) {
		t.Helper()
		for {
			select {
			case s := <-states:
				if s == want {
					return
				}
				if s != "joining" && s != "playing" {
					rep := <-done
					t.Fatalf("client went %s: %q %q", s, rep.Refusal, rep.LastError)
				}
			case rep := <-done:
				t.Fatalf("client ended: %s %q %q", rep.Exit, rep.Refusal, rep.LastError)
			case <-ctx.Done():
				t.Fatal("timed out")
			}
		}
	}
	waitState("playing")
	select {
	case <-m.played:
	case <-ctx.Done():
		t.Fatal("no snapshots reached the client")
	}
	t.Log("playing; the link blips")
	m.blip.Store(true)
	attack, stopAttack := context.WithCancel(ctx)
	go m.replay(attack)
	// The blip is the scenario, not a wait for something to happen: the
	// seat is held after 1 s of silence, and the attack runs through it,
	// for at least minReplays (a busy machine runs the replaying goroutine
	// less often than its ticker asks).
	time.Sleep(2500 * time.Millisecond)
	for replays := 0; replays < minReplays; {
		select {
		case <-ctx.Done():
			t.Fatalf("the attack replayed %d Hellos, want %d", replays, minReplays)
		case <-time.After(10 * time.Millisecond): // polling the attack's goroutine
		}
		m.mu.Lock()
		replays = m.replays
		m.mu.Unlock()
	}
	m.blip.Store(false)
	waitState("joining") // resuming
	waitState("playing") // the seat taken back
	stopAttack()
	cancel()
	rep := <-done
	srep := stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	backAddr := m.back.LocalAddr().String()
	t.Logf("forged refusals %d; replays %d from %v, %d Challenges to it; rejoins from %v (the middle's back socket is %v); client %s %q; server joins %d",
		m.forged, m.replays, m.third.LocalAddr(), m.chals, rejoins, backAddr, rep.Exit, rep.LastError, srep.Joins)
	if m.forged == 0 || m.replays < minReplays || m.chals == 0 {
		t.Fatalf("the attack did not run: %d forged, %d replays, %d Challenges", m.forged, m.replays, m.chals)
	}
	if len(rejoins) != 1 || rejoins[0] != backAddr {
		t.Fatalf("rejoins from %v, want one from %v", rejoins, backAddr)
	}
	if rep.Exit != "ok" || srep.Joins != 1 {
		t.Fatalf("client exit %s %q, server joins %d", rep.Exit, rep.LastError, srep.Joins)
	}
}
