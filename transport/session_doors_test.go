package transport_test

import (
	"bytes"
	"encoding/binary"
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

// The tests here play an attacker in front of the seal: one who sees the
// client's datagrams go by (on the path) or who only guesses (off it), and
// writes Refuses, Challenges and Hellos of its own.

// helloNonce returns the nonce a Hello datagram carries, and false for any
// other datagram.
func helloNonce(b []byte) (uint64, bool) {
	h, _, v := handshake.Classify(b)
	if v != handshake.VerdictRead || h.Kind != handshake.KindHello || len(b) != handshake.HelloSize {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[40:48]), true
}

// forgeRefusals makes an on-path forger of p: for every Hello p sends, it
// sends p an unsealed Refuse of reason r echoing the Hello's cookie and
// nonce (or, off the path, a guessed nonce), as fast as the server could.
// It returns the count of forgeries sent.
func forgeRefusals(s *sim, p *peer, r handshake.Reason, onPath bool) *int {
	n := new(int)
	rng := rand.New(rand.NewPCG(s.seed, 0xf0))
	p.dropUp = func(b []byte) bool {
		nonce, ok := helloNonce(b)
		if !ok {
			return false
		}
		if !onPath {
			nonce = rng.Uint64()
		}
		cookie := binary.LittleEndian.Uint64(b[4:12])
		p.pipe.BtoA.Send(handshake.AppendDatagram(nil, cookie, handshake.Refuse{Reason: r, Nonce: nonce, MaxPlayers: 4}), s.now)
		*n++
		return false
	}
	return n
}

// A forged Refuse, one for every Hello, does not end a join: from off the
// path it does not echo the Hello's nonce and is dropped, even by a client
// without a token; from on the path a client with a token takes an
// unsealed Refuse as advice only, and is seated by the real server.
func TestForgedRefusalsDoNotEndAJoin(t *testing.T) {
	for i, tc := range []struct {
		name   string
		sealed bool
		onPath bool
	}{
		{"keyless, off the path", false, false},
		{"with a key, off the path", true, false},
		{"with a key, on the path", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(0xd000 + i)
			var s *sim
			var cfg transport.ClientConfig
			if tc.sealed {
				s = sealSim(t, seed, transport.ServerConfig{})
				cfg.Token = mintToken(t, sealKey, 7, "ada", seed, nil)
			} else {
				s = newSim(t, seed, transport.ServerConfig{})
			}
			p := s.addClient("ada", memnet.Broadband, cfg)
			forged := forgeRefusals(s, p, handshake.ReasonFull, tc.onPath)
			s.join(3 * time.Second)
			cst := p.c.Stats()
			t.Logf("%v", s)
			t.Logf("%d forged refusals; client %+v", *forged, cst)
			if *forged == 0 || p.c.State() != transport.StatePlaying {
				t.Fatal("no forgery sent, or not playing")
			}
			if tc.onPath && cst.Advised == 0 {
				t.Fatal("no forgery reached the client as advice")
			}
			if !tc.onPath && cst.BadToken == 0 {
				t.Fatal("no forgery was dropped for its nonce")
			}
		})
	}
}

// A forged Refuse of every resuming Hello, from on the path, does not end
// the resume: the client takes back its seat once the link is back.
func TestForgedRefusalsDoNotEndAResume(t *testing.T) {
	const seed = 0xd100
	s, p := rejoinSim(t, seed, 10*time.Second)
	player := p.c.Player()
	forged := forgeRefusals(s, p, handshake.ReasonShuttingDown, true)
	// The blip: everything from the server is lost, and the forger's
	// Refuses go on reaching the client (they are sent after the cut).
	p.cutDown = true
	s.runFor(2500 * time.Millisecond)
	p.cutDown = false
	back := s.now
	playing, _ := untilPlaying(t, s, p, 2*time.Second)
	cst := p.c.Stats()
	t.Logf("%v", s)
	t.Logf("%d forged refusals during the resume; client %+v; playing %v after the link came back", *forged, cst, time.Duration(playing-back))
	if p.c.Player() != player || cst.Resumes != 1 || cst.Advised == 0 || s.srv.Stats().Rejoins != 1 {
		t.Fatalf("player %d (was %d), resumes %d, advised %d", p.c.Player(), player, cst.Resumes, cst.Advised)
	}
}

// A forged sealed Refuse (under a key not the token's) is dropped as
// forged; a genuine one, made when the server opens the token, ends the
// join at once, long before the attempt's deadline.
func TestSealedRefusals(t *testing.T) {
	const seed = 0xd200
	s := sealSim(t, seed, transport.ServerConfig{})
	s.now = at(2 * time.Second)
	tok := mintToken(t, sealKey, 7, "", seed, func(c *token.Claims) { c.Expires = sealEpoch.Add(time.Second) })
	p := s.addClient("bob", memnet.Broadband, transport.ClientConfig{Token: tok})
	start := s.now
	var wrong seal.Key
	wrong[0] = 9
	p.dropUp = func(b []byte) bool {
		if _, ok := helloNonce(b); ok && b[39]&2 != 0 {
			h := handshake.Header{Version: handshake.Version, Kind: handshake.KindSealedRefuse, Token: binary.LittleEndian.Uint64(b[4:12])}.Append(nil)
			body := handshake.Refuse{Reason: handshake.ReasonFull, Nonce: binary.LittleEndian.Uint64(b[40:48])}.Append(nil)
			p.pipe.BtoA.Send(seal.SealOnce(nil, &wrong, h, handshake.SealedRefuseBit, body), s.now)
		}
		return false
	}
	s.run(s.now.Add(11*time.Second), func() bool { return p.c.State() != transport.StateJoining })
	r, refused := p.c.Refusal()
	t.Logf("%v", s)
	t.Logf("client %v %q after %v; %+v", p.c.State(), p.c.LastError(), time.Duration(s.now-start), p.c.Stats())
	if !refused || r.Reason != handshake.ReasonTokenExpired || p.c.Stats().Forged == 0 {
		t.Fatalf("refusal %+v (%v), forged %d", r, refused, p.c.Stats().Forged)
	}
	if d := time.Duration(s.now - start); d > time.Second {
		t.Fatalf("the sealed refusal took %v to end the join", d)
	}
}

// A stream of forged Challenges (on the path: echoing the Hello's nonce,
// each with another cookie) to a client whose server never answers does
// not keep its join alive: it ends at its deadline, Timeout after it began.
func TestForgedChallengesDoNotExtendAJoin(t *testing.T) {
	const seed = 0xd300
	s := sealSim(t, seed, transport.ServerConfig{})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	start := s.now
	rng := rand.New(rand.NewPCG(seed, 1))
	forged := 0
	p.dropUp = func(b []byte) bool {
		if nonce, ok := helloNonce(b); ok {
			p.pipe.BtoA.Send(handshake.AppendDatagram(nil, rng.Uint64()|1, handshake.Challenge{Nonce: nonce}), s.now)
			forged++
		}
		return true // the server never hears the client
	}
	ended := s.run(s.now.Add(20*time.Second), func() bool { return p.c.State() != transport.StateJoining })
	took := time.Duration(s.now - start)
	t.Logf("%v", s)
	t.Logf("%d forged Challenges; client %v %q after %v; %+v", forged, p.c.State(), p.c.LastError(), took, p.c.Stats())
	if !ended || p.c.Stats().Challenges < 100 || took > 10*time.Second+transport.DefaultHelloInterval {
		t.Fatalf("join ended %v after %v with %d Challenges taken", ended, took, p.c.Stats().Challenges)
	}
}

// Someone who saw a client's Hellos (its sealed connect token and proof)
// replays them from its own address at 400 a second while the client's
// seat is held: it gets Challenges, and echoing them with the token gets it
// nothing, since the proof covers the cookie; the seat stays where it was,
// no takeover restarts the window, and the real client takes it back when
// its link returns.
func TestSniffedTokenDoesNotMoveAHeldSeat(t *testing.T) {
	const seed = 0xd400
	s := sealSim(t, seed, transport.ServerConfig{RejoinWindow: 10 * time.Second})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	var sniffed []byte
	p.dropUp = func(b []byte) bool {
		if _, ok := helloNonce(b); ok && b[39]&2 != 0 {
			sniffed = bytes.Clone(b) // the newest with the token
		}
		return false
	}
	s.join(3 * time.Second)
	player := p.c.Player()
	home := p.addr
	attacker := netip.MustParseAddrPort("203.0.113.66:40000")
	var cookies []uint64
	s.strayTo = func(to netip.AddrPort, b []byte) {
		if h, body, v := handshake.Classify(b); to == attacker && v == handshake.VerdictRead && h.Kind == handshake.KindChallenge && len(body) == 8 {
			cookies = append(cookies, h.Token)
		}
	}
	replays := 0
	s.tick(2500*time.Microsecond, func(now transport.Time) {
		if sniffed == nil {
			return
		}
		d := bytes.Clone(sniffed)
		if len(cookies) > 0 && replays%2 == 1 {
			binary.LittleEndian.PutUint64(d[4:12], cookies[len(cookies)-1])
		}
		s.srv.Receive(attacker, d, now)
		replays++
	})
	p.cutUp, p.cutDown = true, true
	s.runFor(2500 * time.Millisecond)
	p.cutUp, p.cutDown = false, false
	heldAddr := addrOf(s, player)
	playing, resumed := untilPlaying(t, s, p, 2*time.Second)
	st := s.srv.Stats()
	rejoined := s.serverEvents(transport.EventRejoined)
	t.Logf("%v", s)
	t.Logf("%d replays from %v, %d Challenges to it; unproven %d; seat at %v while held; rejoined %+v; client playing after %v, heard after %v",
		replays, attacker, len(cookies), st.Unproven, heldAddr, rejoined, time.Duration(playing-s.now), time.Duration(resumed-s.now))
	if replays < 800 || len(cookies) == 0 || st.Unproven == 0 {
		t.Fatalf("the attack did not run: %d replays, %d cookies, %d unproven", replays, len(cookies), st.Unproven)
	}
	if heldAddr != home {
		t.Fatalf("the held seat moved to %v", heldAddr)
	}
	if len(rejoined) != 1 || rejoined[0].Addr != home || p.c.Player() != player {
		t.Fatalf("rejoins %+v, want one from %v", rejoined, home)
	}
}

// addrOf returns the address player's seat answers to.
func addrOf(s *sim, player uint16) netip.AddrPort {
	for _, pi := range s.srv.Players(nil, s.now) {
		if pi.Player == player {
			return pi.Addr
		}
	}
	return netip.AddrPort{}
}
