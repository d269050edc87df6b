package transport

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/token"
)

// fuzzHello is what the fuzzed server holds and its one real client says.
var fuzzHello = handshake.Hello{SchemaFP: 0xf00d, ActionCount: 2, ActionFP: 0xab, WorldFP: 0xcd, TickRate: 64, Name: "real"}

// fuzzSeated is the real player's address.
var fuzzSeated = netip.MustParseAddrPort("10.9.8.7:4000")

// fuzzNow is when the fuzzed datagram arrives: inside the cookie window
// after the real player's join, so its token is still accepted.
const fuzzNow = Time(12 * time.Second)

// seatedServer returns a Server with one player seated at fuzzSeated, who
// has sent a Data (so it plays and its token is fixed), and that client.
func seatedServer(tb testing.TB) (*Server, *Client, *int) {
	return seatedServerAuth(tb, false)
}

// fuzzKey and fuzzServer are the sealed fuzzed server's key and address.
var (
	fuzzKey    = token.Key{0: 'f', 31: 'z'}
	fuzzServer = netip.MustParseAddrPort("10.0.0.1:27960")
)

// seatedServerAuth is seatedServer, with the server holding a key and the
// client a token when sealed is true.
func seatedServerAuth(tb testing.TB, sealed bool) (*Server, *Client, *int) {
	tb.Helper()
	admits := new(int)
	cfg := ServerConfig{
		Hello: fuzzHello, MaxPlayers: 2, Rand: bytes.NewReader(make([]byte, 16)),
		Admit: func(uint16, string, bool) (handshake.Refuse, bool) { *admits++; return handshake.Refuse{}, true },
	}
	ccfg := ClientConfig{Hello: fuzzHello}
	if sealed {
		epoch := time.Unix(2_000_000_000, 0)
		cfg.Auth = &Auth{Key: fuzzKey, Addrs: []netip.AddrPort{fuzzServer}, Protocol: 1, Epoch: epoch}
		tok, err := token.Mint(&fuzzKey, token.Claims{Protocol: 1, Client: 3, Expires: epoch.Add(time.Hour), Servers: cfg.Auth.Addrs},
			epoch, bytes.NewReader(make([]byte, 200)))
		if err != nil {
			tb.Fatal(err)
		}
		ccfg.Token = &tok
	}
	s, err := NewServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	c := NewClient(ccfg, 0)
	now := Time(9 * time.Second)
	for range 4 { // Hello, Challenge, Hello, Welcome
		c.Poll(now)
		for b, ok := c.NextDatagram(); ok; b, ok = c.NextDatagram() {
			s.Receive(fuzzSeated, b, now)
		}
		for _, b, ok := s.NextDatagram(); ok; _, b, ok = s.NextDatagram() {
			c.Receive(b, now)
		}
		now = now.Add(DefaultHelloInterval)
	}
	if _, err := c.Send([]byte("cmd"), now); err != nil {
		tb.Fatalf("client did not join: %v %q", err, c.LastError())
	}
	b, _ := c.NextDatagram()
	s.Receive(fuzzSeated, b, now)
	for _, ok := s.NextEvent(); ok; _, ok = s.NextEvent() {
	}
	if p := s.byAddr[fuzzSeated]; p == nil || !p.playing {
		tb.Fatal("the real player is not playing")
	}
	return s, c, admits
}

// fuzzAddr picks the source address: the seated player's, or one of many
// others (IPv4 and IPv6).
func fuzzAddr(sel uint16) netip.AddrPort {
	switch {
	case sel == 0:
		return fuzzSeated
	case sel%2 == 0:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(sel >> 8)}), sel)
	}
	var ip [16]byte
	ip[0], ip[1], ip[14], ip[15] = 0x20, 0x01, byte(sel>>8), byte(sel)
	return netip.AddrPortFrom(netip.AddrFrom16(ip), sel)
}

// FuzzServerReceive hands a Server with one real player an arbitrary
// datagram from the player's address or another one, with its token
// field optionally replaced by the token valid for that address (stamp).
// Whatever the bytes: no panic; the maps agree; no answer to an address
// without a seat is larger than what it sent; a seat appears only for a
// stamped Hello; and a datagram not carrying the real player's token leaves
// its Conn untouched.
func FuzzServerReceive(f *testing.F) {
	_, c, _ := seatedServer(f)
	c.Send([]byte("cmd"), fuzzNow)
	data, _ := c.NextDatagram()
	data = bytes.Clone(data)
	f.Add(handshake.AppendDatagram(nil, 0, fuzzHello), uint16(2), false)
	f.Add(handshake.AppendDatagram(nil, 0, fuzzHello), uint16(4), true)
	f.Add(handshake.AppendDatagram(nil, 0, fuzzHello), uint16(0), true)
	f.Add(handshake.AppendDatagram(nil, 99, handshake.Hello{SchemaFP: 1, TickRate: 30}), uint16(3), false)
	f.Add(handshake.AppendDatagram(nil, 0, handshake.Goodbye{Reason: handshake.GoodbyeQuit}), uint16(0), false)
	f.Add(data, uint16(0), false)
	f.Add(data, uint16(0), true)
	f.Add(data, uint16(6), true)
	f.Add(append(handshake.Header{Version: 8, Kind: handshake.KindHello}.Append(nil), make([]byte, 1188)...), uint16(8), false)
	f.Add(handshake.AppendDatagram(nil, 5, handshake.Challenge{}), uint16(0), false)
	f.Add([]byte("vk\x01\x06"), uint16(10), false)
	f.Fuzz(func(t *testing.T, datagram []byte, sel uint16, stamp bool) {
		s, _, admits := seatedServer(t)
		from := fuzzAddr(sel)
		datagram = bytes.Clone(datagram)
		if stamp && len(datagram) >= handshake.HeaderSize {
			binary.LittleEndian.PutUint64(datagram[4:], s.gate.Token(from, fuzzNonce(datagram), time.Duration(fuzzNow)))
		}
		real := s.byAddr[fuzzSeated]
		connBefore := real.conn.Stats()
		seats := len(s.seated)

		s.Receive(from, datagram, fuzzNow)

		if len(s.byAddr) != len(s.seated) || len(s.byNum) != len(s.seated) || s.nums.n != len(s.seated) {
			t.Fatalf("maps disagree: %d/%d/%d numbers %d", len(s.byAddr), len(s.byNum), len(s.seated), s.nums.n)
		}
		h, _, err := handshake.ParseHeader(datagram)
		validHello := stamp && err == nil && h.Kind == handshake.KindHello && h.Version == handshake.Version
		if len(s.seated) > seats || *admits > 1 {
			if !validHello || from == fuzzSeated {
				t.Fatalf("seated %v without a valid token (stamp %v, header %+v %v)", from, stamp, h, err)
			}
		}
		if s.byAddr[fuzzSeated] == real && (err != nil || h.Token != real.token) && real.conn.Stats() != connBefore {
			t.Fatalf("a datagram without the seat's token reached its Conn: %+v -> %+v", connBefore, real.conn.Stats())
		}
		for to, b, ok := s.NextDatagram(); ok; to, b, ok = s.NextDatagram() {
			if len(b) > MaxDatagram || (to != fuzzSeated && len(b) > len(datagram)) {
				t.Fatalf("answer of %d bytes to %v for %d bytes", len(b), to, len(datagram))
			}
		}
	})
}

// FuzzClientReceive hands a playing Client an arbitrary datagram, with its
// token field optionally replaced by the client's token. No panic; without
// the token nothing changes but the drop counters; with it the session can
// only end in Disconnected (a Goodbye), never go back to joining.
func FuzzClientReceive(f *testing.F) {
	s, _, _ := seatedServer(f)
	s.Send(1, []byte("snapshot"), fuzzNow)
	_, d, _ := s.NextDatagram()
	f.Add(bytes.Clone(d), false)
	f.Add(bytes.Clone(d), true)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Goodbye{Reason: handshake.GoodbyeShutdown}), true)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Welcome{Player: 2, MaxPlayers: 2, TickRate: 64}), true)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Refuse{Reason: handshake.ReasonFull}), true)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Challenge{}), false)
	f.Add(handshake.Header{Version: 9, Kind: handshake.KindRefuse}.Append(nil), true)
	f.Fuzz(func(t *testing.T, datagram []byte, stamp bool) {
		_, c, _ := seatedServer(t)
		datagram = bytes.Clone(datagram)
		if stamp && len(datagram) >= handshake.HeaderSize {
			binary.LittleEndian.PutUint64(datagram[4:], c.token)
		}
		before, token := c.conn.Stats(), c.token
		c.Receive(datagram, fuzzNow)
		h, _, err := handshake.ParseHeader(datagram)
		carries := err == nil && h.Token == token
		switch {
		case c.token != token:
			t.Fatal("a playing client changed its token")
		case !carries && (c.state != StatePlaying || c.conn.Stats() != before):
			t.Fatalf("a datagram without the token changed the session: %v %+v", c.state, c.conn.Stats())
		case c.state != StatePlaying && c.state != StateDisconnected:
			t.Fatalf("a playing client went to %v", c.state)
		}
	})
}

// FuzzSealedServerReceive is FuzzServerReceive against a server with a key
// whose player is sealed: whatever the bytes, no panic, the maps agree, no
// answer to an address without a seat is larger than what it sent, and only
// the genuine sealed datagram, byte for byte, reaches the player's Conn.
func FuzzSealedServerReceive(f *testing.F) {
	_, c, _ := seatedServerAuth(f, true)
	c.Send([]byte("cmd"), fuzzNow)
	data, _ := c.NextDatagram()
	data = bytes.Clone(data)
	c.Leave(fuzzNow)
	bye, _ := c.NextDatagram()
	f.Add(data, uint16(0), false)
	f.Add(data, uint16(0), true)
	f.Add(bytes.Clone(bye), uint16(0), false)
	f.Add(handshake.AppendDatagram(nil, 0, fuzzHello), uint16(4), true)
	f.Add(handshake.AppendDatagram(nil, 0, handshake.Goodbye{Reason: handshake.GoodbyeQuit}), uint16(0), true)
	f.Fuzz(func(t *testing.T, datagram []byte, sel uint16, stamp bool) {
		s, c, _ := seatedServerAuth(t, true)
		c.Send([]byte("cmd"), fuzzNow)
		genuine, _ := c.NextDatagram()
		from := fuzzAddr(sel)
		datagram = bytes.Clone(datagram)
		if stamp && len(datagram) >= handshake.HeaderSize {
			binary.LittleEndian.PutUint64(datagram[4:], s.gate.Token(from, fuzzNonce(datagram), time.Duration(fuzzNow)))
		}
		real := s.byAddr[fuzzSeated]
		connBefore := real.conn.Stats()
		s.Receive(from, datagram, fuzzNow)
		if len(s.byAddr) != len(s.seated) || len(s.byNum) != len(s.seated) || len(s.byClient) != len(s.seated) {
			t.Fatalf("maps disagree: %d/%d/%d/%d", len(s.byAddr), len(s.byNum), len(s.byClient), len(s.seated))
		}
		if s.byAddr[fuzzSeated] == real && real.conn.Stats() != connBefore && !bytes.Equal(datagram, genuine) {
			t.Fatalf("a datagram that is not the genuine one reached the Conn: %+v -> %+v", connBefore, real.conn.Stats())
		}
		for to, b, ok := s.NextDatagram(); ok; to, b, ok = s.NextDatagram() {
			if len(b) > MaxDatagram || (to != fuzzSeated && len(b) > len(datagram)) {
				t.Fatalf("answer of %d bytes to %v for %d bytes", len(b), to, len(datagram))
			}
		}
	})
}

// FuzzSealedClientReceive hands a playing sealed Client an arbitrary
// datagram, its token field optionally replaced by the client's. No panic;
// only the server's genuine sealed datagram, byte for byte, reaches the
// Conn or ends the session.
func FuzzSealedClientReceive(f *testing.F) {
	s, _, _ := seatedServerAuth(f, true)
	s.Send(1, []byte("snapshot"), fuzzNow)
	_, d, _ := s.NextDatagram()
	f.Add(bytes.Clone(d), false)
	f.Add(bytes.Clone(d), true)
	s.Kick(1, fuzzNow)
	_, bye, _ := s.NextDatagram()
	f.Add(bytes.Clone(bye), false)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Goodbye{Reason: handshake.GoodbyeShutdown}), true)
	f.Fuzz(func(t *testing.T, datagram []byte, stamp bool) {
		s, c, _ := seatedServerAuth(t, true)
		s.Send(1, []byte("snapshot"), fuzzNow)
		_, data, _ := s.NextDatagram()
		data = bytes.Clone(data)
		s.Kick(1, fuzzNow)
		_, bye, _ := s.NextDatagram()
		datagram = bytes.Clone(datagram)
		if stamp && len(datagram) >= handshake.HeaderSize {
			binary.LittleEndian.PutUint64(datagram[4:], c.token)
		}
		before := c.conn.Stats()
		c.Receive(datagram, fuzzNow)
		genuine := bytes.Equal(datagram, data) || bytes.Equal(datagram, bye)
		if !genuine && (c.state != StatePlaying || c.conn.Stats() != before) {
			t.Fatalf("a datagram the server did not seal changed the session: %v %+v", c.state, c.conn.Stats())
		}
	})
}

// fuzzNonce returns the nonce a Hello datagram carries, or 0 for a datagram
// too short to hold one: the one its cookie is bound to.
func fuzzNonce(datagram []byte) uint64 {
	if len(datagram) < 48 {
		return 0
	}
	return binary.LittleEndian.Uint64(datagram[40:48])
}

// A joining client with a connect token and a cookie, handed any datagram:
// only the server's sealed Refuse ends its join, and nothing it is sent
// makes it play but a Welcome sealed by that server.
func FuzzJoiningClientReceive(f *testing.F) {
	c, refusal := joiningClient(f)
	f.Add(refusal, false)
	f.Add(handshake.AppendDatagram(nil, c.token, handshake.Refuse{Reason: handshake.ReasonFull, Nonce: c.nonce}), false)
	f.Add(handshake.AppendDatagram(nil, 0, handshake.Challenge{Nonce: c.nonce}), true)
	f.Add(handshake.AppendDatagram(nil, 1, handshake.Welcome{ServerTick: 1, Player: 1, MaxPlayers: 1, TickRate: 64}), true)
	f.Fuzz(func(t *testing.T, datagram []byte, stamp bool) {
		c, refusal := joiningClient(t)
		datagram = bytes.Clone(datagram)
		if stamp && len(datagram) >= handshake.HeaderSize {
			binary.LittleEndian.PutUint64(datagram[4:], c.token)
		}
		c.Receive(datagram, fuzzNow)
		switch {
		case c.state == StatePlaying:
			t.Fatal("a datagram the server did not seal seated the client")
		case c.state != StateJoining && !bytes.Equal(datagram, refusal):
			t.Fatalf("a datagram the server did not seal ended the join: %v %q", c.state, c.lastErr)
		}
	})
}

// joiningClient returns a client with a connect token that has taken a
// server's Challenge, and the sealed Refuse (TokenUsed) that server sends
// its next Hello.
func joiningClient(tb testing.TB) (*Client, []byte) {
	tb.Helper()
	s, c, _ := seatedServerAuth(tb, true)
	c2 := NewClient(ClientConfig{Hello: fuzzHello, Token: c.cfg.Token, Rand: bytes.NewReader(make([]byte, 8))}, fuzzNow)
	from := netip.MustParseAddrPort("10.9.8.6:4000")
	var refusal []byte
	for range 3 { // Hello, Challenge, Hello with the token, sealed Refuse
		c2.Poll(fuzzNow)
		for b, ok := c2.NextDatagram(); ok; b, ok = c2.NextDatagram() {
			s.Receive(from, b, fuzzNow)
		}
		for _, b, ok := s.NextDatagram(); ok; _, b, ok = s.NextDatagram() {
			if handshake.Kind(b[3]) == handshake.KindSealedRefuse {
				refusal = bytes.Clone(b)
				continue
			}
			c2.Receive(b, fuzzNow)
		}
		c2.lastHello = 0
	}
	if c2.state != StateJoining || c2.token == 0 || refusal == nil {
		tb.Fatalf("client %v token %#x refusal %x", c2.state, c2.token, refusal)
	}
	return c2, refusal
}
