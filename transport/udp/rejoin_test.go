package udp_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/token"
	"vkm/transport/udp"
)

// On 127.0.0.1, with a key: a client plays, its socket is replaced by one
// on another port (a phone changing networks), it resumes with its token
// and takes back the same player number from the new address. One
// goroutine drives both ends; the sockets' read loops only hand datagrams
// over.
func TestRejoinFromANewSocket(t *testing.T) {
	var wg sync.WaitGroup
	defer wg.Wait() // last: after the sockets closed, their read loops end
	srvSock, err := udp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srvSock.Close()
	key := token.Key{0: 'u', 31: 1}
	epoch := time.Now()
	start := time.Now()
	clock := func() transport.Time { return transport.Time(time.Since(start)) }
	srv, err := transport.NewServer(transport.ServerConfig{
		Hello: hello, MaxPlayers: 2, RejoinWindow: 10 * time.Second,
		Auth: &transport.Auth{Key: key, Addrs: []netip.AddrPort{srvSock.LocalAddr()}, Protocol: token.ProtocolID("udp"), Epoch: epoch},
	})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := token.Mint(&key, token.Claims{Protocol: token.ProtocolID("udp"), Client: 3, Expires: epoch.Add(time.Hour),
		Servers: []netip.AddrPort{srvSock.LocalAddr()}}, epoch, rand.NewChaCha8([32]byte{1}))
	if err != nil {
		t.Fatal(err)
	}
	toSrv := make(chan packet, 1024)
	toCli := make(chan []byte, 1024)
	wg.Go(func() {
		_ = srvSock.Serve(func(from netip.AddrPort, b []byte) {
			select {
			case toSrv <- packet{from, bytes.Clone(b)}:
			default: // the test has stopped reading
			}
		})
	})
	dial := func() *udp.Client {
		sock, err := udp.Dial(srvSock.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			_ = sock.Serve(func(b []byte) {
				select {
				case toCli <- bytes.Clone(b):
				default: // the test has stopped reading
				}
			})
		})
		return sock
	}
	sock := dial()
	defer func() { sock.Close() }()
	c := transport.NewClient(transport.ClientConfig{Hello: hello, Token: &tok}, clock())
	flush := func() {
		for to, b, ok := srv.NextDatagram(); ok; to, b, ok = srv.NextDatagram() {
			_ = srvSock.WriteTo(b, to)
		}
		for b, ok := c.NextDatagram(); ok; b, ok = c.NextDatagram() {
			_ = sock.Write(b)
		}
		for _, ok := srv.NextEvent(); ok; _, ok = srv.NextEvent() {
		}
		for _, ok := c.NextEvent(); ok; _, ok = c.NextEvent() {
		}
	}
	// drive runs both ends until done or 5 s of wall time.
	drive := func(what string, done func() bool) {
		t.Helper()
		tick := time.NewTicker(4 * time.Millisecond)
		defer tick.Stop()
		limit := time.After(5 * time.Second)
		for !done() {
			select {
			case p := <-toSrv:
				srv.Receive(p.from, p.b, clock())
			case b := <-toCli:
				c.Receive(b, clock())
			case <-tick.C:
				now := clock()
				srv.Poll(now)
				flush()
				c.Poll(now)
				if c.State() == transport.StatePlaying {
					_, _ = c.Send([]byte("command"), now)
				}
				for _, p := range srv.AppendPlaying(nil) {
					_, _ = srv.Send(p, []byte("snapshot"), now)
				}
			case <-limit:
				t.Fatalf("%s did not happen within 5 s: client %v %q %+v; server %+v", what, c.State(), c.LastError(), c.Stats(), srv.Stats())
			}
			flush()
		}
	}
	drive("the join", func() bool { return c.State() == transport.StatePlaying && len(srv.AppendPlaying(nil)) == 1 })
	player, oldAddr := c.Player(), sock.LocalAddr()

	sock.Close()
	sock = dial()
	runtime.Gosched()
	moved := clock()
	c.Resume(moved, nil)
	flush()
	drive("the rejoin", func() bool { return srv.Stats().Rejoins == 1 && c.State() == transport.StatePlaying })
	playing := clock()
	drive("data from the new socket", func() bool { return len(srv.AppendPlaying(nil)) == 1 })
	var info []transport.PlayerInfo
	info = srv.Players(info, clock())
	t.Logf("player %d moved from %v to %v: playing again %v after Resume (the server held the seat after %v of silence); server %+v; receive buffer %d bytes",
		player, oldAddr, sock.LocalAddr(), time.Duration(playing-moved), transport.HoldAfter, srv.Stats(), srvSock.ReceiveBufferGot())
	if c.Player() != player || len(info) != 1 || info[0].Addr != sock.LocalAddr() || srv.Stats().Joins != 1 {
		t.Fatalf("player %d (was %d), seats %+v", c.Player(), player, info)
	}
	if runtime.GOOS == "linux" && srvSock.ReceiveBufferGot() <= 212992*2 && srvSock.ReceiveBufferGot() < 2*udp.ReceiveBuffer {
		t.Logf("the kernel capped the receive buffer at %d bytes (net.core.rmem_max)", srvSock.ReceiveBufferGot())
	}
}
