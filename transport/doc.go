// Package transport is vkm's datagram link: everything between a game
// message and a UDP socket. Its heart is Conn, a sans-IO connection core that
// stamps each outgoing datagram with a sequence number and acknowledgements,
// refuses stale or duplicate arrivals, and measures round-trip time and loss
// from the acknowledgements that come back. The join handshake lives in
// transport/handshake and transport/cookie, the link simulator and an
// in-process pair in transport/memnet, and the socket in transport/udp.
//
// Nothing in this package reads a clock, sleeps, or starts a goroutine: every
// method that depends on time takes the caller's now, so the same code runs
// over a socket and in a test on a synthetic clock. The wire format is written
// down in docs/protocol.md ("Connection header").
package transport
