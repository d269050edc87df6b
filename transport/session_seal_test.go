package transport_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
	"vkm/transport/seal"
	"vkm/transport/token"
)

// The sealed tests' world: the key the backend and server share, the
// address the server is reached at, its game's protocol id, and the wall
// clock at the sim's time 0.
var (
	sealKey      = token.Key{0: 's', 1: 'e', 2: 'a', 3: 'l', 31: 1}
	sealAddr     = netip.MustParseAddrPort("192.0.2.1:27960")
	sealProtocol = token.ProtocolID("arena")
	sealEpoch    = time.Unix(1_900_000_000, 0).UTC()
)

// sealAuth returns the Auth of the sealed tests' server.
func sealAuth() *transport.Auth {
	return &transport.Auth{Key: sealKey, Addrs: []netip.AddrPort{sealAddr}, Protocol: sealProtocol, Epoch: sealEpoch}
}

// sealSim returns a sim whose server holds the key (cfg.Auth is set).
func sealSim(t *testing.T, seed uint64, cfg transport.ServerConfig) *sim {
	t.Helper()
	cfg.Auth = sealAuth()
	return newSim(t, seed, cfg)
}

// mintToken mints a token for client id, valid an hour from the epoch,
// with claims changed by edit (nil: none), under key, its randomness drawn
// from seed.
func mintToken(t testing.TB, key token.Key, client uint64, name string, seed uint64, edit func(*token.Claims)) *token.Token {
	t.Helper()
	c := token.Claims{
		Protocol: sealProtocol, Client: client, Name: name,
		Expires: sealEpoch.Add(time.Hour), Servers: []netip.AddrPort{sealAddr},
	}
	if edit != nil {
		edit(&c)
	}
	var k [32]byte
	k[0], k[1], k[2] = byte(seed), byte(seed>>8), byte(client)
	tok, err := token.Mint(&key, c, sealEpoch, rand.NewChaCha8(k))
	if err != nil {
		t.Fatal(err)
	}
	return &tok
}

// A client with a token joins a server with the key, under the token's
// name, and plays: every datagram after the Welcome is sealed, seal.Overhead
// bytes longer than its unsealed twin, and none fails to open.
func TestSealedJoinAndPlay(t *testing.T) {
	const seed = 0x5000
	s := sealSim(t, seed, transport.ServerConfig{})
	p := s.addClient("typed", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	var welcome, data int
	p.sniffDown = func(b []byte) {
		h, _, _ := handshake.Classify(b)
		switch h.Kind {
		case handshake.KindWelcome:
			welcome = len(b)
		case handshake.KindData:
			data = len(b)
		}
	}
	s.join(3 * time.Second)
	joinedEv := s.serverEvents(transport.EventJoined)
	if len(joinedEv) != 1 || joinedEv[0].Name != "ada" {
		t.Fatalf("joined %+v: want the token's name", joinedEv)
	}
	up, down := exchange(t, s, p, 3*time.Second)
	gotUp, gotDown := len(s.serverEvents(transport.EventData)), p.count(transport.EventData)
	st, cst := s.srv.Stats(), p.c.Stats()
	t.Logf("%v", s)
	t.Logf("data up %d/%d down %d/%d; sealed Welcome %d bytes, sealed Data of %q %d bytes; client %+v",
		gotUp, up, gotDown, down, welcome, "snapshot", data, cst)
	if welcome != handshake.HeaderSize+handshake.WelcomeSize+seal.Overhead {
		t.Fatalf("sealed Welcome of %d bytes", welcome)
	}
	if data != handshake.HeaderSize+seal.Overhead+transport.HeaderLen+len("snapshot") {
		t.Fatalf("sealed Data of %d bytes", data)
	}
	if gotUp < up*97/100 || gotDown < down*97/100 {
		t.Fatal("data lost beyond the link's loss")
	}
	if st.Forged+st.Replayed+cst.Forged+cst.Replayed != 0 {
		t.Fatalf("genuine datagrams refused: server %+v client %+v", st.Drops, cst.Drops)
	}
}

// A join whose token is missing, forged, expired, for another address or
// for another game gets no seat, and the client is told which.
func TestTokenRefusals(t *testing.T) {
	cases := []struct {
		name   string
		tok    func(t *testing.T) *token.Token
		reason handshake.Reason
	}{
		{"no token", func(*testing.T) *token.Token { return nil }, handshake.ReasonNoToken},
		{"another key", func(t *testing.T) *token.Token { return mintToken(t, token.Key{1}, 1, "", 1, nil) }, handshake.ReasonBadToken},
		{"altered", func(t *testing.T) *token.Token {
			tok := mintToken(t, sealKey, 1, "", 1, nil)
			tok.Sealed[token.SealedSize-20] ^= 1
			return tok
		}, handshake.ReasonBadToken},
		{"another game", func(t *testing.T) *token.Token {
			return mintToken(t, sealKey, 1, "", 1, func(c *token.Claims) { c.Protocol = token.ProtocolID("other") })
		}, handshake.ReasonBadToken},
		{"expired", func(t *testing.T) *token.Token {
			return mintToken(t, sealKey, 1, "", 1, func(c *token.Claims) { c.Expires = sealEpoch.Add(time.Second) })
		}, handshake.ReasonTokenExpired},
		{"another server", func(t *testing.T) *token.Token {
			return mintToken(t, sealKey, 1, "", 1, func(c *token.Claims) {
				c.Servers = []netip.AddrPort{netip.MustParseAddrPort("192.0.2.2:27960")}
			})
		}, handshake.ReasonWrongServer},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0x5100 + i)
			s := sealSim(t, seed, transport.ServerConfig{})
			s.now = at(2 * time.Second) // past the "expired" token's expiry
			p := s.addClient("bob", memnet.Broadband, transport.ClientConfig{Token: tc.tok(t)})
			// A refusal the server cannot seal (it could not open the
			// token) is advice to a client with a token: the join ends
			// with it at its deadline, 10 s after it began.
			s.run(s.now.Add(11*time.Second), func() bool { return p.c.State() != transport.StateJoining })
			r, refused := p.c.Refusal()
			t.Logf("%v", s)
			t.Logf("client %v: %q", p.c.State(), p.c.LastError())
			if !refused || r.Reason != tc.reason || p.c.LastError() != r.Sentence() {
				t.Fatalf("refusal %+v (%v), want %v", r, refused, tc.reason)
			}
			s.wantSeats(0)
			if s.admits != 0 || s.srv.Stats().Refusals[tc.reason] == 0 {
				t.Fatalf("admits %d, refusals %v", s.admits, s.srv.Stats().Refusals)
			}
		})
	}
}

// A token admits one join: the same token from a second address is
// refused as used, while its first player is seated and after it left; a
// fresh token for a client id already seated elsewhere is refused too. The
// first player's repeated Hellos, sent before its Welcome arrived, are the
// same join, not a replay.
func TestTokenAdmitsOneJoin(t *testing.T) {
	const seed = 0x5200
	s := sealSim(t, seed, transport.ServerConfig{})
	tok := mintToken(t, sealKey, 7, "ada", seed, nil)
	a := s.addClient("a", memnet.Broadband, transport.ClientConfig{Token: tok})
	// The first Welcomes are lost: the client says Hello with its token
	// again and is welcomed again.
	a.dropDown = dropWelcomes
	if !s.run(s.now.Add(time.Second), func() bool { return s.srv.PlayerCount() == 1 }) {
		t.Fatal("not seated")
	}
	s.runFor(200 * time.Millisecond)
	a.dropDown = nil
	s.join(3 * time.Second)
	st := s.srv.Stats()
	if st.Joins != 1 || st.Welcomes < 2 || st.Refusals[handshake.ReasonTokenUsed] != 0 {
		t.Fatalf("repeated Hello: joins %d welcomes %d refusals %v", st.Joins, st.Welcomes, st.Refusals)
	}

	refusedWith := func(name string, tok *token.Token) handshake.Reason {
		t.Helper()
		p := s.addClient(name, memnet.Broadband, transport.ClientConfig{Token: tok})
		s.run(s.now.Add(3*time.Second), func() bool { return p.c.State() != transport.StateJoining })
		r, _ := p.c.Refusal()
		t.Logf("%s: %v %q", name, p.c.State(), p.c.LastError())
		return r.Reason
	}
	if r := refusedWith("copy", tok); r != handshake.ReasonTokenUsed {
		t.Fatalf("the same token from another address: %v", r)
	}
	if r := refusedWith("same-client", mintToken(t, sealKey, 7, "ada", seed+1, nil)); r != handshake.ReasonClientSeated {
		t.Fatalf("a second connection of client 7: %v", r)
	}
	a.c.Leave(s.now)
	s.flush()
	s.runFor(time.Second)
	s.wantSeats(0)
	if r := refusedWith("after", tok); r != handshake.ReasonTokenUsed {
		t.Fatalf("the token again after its player left: %v", r)
	}
	fresh := s.addClient("fresh", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed+2, nil)})
	s.run(s.now.Add(3*time.Second), func() bool { return fresh.c.State() != transport.StateJoining })
	if fresh.c.State() != transport.StatePlaying {
		t.Fatalf("a fresh token for client 7 after it left: %v %q", fresh.c.State(), fresh.c.LastError())
	}
	t.Logf("%v", s)
}

// A datagram with one bit flipped, a replayed one and a forged Goodbye are
// dropped and counted at either end, change nothing in the connection, and
// the player plays on.
func TestTamperedDatagramsAreDropped(t *testing.T) {
	const seed = 0x5300
	s := sealSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Perfect, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	s.join(time.Second)
	exchange(t, s, p, time.Second)

	// Up: the server.
	if _, err := p.c.Send([]byte("command"), s.now); err != nil {
		t.Fatal(err)
	}
	genuine := takeDatagram(t, p.c)
	conn := s.srv.Conn(1)
	before, drops := conn.Stats(), s.srv.Stats().Drops
	// One bit flipped in each byte of the ciphertext and tag, and one in
	// the counter's top byte (a counter far ahead, which the window lets
	// through to the tag check).
	sealedFrom := handshake.HeaderSize + seal.CounterSize
	flipped := 0
	for i := sealedFrom - 1; i < len(genuine); i++ {
		bad := append([]byte(nil), genuine...)
		bad[i] ^= 1 << (i % 8)
		s.srv.Receive(p.addr, bad, s.now)
		flipped++
	}
	s.srv.Receive(p.addr, genuine, s.now)
	if e, ok := s.srv.NextEvent(); !ok || string(e.Payload) != "command" {
		t.Fatalf("the genuine datagram after the flipped ones: %+v %v", e, ok)
	}
	afterGenuine := conn.Stats()
	s.srv.Receive(p.addr, genuine, s.now) // replayed
	goodbye := handshake.AppendDatagram(nil, s.srv.SeatToken(1), handshake.Goodbye{Reason: handshake.GoodbyeQuit})
	s.srv.Receive(p.addr, goodbye, s.now) // forged: unsealed
	madeUp := append(bytes.Clone(goodbye[:handshake.HeaderSize]), bytes.Repeat([]byte{0xee}, seal.Overhead+1)...)
	s.srv.Receive(p.addr, madeUp, s.now) // forged: a made-up seal
	after := s.srv.Stats().Drops
	if _, ok := s.srv.NextEvent(); ok {
		t.Fatal("a dropped datagram made an event")
	}
	if conn.Stats() != afterGenuine || afterGenuine.PacketsReceived != before.PacketsReceived+1 {
		t.Fatalf("conn moved: %+v -> %+v", afterGenuine, conn.Stats())
	}
	if after.Forged-drops.Forged != uint64(flipped)+2 || after.Replayed-drops.Replayed != 1 || s.srv.PlayerCount() != 1 {
		t.Fatalf("drops %+v -> %+v, %d flipped", drops, after, flipped)
	}

	// Down: the client.
	if _, err := s.srv.Send(1, []byte("snapshot"), s.now); err != nil {
		t.Fatal(err)
	}
	_, down, _ := s.srv.NextDatagram()
	down = append([]byte(nil), down...)
	cconn := p.c.Conn()
	cdrops := p.c.Stats().Drops
	bad := append([]byte(nil), down...)
	bad[len(bad)-1] ^= 0x80
	p.c.Receive(bad, s.now)
	p.c.Receive(down, s.now)
	cbefore := cconn.Stats()
	p.c.Receive(down, s.now)
	p.c.Receive(handshake.AppendDatagram(nil, s.srv.SeatToken(1), handshake.Goodbye{Reason: handshake.GoodbyeKicked}), s.now)
	cafter := p.c.Stats().Drops
	if cconn.Stats() != cbefore || cafter.Forged-cdrops.Forged != 2 || cafter.Replayed-cdrops.Replayed != 1 || p.c.State() != transport.StatePlaying {
		t.Fatalf("client: conn %+v -> %+v, drops %+v -> %+v, state %v", cbefore, cconn.Stats(), cdrops, cafter, p.c.State())
	}
	for _, _, ok := s.srv.NextDatagram(); ok; _, _, ok = s.srv.NextDatagram() {
	}
	for _, ok := p.c.NextEvent(); ok; _, ok = p.c.NextEvent() {
	}

	// And play goes on.
	up, downN := exchange(t, s, p, time.Second)
	t.Logf("%v", s)
	t.Logf("server drops %+v; client drops %+v; data after: up %d down %d", s.srv.Stats().Drops, p.c.Stats().Drops, up, downN)
	if s.srv.PlayerCount() != 1 || p.c.State() != transport.StatePlaying || p.c.Conn().TimedOut(s.now) {
		t.Fatal("the player did not play on")
	}
}

// A flood of complete handshakes from many source ports, each echoing its
// cookie but carrying no token (or a forged one), gets refusals and no
// seat: every seat stays free for the players with tokens, who then join.
func TestTokenlessFloodLeavesSeatsFree(t *testing.T) {
	const seed = 0x5400
	const n = 2000
	s := sealSim(t, seed, transport.ServerConfig{HelloRate: -1}) // one /24 of sources, 7 of them
	forged := mintToken(t, token.Key{9}, 1, "", seed, nil)
	var refusals [handshake.ReasonCount]int
	for i := range n {
		now := at(time.Duration(i) * 200 * time.Microsecond)
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, byte(i % 7)}), uint16(10000+i))
		hello := serverHello
		s.srv.Receive(from, handshake.AppendDatagram(nil, 0, hello), now)
		to, b, ok := s.srv.NextDatagram()
		h, _, _ := handshake.Classify(b)
		if !ok || to != from || h.Kind != handshake.KindChallenge {
			t.Fatalf("first Hello from %v: %v %v", from, h.Kind, ok)
		}
		if i%2 == 1 {
			hello.Token = &forged.Sealed
		}
		s.srv.Receive(from, handshake.AppendDatagram(nil, h.Token, hello), now)
		_, b, _ = s.srv.NextDatagram()
		h, body, _ := handshake.Classify(b)
		r, err := handshake.ParseRefuse(body)
		if h.Kind != handshake.KindRefuse || err != nil {
			t.Fatalf("echoed Hello from %v: %v", from, h.Kind)
		}
		refusals[r.Reason]++
	}
	a, b, c := s.srv.StateSizes()
	t.Logf("seed %d: %d full handshakes without a valid token: refusals no_token %d bad_token %d; maps %d/%d/%d admits %d",
		seed, n, refusals[handshake.ReasonNoToken], refusals[handshake.ReasonBadToken], a, b, c, s.admits)
	if refusals[handshake.ReasonNoToken] != n/2 || refusals[handshake.ReasonBadToken] != n/2 || a+b+c != 0 || s.admits != 0 {
		t.Fatal("the flood was not refused, or left state")
	}
	s.now = at(time.Second)
	for i := range 4 {
		s.addClient(string(rune('a'+i)), memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, uint64(i+1), "", seed, nil)})
	}
	s.join(3 * time.Second)
	s.wantSeats(4)
	t.Logf("%v", s)
}

// A client with a token does not play on a server without a key: its
// Welcome is unsealed, and the client ends the join saying why at the
// join's deadline (an unsealed Welcome could be anyone's).
func TestTokenClientRefusesUnsealedServer(t *testing.T) {
	const seed = 0x5500
	s := newSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Perfect, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	s.run(s.now.Add(11*time.Second), func() bool { return p.c.State() != transport.StateJoining })
	t.Logf("%v; client %v %q", s, p.c.State(), p.c.LastError())
	if p.c.State() != transport.StateRefused || p.c.LastError() != transport.Unsealed {
		t.Fatal("the client played unsealed")
	}
}

// Over a mobile link, which loses, duplicates and reorders, a sealed
// session plays as an unsealed one does: the duplicates the link makes are
// refused by the seal's window (replayed) before the connection core sees
// them, reordered datagrams within the window open, and nothing genuine is
// taken for a forgery.
func TestSealedOverMobile(t *testing.T) {
	const seed = 0x5600
	s := sealSim(t, seed, transport.ServerConfig{})
	p := s.addClient("m", memnet.Mobile, transport.ClientConfig{Token: mintToken(t, sealKey, 3, "", seed, nil)})
	s.join(5 * time.Second)
	up, down := exchange(t, s, p, 20*time.Second)
	gotUp, gotDown := len(s.serverEvents(transport.EventData)), p.count(transport.EventData)
	st, cst := s.srv.Stats(), p.c.Stats()
	t.Logf("%v", s)
	t.Logf("data up %d/%d down %d/%d; server drops %+v; client drops %+v", gotUp, up, gotDown, down, st.Drops, cst.Drops)
	if st.Forged+cst.Forged != 0 || st.Replayed+cst.Replayed == 0 {
		t.Fatal("genuine datagrams refused as forged, or no duplicate caught by the seal")
	}
	if gotUp < up*90/100 || gotDown < down*90/100 {
		t.Fatal("data lost beyond the link's loss")
	}
}

// A seat whose Welcome has not arrived yet is welcomed again only for a
// Hello with its own connect token: the same address and cookie with
// another token (a client restarted on the same port) is dropped.
func TestSeatRewelcomesOnlyItsOwnToken(t *testing.T) {
	const seed = 0x5700
	s := sealSim(t, seed, transport.ServerConfig{})
	tok := mintToken(t, sealKey, 7, "", seed, nil)
	a := s.addClient("a", memnet.Perfect, transport.ClientConfig{Token: tok})
	a.dropDown = dropWelcomes
	if !s.run(s.now.Add(time.Second), func() bool { return s.srv.PlayerCount() == 1 }) {
		t.Fatal("not seated")
	}
	s.flushServer()
	cookie := s.srv.SeatToken(1)
	hello := clientHello("a")
	hello.Nonce = a.c.AttemptNonce()
	before := s.srv.Stats()
	s.srv.Receive(a.addr, provenHello(cookie, hello, mintToken(t, sealKey, 8, "", seed, nil)), s.now)
	_, _, queued := s.srv.NextDatagram()
	other := s.srv.Stats()
	s.srv.Receive(a.addr, provenHello(cookie, hello, tok), s.now)
	_, w, welcomed := s.srv.NextDatagram()
	t.Logf("%v", s)
	if queued || other.BadToken != before.BadToken+1 || other.Welcomes != before.Welcomes {
		t.Fatalf("another token from the seat's address: answered %v, %+v -> %+v", queued, before, other)
	}
	if h, _, _ := handshake.Classify(w); !welcomed || h.Kind != handshake.KindWelcome || s.srv.Stats().Joins != 1 {
		t.Fatalf("the seat's own token: %v %v", welcomed, h.Kind)
	}
}

// provenHello returns the Hello datagram a client holding tok sends
// echoing cookie: with the sealed token and its proof.
func provenHello(cookie uint64, hello handshake.Hello, tok *token.Token) []byte {
	hello.Token = &tok.Sealed
	d := handshake.AppendDatagram(nil, cookie, hello)
	handshake.Prove(d, &tok.ClientToServer)
	return d
}

// dropWelcomes is a peer's dropDown that loses every Welcome.
func dropWelcomes(b []byte) bool {
	h, _, _ := handshake.Classify(b)
	return h.Kind == handshake.KindWelcome
}
