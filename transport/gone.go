package transport

import (
	"net/netip"

	"vkm/transport/handshake"
)

// LinkGone ends the seat at addr because the link beneath it has ended,
// where the carrier knows it has (a browser's WebTransport session, WebRTC
// connection or WebSocket closing at a gateway) rather than leaving the
// seat to time out. The caller must own addr: only a carrier's own peer
// address is ever passed, never one a datagram could claim.
//
// reason is what the end is taken for. handshake.GoodbyeTimeout is a link
// that failed or went quiet: it does what the connection timeout would,
// sooner, so a seat kept for a rejoin is held (EventHeld) and its client
// may take it back over a new link within the rejoin window. Any other
// reason (handshake.GoodbyeQuit for a client that closed its link) removes
// the seat as a Goodbye from it with that reason would (EventLeft). No
// Goodbye is sent: there is no link to send it on. It reports whether a
// seat left.
func (s *Server) LinkGone(addr netip.AddrPort, reason handshake.GoodbyeReason, now Time) bool {
	s.out.reuse()
	s.events.reuse()
	p := s.byAddr[addr]
	if p == nil {
		return false
	}
	if reason == handshake.GoodbyeTimeout && s.rejoinable(p) {
		if !p.held {
			s.hold(p)
		}
		return false
	}
	s.remove(p, reason)
	return true
}
