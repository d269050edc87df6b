package transport_test

import (
	"net/netip"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/memnet"
)

// rejoinSim is a sealed sim whose server keeps seats for window, with one
// client playing under a token for client id 7, exchanging Data 64 times
// a second from then on.
func rejoinSim(t *testing.T, seed uint64, window time.Duration) (*sim, *peer) {
	t.Helper()
	s := sealSim(t, seed, transport.ServerConfig{RejoinWindow: window})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	s.join(3 * time.Second)
	player := p.c.Player()
	s.tick(time.Second/64, func(now transport.Time) {
		_, _ = p.c.Send([]byte("command"), now)
		_, _ = s.srv.Send(player, []byte("snapshot"), now)
	})
	s.runFor(time.Second)
	return s, p
}

// cut drops everything between p and the server for d, then restores the
// link and returns when it did.
func cut(s *sim, p *peer, d time.Duration) transport.Time {
	p.cutUp, p.cutDown = true, true
	s.runFor(d)
	p.cutUp, p.cutDown = false, false
	return s.now
}

// moveTo gives p a new source address, as a NAT rebinding or a phone
// changing networks does.
func moveTo(s *sim, p *peer, addr netip.AddrPort) {
	delete(s.byAddr, p.addr)
	p.addr = addr
	s.byAddr[addr] = p
}

// untilPlaying runs until p plays again and the server has heard it (its
// seat resumed), and returns both times.
func untilPlaying(t *testing.T, s *sim, p *peer, limit time.Duration) (playing, resumed transport.Time) {
	t.Helper()
	ok := s.run(s.now.Add(limit), func() bool {
		if playing == 0 && p.c.State() == transport.StatePlaying {
			playing = s.now
		}
		if resumed == 0 && len(s.serverEvents(transport.EventResumed)) > 0 {
			resumed = s.now
		}
		return playing != 0 && resumed != 0
	})
	if !ok {
		t.Fatalf("%v: not playing again within %v: client %v %q %+v", s, limit, p.c.State(), p.c.LastError(), p.c.Stats())
	}
	return playing, resumed
}

// A link cut for 5 s, from the same address and from another: the server
// holds the seat after HoldAfter of silence, the client resumes after
// ResumeAfter with the same token and takes back the same player number
// once the link is back; nobody leaves. The time from the link's return to
// playing is logged.
func TestRejoinAfterCut(t *testing.T) {
	for i, move := range []bool{false, true} {
		name := map[bool]string{false: "same address", true: "new address"}[move]
		t.Run(name, func(t *testing.T) {
			seed := uint64(0x8000 + i)
			s, p := rejoinSim(t, seed, 10*time.Second)
			player := p.c.Player()
			cutAt := s.now
			if move {
				moveTo(s, p, netip.MustParseAddrPort("198.51.100.9:51000"))
			}
			back := cut(s, p, 5*time.Second)
			playing, resumed := untilPlaying(t, s, p, 2*time.Second)
			st, cst := s.srv.Stats(), p.c.Stats()
			held := s.serverEvents(transport.EventHeld)
			rejoined := s.serverEvents(transport.EventRejoined)
			t.Logf("%v", s)
			t.Logf("held %+v rejoined %+v; client %+v", held, rejoined, cst)
			t.Logf("link back to client playing %v, to server hearing it %v, link broadband (~80 ms round trip)",
				time.Duration(playing-back), time.Duration(resumed-back))
			if p.c.Player() != player || len(s.serverEvents(transport.EventLeft)) != 0 || s.srv.PlayerCount() != 1 {
				t.Fatalf("player %d (was %d), left %+v", p.c.Player(), player, s.serverEvents(transport.EventLeft))
			}
			if len(held) != 1 || held[0].Player != player || len(rejoined) != 1 || rejoined[0].Player != player {
				t.Fatal("want one hold and one rejoin of the seat")
			}
			if move && rejoined[0].Addr != p.addr {
				t.Fatalf("rejoined from %v, want %v", rejoined[0].Addr, p.addr)
			}
			if cst.Resumes != 1 || st.Rejoins != 1 || st.Holds != 1 {
				t.Fatalf("resumes %d rejoins %d holds %d", cst.Resumes, st.Rejoins, st.Holds)
			}
			if hold := held[0]; s.srv.Stats().Holds != 1 || cutAt == 0 || hold.Addr.IsValid() {
				t.Fatalf("hold %+v", hold)
			}
			if time.Duration(playing-back) > 500*time.Millisecond {
				t.Fatalf("took %v from the link's return to playing", time.Duration(playing-back))
			}
			// Data flows both ways again over the new connection.
			up, down := exchange(t, s, p, time.Second)
			if up < 60 || down < 60 || st.Forged+cst.Forged != 0 {
				t.Fatalf("after the rejoin: up %d down %d, drops %+v %+v", up, down, st.Drops, cst.Drops)
			}
			s.wantSeats(1)
		})
	}
}

// A link cut past the window: the seat leaves (GoodbyeTimeout) the window
// after it was last heard, the client gives up, and the same token is
// refused as used; a fresh token for the same client id gets a new seat.
func TestRejoinPastTheWindow(t *testing.T) {
	const seed = 0x8100
	s, p := rejoinSim(t, seed, 3*time.Second)
	player := p.c.Player()
	lastHeard := s.srv.Conn(player).LastHeard()
	cut(s, p, 12*time.Second)
	left := s.serverEvents(transport.EventLeft)
	t.Logf("%v", s)
	t.Logf("left %+v; client %v %q", left, p.c.State(), p.c.LastError())
	if len(left) != 1 || left[0].Reason != handshake.GoodbyeTimeout || s.srv.PlayerCount() != 0 {
		t.Fatalf("left %+v", left)
	}
	if p.c.State() != transport.StateDisconnected {
		t.Fatalf("client %v", p.c.State())
	}
	if lastHeard == 0 {
		t.Fatal("never heard")
	}
	again := s.addClient("ada2", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed+1, nil)})
	s.run(s.now.Add(3*time.Second), func() bool { return again.c.State() != transport.StateJoining })
	joined := s.serverEvents(transport.EventJoined)
	if len(joined) != 2 || len(s.serverEvents(transport.EventRejoined)) != 0 || again.c.Player() == 0 {
		t.Fatalf("joined %+v", joined)
	}
}

// The window counts from the last datagram heard: the seat leaves at that
// time plus the window, and not before.
func TestRejoinWindowDeadline(t *testing.T) {
	const seed = 0x8180
	s, p := rejoinSim(t, seed, 3*time.Second)
	s.onEvery = nil
	player := p.c.Player()
	p.cutUp, p.cutDown = true, true
	var lastHeard, leftAt transport.Time
	s.run(s.now.Add(5*time.Second), func() bool {
		if len(s.serverEvents(transport.EventLeft)) > 0 {
			leftAt = s.now
			return true
		}
		lastHeard = s.srv.Conn(player).LastHeard()
		return false
	})
	t.Logf("%v: last heard %v, left %v", s, time.Duration(lastHeard), time.Duration(leftAt))
	if leftAt != lastHeard.Add(3*time.Second) {
		t.Fatalf("left at %v, want %v", time.Duration(leftAt), time.Duration(lastHeard.Add(3*time.Second)))
	}
}

// A second use of a seated client id at once, with the same token or a
// fresh one for the same id, is refused (ReasonClientSeated) while the
// seat is heard; the playing client keeps its seat.
func TestRejoinRefusesAConcurrentUse(t *testing.T) {
	const seed = 0x8200
	s, p := rejoinSim(t, seed, 10*time.Second)
	player := p.c.Player()
	copied := s.addClient("copy", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed, nil)})
	fresh := s.addClient("fresh", memnet.Broadband, transport.ClientConfig{Token: mintToken(t, sealKey, 7, "ada", seed+1, nil)})
	s.runFor(2 * time.Second)
	t.Logf("%v", s)
	for _, q := range []*peer{copied, fresh} {
		r, refused := q.c.Refusal()
		t.Logf("%s: %v %+v", q.name, q.c.State(), r)
		if !refused || r.Reason != handshake.ReasonClientSeated {
			t.Fatalf("%s not refused as seated: %+v", q.name, r)
		}
	}
	if p.c.State() != transport.StatePlaying || p.c.Player() != player || s.srv.Stats().Rejoins != 0 || s.srv.Stats().Holds != 0 {
		t.Fatalf("the playing client was disturbed: %v, stats %+v", p.c.State(), s.srv.Stats())
	}
	s.wantSeats(1)
}

// A client told its link changed resumes at once with a token minted
// afresh for its client id, from its new address; the server seals with
// the new token's keys from the rejoin on.
func TestRejoinWithARefreshedToken(t *testing.T) {
	const seed = 0x8300
	s, p := rejoinSim(t, seed, 10*time.Second)
	player := p.c.Player()
	p.cutUp, p.cutDown = true, true
	s.runFor(transport.HoldAfter) // the old address falls silent
	moveTo(s, p, netip.MustParseAddrPort("198.51.100.10:52000"))
	p.cutUp, p.cutDown = false, false
	back := s.now
	if !p.c.Resume(s.now, mintToken(t, sealKey, 7, "ada", seed+1, nil)) {
		t.Fatal("Resume refused")
	}
	s.flush()
	playing, _ := untilPlaying(t, s, p, 2*time.Second)
	st, cst := s.srv.Stats(), p.c.Stats()
	t.Logf("%v; client %+v; resumed to playing in %v", s, cst, time.Duration(playing-back))
	if p.c.Player() != player || st.Rejoins != 1 {
		t.Fatalf("player %d (was %d), rejoins %d", p.c.Player(), player, st.Rejoins)
	}
	up, down := exchange(t, s, p, time.Second)
	if up < 60 || down < 60 || s.srv.Stats().Forged+p.c.Stats().Forged != 0 {
		t.Fatalf("after the rejoin: up %d down %d, drops %+v %+v", up, down, s.srv.Stats().Drops, p.c.Stats().Drops)
	}
}

// Without a key the server keeps no seat: a cut past HoldAfter holds
// nothing, and the seat leaves at the connection timeout as before.
func TestNoRejoinWithoutAKey(t *testing.T) {
	const seed = 0x8400
	s := newSim(t, seed, transport.ServerConfig{RejoinWindow: 10 * time.Second})
	p := s.addClient("ada", memnet.Broadband, transport.ClientConfig{})
	s.join(3 * time.Second)
	exchange(t, s, p, time.Second)
	cut(s, p, 11*time.Second)
	t.Logf("%v; client %v %q", s, p.c.State(), p.c.LastError())
	if s.srv.Stats().Holds != 0 || len(s.serverEvents(transport.EventLeft)) != 1 || p.c.Stats().Resumes != 0 {
		t.Fatalf("holds %d, left %+v", s.srv.Stats().Holds, s.serverEvents(transport.EventLeft))
	}
}
