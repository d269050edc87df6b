//go:build !(linux && (amd64 || arm64))

package udp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// BatchServer is a server's endpoint that its owner reads and writes
// itself, in batches (recvmmsg and sendmmsg). This system has no such
// calls here: ListenBatch always fails, and a BatchServer is only ever
// the zero value, a closed endpoint whose every call fails.
type BatchServer struct{}

// ListenBatch fails here with an error matching errors.ErrUnsupported: the
// caller falls back to Listen.
func ListenBatch(addr string) (*BatchServer, error) {
	return nil, fmt.Errorf("udp: listen %q: batched reads: %w", addr, errors.ErrUnsupported)
}

// ReadWaiting fails: the endpoint is closed.
func (*BatchServer) ReadWaiting(func(from netip.AddrPort, datagram []byte)) error {
	return net.ErrClosed
}

// Queue fails: the endpoint is closed.
func (*BatchServer) Queue([]byte, netip.AddrPort) error { return net.ErrClosed }

// Flush fails: the endpoint is closed.
func (*BatchServer) Flush() error { return net.ErrClosed }

// WriteTo fails: the endpoint is closed.
func (*BatchServer) WriteTo([]byte, netip.AddrPort) error { return net.ErrClosed }

// LocalAddr returns the zero address.
func (*BatchServer) LocalAddr() netip.AddrPort { return netip.AddrPort{} }

// Close fails: the endpoint is closed.
func (*BatchServer) Close() error { return net.ErrClosed }
