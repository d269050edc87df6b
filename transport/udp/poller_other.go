//go:build !linux

package udp

import "net"

// PollerPacketConn is c as the ICE mux is given it (poller_linux.go); elsewhere, c itself.
func PollerPacketConn(c *net.UDPConn) net.PacketConn { return c }

// PollerStreamConn is c as the WebSocket library is given it (poller_linux.go); elsewhere, c itself.
func PollerStreamConn(c net.Conn) net.Conn { return c }
