//go:build !windows

package udp

import "net"

// ignoreConnReset does nothing here: outside Windows an unconnected socket is
// not told about ICMP "port unreachable", and a connected one's report is a
// read error that Serve counts and reads past.
func ignoreConnReset(*net.UDPConn) error { return nil }
