package host

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// shareDiscoveryPort lets every server on this machine bind the discovery
// port (SO_REUSEADDR, SO_REUSEPORT): a broadcast reaches each of them.
func shareDiscoveryPort(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT, unix.SO_BROADCAST} {
			if serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, opt, 1); serr != nil {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return serr
}

// broadcastControl lets a searching client send to broadcast addresses.
func broadcastControl(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_BROADCAST, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
