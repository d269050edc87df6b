package session

import (
	"net/netip"

	"vkm/transport"
	"vkm/transport/handshake"
)

// LinkGone tells the session that the link to addr has ended beneath the
// transport (transport.Server.LinkGone): a browser's connection at the web
// gateway closed or failed. The seat there leaves (or, for a failed link
// with a rejoin window, is held) now, as Receive would act on a Goodbye.
// Only a carrier's own peer address may be passed, never a UDP one.
func (s *Server) LinkGone(addr netip.AddrPort, reason handshake.GoodbyeReason, now transport.Time) {
	s.now = now
	s.net.LinkGone(addr, reason, now)
	s.events()
}
