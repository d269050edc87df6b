//go:build !linux

package host

import "syscall"

// Elsewhere than Linux the discovery port is not shared (only the first
// server on a machine answers) and the system's defaults are kept.
func shareDiscoveryPort(network, address string, c syscall.RawConn) error { return nil }

func broadcastControl(network, address string, c syscall.RawConn) error { return nil }
