//go:build !linux

package web

import "net"

// muxConn is c as the ICE mux is given it (rawudp_linux.go).
func muxConn(c *net.UDPConn) net.PacketConn { return c }
