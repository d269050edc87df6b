package transport

import (
	"net/netip"
	"time"
)

// This file gives the external tests (package transport_test, which can use
// memnet) a look inside a Server.

// StateSizes returns the lengths of the Server's per-player structures: the
// seats by address, by number, and the list Poll walks. A join that proved
// nothing must leave all three as they were.
func (s *Server) StateSizes() (byAddr, byNum, seated int) {
	return len(s.byAddr), len(s.byNum), len(s.seated)
}

// GateToken returns the token the Server's cookie gate gives addr and a
// join attempt's nonce at now.
func (s *Server) GateToken(addr netip.AddrPort, nonce uint64, now Time) uint64 {
	return s.gate.Token(addr, nonce, time.Duration(now))
}

// SeatToken returns the token a seated player's datagrams must carry, or 0.
func (s *Server) SeatToken(player uint16) uint64 {
	if p := s.byNum[player]; p != nil {
		return p.token
	}
	return 0
}

// QueueCaps returns the capacities of the Server's reused buffers, which
// must stay bounded when the caller drains them.
func (s *Server) QueueCaps() (out, events int) {
	return cap(s.out.buf) + cap(s.out.at) + cap(s.out.to), cap(s.events.buf) + cap(s.events.q)
}

// AttemptNonce returns the nonce of the Client's current join attempt.
func (c *Client) AttemptNonce() uint64 { return c.nonce }
