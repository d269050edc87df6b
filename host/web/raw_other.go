//go:build !linux

package web

import "net"

// muxConn is c as the ICE mux is given it (raw_linux.go).
func muxConn(c *net.UDPConn) net.PacketConn { return c }

// wsConn is c as the WebSocket library is given it (raw_linux.go).
func wsConn(c net.Conn) net.Conn { return c }
