package transport_test

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// A client joins over Broadband and the two exchange Data for three seconds.
func TestJoinOverBroadband(t *testing.T) {
	const seed = 0x10101
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	joinTime := s.now

	w, ok := p.c.Welcome()
	if !ok || w.Player != 1 || w.MaxPlayers != 4 || w.TickRate != 64 || p.c.Player() != 1 {
		t.Fatalf("welcome %+v (%v)", w, ok)
	}
	joined := s.serverEvents(transport.EventJoined)
	if len(joined) != 1 || joined[0].Player != 1 || joined[0].Name != "ada" || joined[0].Addr != p.addr {
		t.Fatalf("server joined events %+v", joined)
	}
	if s.admits != 1 || p.count(transport.EventWelcome) != 1 {
		t.Fatalf("admits %d, client welcomes %d", s.admits, p.count(transport.EventWelcome))
	}
	s.wantSeats(1)

	sentUp, sentDown := exchange(t, s, p, 3*time.Second)
	up, down := len(s.serverEvents(transport.EventData)), p.count(transport.EventData)
	info := s.srv.Players(nil, s.now)
	st := p.c.Stats()
	t.Logf("%v", s)
	t.Logf("joined at %v after %d hellos, %d challenges taken; data up %d/%d down %d/%d; player %+v; client %+v",
		time.Duration(joinTime), st.Hellos, st.Challenges, up, sentUp, down, sentDown, info, st)
	if len(info) != 1 || !info[0].Playing || info[0].RTT < 65*time.Millisecond || info[0].RTT > 100*time.Millisecond {
		t.Fatalf("player info %+v", info)
	}
	// 0.5 % loss and 0.1 % reordering, and the last 50 ms still in flight.
	if up < sentUp*97/100 || down < sentDown*97/100 {
		t.Fatalf("data delivered up %d of %d, down %d of %d", up, sentUp, down, sentDown)
	}
}

// exchange sends a Data each way every 1/64 s for d and returns how many
// went up (client to server) and down.
func exchange(t testing.TB, s *sim, p *peer, d time.Duration) (up, down int) {
	t.Helper()
	player := p.c.Player()
	s.tick(time.Second/64, func(now transport.Time) {
		if _, err := p.c.Send([]byte("command"), now); err == nil {
			up++
		}
		if _, err := s.srv.Send(player, []byte("snapshot"), now); err == nil {
			down++
		}
	})
	s.runFor(d)
	s.onEvery = nil
	return up, down
}

// Each refusal reaches the client as its sentence, the client stops saying
// Hello, and the server keeps nothing of the refused join.
func TestRefusalsReachTheClient(t *testing.T) {
	cases := []struct {
		name     string
		max      int
		decline  bool
		refuse   handshake.Refuse // what Admit refuses with when it declines
		hello    func(h *handshake.Hello)
		first    bool // a first client takes the only seat
		closed   bool // the server closed its joins once the first was seated
		reason   handshake.Reason
		sentence string
	}{
		{name: "full", max: 1, first: true, reason: handshake.ReasonFull,
			sentence: "The server is full (1 of 1 players)."},
		{name: "full and stopping", max: 1, first: true, closed: true, reason: handshake.ReasonShuttingDown,
			sentence: handshake.ReasonShuttingDown.Sentence()},
		{name: "declined", decline: true, reason: handshake.ReasonDeclined,
			sentence: handshake.ReasonDeclined.Sentence()},
		{name: "join handler failed", decline: true, refuse: handshake.Refuse{Reason: handshake.ReasonJoinFailed, Detail: "scripts/join.lua:3: boom"},
			reason: handshake.ReasonJoinFailed, sentence: "The server could not seat you: the game's join handler failed: scripts/join.lua:3: boom"},
		{name: "schema mismatch", hello: func(h *handshake.Hello) { h.SchemaFP ^= 1 }, reason: handshake.ReasonMismatch,
			sentence: handshake.ReasonMismatch.Sentence()},
		{name: "tick rate", hello: func(h *handshake.Hello) { h.TickRate = 128 }, reason: handshake.ReasonTickRate,
			sentence: "The server runs at 64 ticks a second and this game at 128; both must use the same tick rate."},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0x2000 + i)
			var serverLog, clientLog bytes.Buffer
			s := newSim(t, seed, transport.ServerConfig{
				MaxPlayers: tc.max,
				Admit:      func(uint16, string, bool) (handshake.Refuse, bool) { return tc.refuse, !tc.decline },
				Logger:     slog.New(slog.NewTextHandler(&serverLog, nil)),
			})
			if tc.first {
				s.addClient("first", memnet.Broadband, transport.ClientConfig{})
				s.join(3 * time.Second)
			}
			if tc.closed {
				s.srv.CloseJoins(handshake.Refuse{Reason: handshake.ReasonShuttingDown})
			}
			hello := clientHello("bob")
			if tc.hello != nil {
				tc.hello(&hello)
			}
			p := s.addClient("bob", memnet.Broadband, transport.ClientConfig{
				Hello: hello, Logger: slog.New(slog.NewTextHandler(&clientLog, nil)),
			})
			s.run(s.now.Add(3*time.Second), func() bool { return p.c.State() != transport.StateJoining })
			hellos := p.c.Stats().Hellos
			s.runFor(time.Second) // a refused client says nothing more

			ended, _ := p.ended()
			r, refused := p.c.Refusal()
			t.Logf("%v", s)
			t.Logf("client: %v %q after %d hellos; server log:\n%sclient log:\n%s",
				p.c.State(), p.c.LastError(), hellos, serverLog.String(), clientLog.String())
			if p.c.State() != transport.StateRefused || !refused || r.Reason != tc.reason {
				t.Fatalf("state %v, refusal %+v (%v)", p.c.State(), r, refused)
			}
			if p.c.LastError() != tc.sentence || ended.Sentence != tc.sentence || ended.State != transport.StateRefused {
				t.Fatalf("last error %q, event %+v, want %q", p.c.LastError(), ended, tc.sentence)
			}
			if p.c.Stats().Hellos != hellos {
				t.Fatalf("refused client kept saying Hello: %d, then %d", hellos, p.c.Stats().Hellos)
			}
			seated := 0
			if tc.first {
				seated = 1
			}
			s.wantSeats(seated)
			if want := seated; !tc.decline && s.admits != want {
				t.Fatalf("admits %d, want %d", s.admits, want)
			}
			if tc.decline && s.admits == 0 {
				t.Fatal("Admit never asked")
			}
			if st := s.srv.Stats(); st.Refusals[tc.reason] == 0 {
				t.Fatalf("no %v refusal counted: %v", tc.reason, st.Refusals)
			}
			// Mismatch and tick rate: the server logs one line with what
			// both ends hold, the client one with what it holds.
			if tc.reason == handshake.ReasonMismatch || tc.reason == handshake.ReasonTickRate {
				lines := strings.Split(strings.TrimSpace(serverLog.String()), "\n")
				want := []string{handshake.MismatchLine(serverHello), handshake.MismatchLine(hello)}
				if len(lines) != 1 || !strings.Contains(lines[0], want[0]) || !strings.Contains(lines[0], want[1]) {
					t.Fatalf("server log %q, want one line with %q", lines, want)
				}
				if !strings.Contains(clientLog.String(), handshake.MismatchLine(hello)) {
					t.Fatalf("client log %q lacks its own line", clientLog.String())
				}
			}
		})
	}
}

// A Hello at another protocol version gets Refuse(Version), no larger than
// it; anything else at another version is dropped unread; and a client that
// hears a Refuse at another version ends with the version sentence.
func TestVersionRefusal(t *testing.T) {
	const seed = 0x2100
	s := newSim(t, seed, transport.ServerConfig{})
	from := netip.MustParseAddrPort("192.0.2.1:5000")
	hello2 := handshake.Header{Version: handshake.Version + 1, Kind: handshake.KindHello}.Append(nil)
	hello2 = append(hello2, make([]byte, handshake.HelloSize-len(hello2))...)
	s.srv.Receive(from, hello2, 0)
	to, reply, ok := s.srv.NextDatagram()
	if !ok || to != from {
		t.Fatalf("no answer to a version %d Hello", handshake.Version+1)
	}
	h, body, v := handshake.Classify(reply)
	r, err := handshake.ParseRefuse(body)
	if v != handshake.VerdictRead || h.Kind != handshake.KindRefuse || err != nil ||
		r != handshake.VersionRefusal(handshake.Version, handshake.Version+1) || len(reply) > len(hello2) {
		t.Fatalf("answer %x: %v %+v %+v %v", reply, v, h, r, err)
	}
	// Another version's Data, and a Hello too short to answer, are dropped.
	data2 := handshake.Header{Version: handshake.Version + 1, Kind: handshake.KindData, Token: 9}.Append(nil)
	s.srv.Receive(from, append(data2, make([]byte, 40)...), 0)
	s.srv.Receive(from, hello2[:handshake.HeaderSize+4], 0)
	if _, _, ok := s.srv.NextDatagram(); ok {
		t.Fatal("answered a datagram at another version that is not a Hello")
	}
	if st := s.srv.Stats(); st.Unread != 2 || st.Refusals[handshake.ReasonVersion] != 1 {
		t.Fatalf("stats %+v", st)
	}

	// The client's half: a server at version 2 refuses its first Hello.
	p := s.addClient("old", memnet.Broadband, transport.ClientConfig{})
	p.cutUp = true // this sim's server is not the one answering
	s.run(at(10*time.Millisecond), nil)
	refuse2 := handshake.Header{Version: handshake.Version + 1, Kind: handshake.KindRefuse}.Append(nil)
	refuse2 = append(refuse2, byte(handshake.ReasonVersion), 0, 0, 0, 0, 0, 0, handshake.Version+1, handshake.Version)
	p.pipe.BtoA.Send(refuse2, s.now)
	s.run(at(time.Second), func() bool { return p.c.State() != transport.StateJoining })
	want := handshake.VersionRefusal(handshake.Version+1, handshake.Version).Sentence()
	t.Logf("seed %d: server answered %d bytes to a %d-byte Hello; client %v %q", seed, len(reply), len(hello2), p.c.State(), p.c.LastError())
	if p.c.State() != transport.StateRefused || p.c.LastError() != want {
		t.Fatalf("client %v %q, want refused %q", p.c.State(), p.c.LastError(), want)
	}
}

// Ten thousand Hellos from ten thousand forged addresses, with no token, a
// made-up one, or one valid for another address, leave no seat, no Admit
// call and no entry in any map, and each gets an answer no larger than
// itself. A real join afterwards is not crowded out.
func TestForgedHelloFlood(t *testing.T) {
	const seed = 0x3000
	const n = 10000
	var logBuf bytes.Buffer
	s := newSim(t, seed, transport.ServerConfig{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	rng := rand.New(rand.NewPCG(seed, 1))
	mismatched := serverHello
	mismatched.SchemaFP++
	var challenges, refusals, biggest int
	var before, after runtime.MemStats
	elsewhere := netip.MustParseAddrPort("198.51.100.1:27960")
	for i := range n {
		if i == 100 { // after the buffers reached their working size
			runtime.GC()
			runtime.ReadMemStats(&before)
		}
		now := at(time.Duration(i) * 100 * time.Microsecond) // 10,000 a second
		var ip [16]byte
		for j := range ip {
			ip[j] = byte(rng.Uint32())
		}
		addr := netip.AddrPortFrom(netip.AddrFrom16(ip).Unmap(), uint16(rng.Uint32()))
		if i%2 == 0 {
			addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte(ip[:4])), addr.Port())
		}
		var token uint64
		switch i % 3 {
		case 1:
			token = rng.Uint64()
		case 2:
			token = s.srv.GateToken(elsewhere, 0, now) // heard by someone else
		}
		hello := serverHello
		if i%10 == 9 {
			hello = mismatched
		}
		d := handshake.AppendDatagram(nil, token, hello)
		s.srv.Receive(addr, d, now)
		for {
			to, b, ok := s.srv.NextDatagram()
			if !ok {
				break
			}
			h, _, _ := handshake.Classify(b)
			switch {
			case to != addr || len(b) > len(d):
				t.Fatalf("answer of %d bytes to %v for a %d-byte Hello from %v", len(b), to, len(d), addr)
			case h.Kind == handshake.KindChallenge:
				challenges++
			case h.Kind == handshake.KindRefuse:
				refusals++
			default:
				t.Fatalf("answered a forged Hello with %v", h.Kind)
			}
			biggest = max(biggest, len(b))
		}
		if _, ok := s.srv.NextEvent(); ok {
			t.Fatal("a forged Hello made an event")
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	a, b, c := s.srv.StateSizes()
	outCap, evCap := s.srv.QueueCaps()
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	logLines := strings.Count(logBuf.String(), "\n")
	t.Logf("seed %d: %d forged Hellos: %d challenges, %d refusals, largest answer %d bytes; maps %d/%d/%d; admits %d; queue caps %d/%d; heap %+d bytes; %d log lines",
		seed, n, challenges, refusals, biggest, a, b, c, s.admits, outCap, evCap, growth, logLines)
	if a+b+c != 0 || s.admits != 0 || s.srv.PlayerCount() != 0 {
		t.Fatal("a forged Hello left state behind")
	}
	if challenges+refusals != n || refusals != n/10 {
		t.Fatalf("%d challenges and %d refusals for %d Hellos", challenges, refusals, n)
	}
	if outCap > 4096 || evCap > 4096 {
		t.Fatalf("queues grew to %d/%d", outCap, evCap)
	}
	if growth > 256<<10 {
		t.Fatalf("heap grew %d bytes over the flood", growth)
	}
	if logLines > 2 { // one a second at most; the flood lasts one second
		t.Fatalf("%d log lines for the flood:\n%s", logLines, logBuf.String())
	}

	// The flood crowded out nothing: a real client joins.
	s.now = at(time.Second)
	s.addClient("real", memnet.Broadband, transport.ClientConfig{})
	s.join(2 * time.Second)
	s.wantSeats(1)
}

// An echo of a token two windows old gets a fresh Challenge, not a seat, and
// the join then succeeds with the new token.
func TestExpiredEchoGetsFreshChallenge(t *testing.T) {
	const seed = 0x4000
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("slow", memnet.Broadband, transport.ClientConfig{Conn: transport.Config{Timeout: time.Minute}})
	type seen struct {
		at    transport.Time
		kind  handshake.Kind
		token uint64
	}
	var down []seen
	p.sniffDown = func(b []byte) {
		h, _, _ := handshake.Classify(b)
		down = append(down, seen{s.now, h.Kind, h.Token})
	}
	// The client hears its first Challenge; then its Hellos are lost until
	// the token's window and the next have passed.
	s.run(at(time.Second), func() bool { return p.c.Stats().Challenges > 0 })
	first := down[0].token
	p.cutUp = true
	s.run(at(20*time.Second+500*time.Millisecond), nil)
	p.cutUp = false
	lost := p.c.Stats().Hellos
	s.join(2 * time.Second)

	var after []seen
	for _, d := range down {
		if d.at >= at(20*time.Second) {
			after = append(after, d)
		}
	}
	t.Logf("%v", s)
	t.Logf("first token %#x (window 0); %d hellos before the link came back; after it: %+v", first, lost, after[:min(len(after), 3)])
	if len(after) < 2 || after[0].kind != handshake.KindChallenge || after[0].token == first ||
		after[0].token != s.srv.GateToken(p.addr, p.c.AttemptNonce(), after[0].at) {
		t.Fatalf("the stale echo was answered with %+v, want a fresh Challenge", after)
	}
	if s.srv.SeatToken(1) != after[0].token || s.admits != 1 {
		t.Fatalf("seat token %#x, admits %d", s.srv.SeatToken(1), s.admits)
	}
	exchange(t, s, p, time.Second)
	if len(s.serverEvents(transport.EventData)) < 60 {
		t.Fatalf("only %d Data after the join", len(s.serverEvents(transport.EventData)))
	}
}

// A client whose Hellos straddle a window turn is told two tokens: it is
// seated under the first, holds the second and drops the Welcome carrying
// the first; its next Hello echoes the second, which the seat adopts, and
// the session plays.
func TestTwoTokensAcrossWindowTurn(t *testing.T) {
	const seed = 0x5000
	s := newSim(t, seed, transport.ServerConfig{})
	fixed := memnet.LinkConfig{Latency: 40 * time.Millisecond}
	s.now = at(9950 * time.Millisecond) // the cookie window turns at 10 s
	p := s.addClient("edge", memnet.Profile{Name: "fixed40", Up: fixed, Down: fixed}, transport.ClientConfig{})
	challenges := map[uint64]bool{}
	var welcomes []uint64
	p.sniffDown = func(b []byte) {
		h, _, _ := handshake.Classify(b)
		switch h.Kind {
		case handshake.KindChallenge:
			challenges[h.Token] = true
		case handshake.KindWelcome:
			welcomes = append(welcomes, h.Token)
		}
	}
	s.join(2 * time.Second)
	st := p.c.Stats()
	t.Logf("%v", s)
	t.Logf("playing at %v: %d distinct challenge tokens, welcomes under %x, client dropped %d for a token, seat token %#x",
		time.Duration(s.now), len(challenges), welcomes, st.BadToken, s.srv.SeatToken(1))
	if len(challenges) != 2 || st.BadToken == 0 || len(welcomes) < 2 || welcomes[0] == welcomes[len(welcomes)-1] {
		t.Fatalf("the window turn was not exercised: %d tokens, welcomes %x, client %+v", len(challenges), welcomes, st)
	}
	if s.admits != 1 || s.srv.Stats().Joins != 1 {
		t.Fatalf("admits %d joins %d, want one seat", s.admits, s.srv.Stats().Joins)
	}
	up, down := exchange(t, s, p, time.Second)
	gotUp, gotDown := len(s.serverEvents(transport.EventData)), p.count(transport.EventData)
	t.Logf("data up %d/%d down %d/%d; server drops %+v", gotUp, up, gotDown, down, s.srv.Stats().Drops)
	if s.srv.Stats().BadToken != 0 || gotUp < up-3 || gotDown < down-3 {
		t.Fatal("the session did not play")
	}
}

// A seated client that says Hello again with its token is welcomed again,
// under the same number, and the game is not asked twice.
func TestRepeatedHelloGetsWelcomeAgain(t *testing.T) {
	const seed = 0x6000
	s := newSim(t, seed, transport.ServerConfig{})
	from := netip.MustParseAddrPort("192.0.2.9:7000")
	first := handshake.AppendDatagram(nil, 0, clientHello("rep"))
	s.srv.Receive(from, first, 0)
	_, ch, _ := s.srv.NextDatagram()
	h, _, _ := handshake.Classify(ch)
	s.wantSeats(0)
	echo := handshake.AppendDatagram(nil, h.Token, clientHello("rep"))
	var players []uint16
	for i := range 3 {
		s.srv.Receive(from, echo, at(time.Duration(i)*20*time.Millisecond))
		_, b, ok := s.srv.NextDatagram()
		wh, body, _ := handshake.Classify(b)
		w, err := handshake.ParseWelcome(body)
		if !ok || wh.Kind != handshake.KindWelcome || err != nil || wh.Token != h.Token || len(b) > len(echo) {
			t.Fatalf("echo %d answered with %x", i, b)
		}
		players = append(players, w.Player)
	}
	t.Logf("seed %d: three echoes welcomed as players %v; admits %d; %v", seed, players, s.admits, s)
	if players[0] != 1 || players[1] != 1 || players[2] != 1 || s.admits != 1 {
		t.Fatalf("players %v, admits %d", players, s.admits)
	}
	s.wantSeats(1)
}

// Player numbers wrap after 65535, skipping 0 and the numbers still seated;
// each join gets a Conn of its own.
func TestPlayerNumbersWrapOnServer(t *testing.T) {
	if testing.Short() {
		t.Skip("65,535 joins")
	}
	const seed = 0x7000
	s := newSim(t, seed, transport.ServerConfig{MaxPlayers: 3, Logger: slog.New(slog.DiscardHandler), HelloRate: -1})
	now := at(time.Second)
	first := handshake.AppendDatagram(nil, 0, clientHello(""))
	join := func(from netip.AddrPort) uint16 {
		s.srv.Receive(from, first, now) // a fresh client starts without a token
		s.srv.NextDatagram()
		echo := handshake.AppendDatagram(nil, s.srv.GateToken(from, 0, now), clientHello(""))
		s.srv.Receive(from, echo, now)
		_, b, _ := s.srv.NextDatagram()
		_, body, _ := handshake.Classify(b)
		w, err := handshake.ParseWelcome(body)
		if err != nil {
			t.Fatalf("join from %v: %x", from, b)
		}
		return w.Player
	}
	a := join(netip.MustParseAddrPort("192.0.2.1:1"))
	b := join(netip.MustParseAddrPort("192.0.2.2:1"))
	cycler := netip.MustParseAddrPort("192.0.2.3:1")
	bye := handshake.AppendDatagram(nil, s.srv.GateToken(cycler, 0, now), handshake.Goodbye{Reason: handshake.GoodbyeQuit})
	var last uint16
	var prevConn *transport.Conn
	var got []uint16
	for i := range 65535 - 2 + 2 {
		last = join(cycler)
		c := s.srv.Conn(last)
		if c == nil || c == prevConn || c.Stats().PacketsSent != 0 {
			t.Fatalf("join %d: conn %p reused or not fresh", i, c)
		}
		prevConn = c
		if i >= 65531 {
			got = append(got, last)
		}
		s.srv.Receive(cycler, bye, now)
		for _, _, ok := s.srv.NextDatagram(); ok; _, _, ok = s.srv.NextDatagram() {
		}
		for _, ok := s.srv.NextEvent(); ok; _, ok = s.srv.NextEvent() {
		}
	}
	t.Logf("seed %d: seated %d and %d, then %d joins and leaves; the last four got %v; %v", seed, a, b, 65535, got, s)
	if a != 1 || b != 2 || len(got) != 4 || got[0] != 65534 || got[1] != 65535 || got[2] != 3 || got[3] != 4 {
		t.Fatalf("numbers %d, %d, then %v; want 1, 2, then [65534 65535 3 4]", a, b, got)
	}
	s.wantSeats(2)
}

// A Hello its player sent before leaving, arriving after its Goodbye, seats
// nobody and asks the game nothing; a new client on the same address:port
// still joins.
func TestStaleHelloAfterLeaveSeatsNobody(t *testing.T) {
	const seed = 0x6100
	s := newSim(t, seed, transport.ServerConfig{})
	from := netip.MustParseAddrPort("192.0.2.10:7000")
	now := at(time.Second)
	token := s.srv.GateToken(from, 0, now)
	welcomed := func() uint16 {
		t.Helper()
		_, b, ok := s.srv.NextDatagram()
		h, body, _ := handshake.Classify(b)
		w, err := handshake.ParseWelcome(body)
		if !ok || h.Kind != handshake.KindWelcome || err != nil {
			t.Fatalf("want a Welcome, got %x", b)
		}
		return w.Player
	}
	echo := handshake.AppendDatagram(nil, token, clientHello("gone"))
	s.srv.Receive(from, echo, now)
	first := welcomed()
	s.srv.Receive(from, handshake.AppendDatagram(nil, token, handshake.Goodbye{Reason: handshake.GoodbyeQuit}), now)
	s.srv.NextDatagram()
	s.srv.Receive(from, echo, now.Add(50*time.Millisecond)) // delayed behind the Goodbye
	if _, b, ok := s.srv.NextDatagram(); ok {
		t.Fatalf("a departed player's Hello was answered: %x", b)
	}
	s.wantSeats(0)
	retired, admits := s.srv.Stats().Retired, s.admits

	s.srv.Receive(from, handshake.AppendDatagram(nil, 0, clientHello("new")), now.Add(time.Second))
	_, ch, _ := s.srv.NextDatagram()
	h, _, _ := handshake.Classify(ch)
	s.srv.Receive(from, handshake.AppendDatagram(nil, h.Token, clientHello("new")), now.Add(time.Second))
	second := welcomed()
	t.Logf("seed %d: player %d left; its late Hello dropped (retired %d, admits %d); a new client on %v got the same token back (%v) and player %d",
		seed, first, retired, admits, from, h.Token == token, second)
	if retired != 1 || admits != 1 || second != 2 || s.admits != 2 {
		t.Fatalf("retired %d admits %d/%d second %d", retired, admits, s.admits, second)
	}
}

// A seat whose Welcome never arrived times out after the connection
// timeout; the client, still saying Hello with its token, is then seated
// afresh (a timeout does not retire the token, a Goodbye does).
func TestUnconfirmedSeatTimesOutAndRejoins(t *testing.T) {
	const seed = 0x6200
	s := newSim(t, seed, transport.ServerConfig{})
	from := netip.MustParseAddrPort("192.0.2.11:7000")
	start := at(2 * time.Second)
	echo := handshake.AppendDatagram(nil, s.srv.GateToken(from, 0, start), clientHello("unlucky"))
	s.srv.Receive(from, echo, start)
	s.flushServer()
	deadline, ok := s.srv.NextDeadline()
	s.srv.Poll(deadline)
	s.flushServer()
	left := s.serverEvents(transport.EventLeft)
	s.srv.Receive(from, echo, deadline.Add(20*time.Millisecond)) // the token is a window old, still good
	s.flushServer()
	joined := s.serverEvents(transport.EventJoined)
	t.Logf("seed %d: seated at %v, deadline %v (%v), left %+v, seated again as %+v; %v",
		seed, time.Duration(start), time.Duration(deadline), ok, left, joined, s)
	if !ok || deadline != start.Add(transport.DefaultTimeout) || len(left) != 1 || left[0].Reason != handshake.GoodbyeTimeout {
		t.Fatalf("timeout: deadline %v, left %+v", time.Duration(deadline), left)
	}
	if len(joined) != 2 || joined[1].Player != 2 || s.srv.Stats().Retired != 0 {
		t.Fatalf("not seated again: %+v", joined)
	}
}

// A client restarted on the same address:port within its token's window
// echoes the same token, but its Hello comes from a new process: it must
// not inherit the playing seat (its connection, number and baseline).
func TestARestartedClientDoesNotInheritAPlayingSeat(t *testing.T) {
	const seed = 0x7001
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Perfect, transport.ClientConfig{})
	s.join(time.Second)
	exchange(t, s, p, 200*time.Millisecond) // the seat plays
	before := s.srv.Stats().Welcomes
	s.srv.Receive(p.addr, handshake.AppendDatagram(nil, 0, clientHello("ada")), s.now)
	_, ch, _ := s.srv.NextDatagram()
	h, _, _ := handshake.Classify(ch)
	s.srv.Receive(p.addr, handshake.AppendDatagram(nil, h.Token, clientHello("ada")), s.now)
	if got := s.srv.Stats().Welcomes; got != before {
		t.Fatalf("a restarted client's Hello was welcomed into the playing seat (%d welcomes, was %d)", got, before)
	}
	t.Logf("seed %d: %v", seed, s)
	s.wantSeats(1)
}

// AppendPlaying lists, in player order after what dst held, the seated
// players whose Data has been accepted: none right after the join, then
// exactly those Players reports playing.
func TestAppendPlaying(t *testing.T) {
	s := newSim(t, 0x5eed, transport.ServerConfig{})
	peers := []*peer{
		s.addClient("ada", memnet.Perfect, transport.ClientConfig{}),
		s.addClient("bob", memnet.Perfect, transport.ClientConfig{}),
		s.addClient("cy", memnet.Perfect, transport.ClientConfig{}),
	}
	s.join(3 * time.Second)
	s.wantSeats(3)
	if got := s.srv.AppendPlaying(nil); len(got) != 0 {
		t.Fatalf("before any Data: playing %v", got)
	}
	exchange(t, s, peers[2], time.Second/4)
	got := s.srv.AppendPlaying([]uint16{99})
	want := []uint16{99}
	for _, p := range s.srv.Players(nil, s.now) {
		if p.Playing {
			want = append(want, p.Player)
		}
	}
	if !slices.Equal(got, want) || len(want) < 2 || !slices.IsSorted(got[1:]) {
		t.Fatalf("AppendPlaying %v; Players says %v", got, want)
	}
}
