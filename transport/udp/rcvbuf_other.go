//go:build !windows && !js && !wasip1

package udp

import "golang.org/x/sys/unix"

// getRcvbuf returns the socket's SO_RCVBUF, or 0 if it cannot be read.
func getRcvbuf(fd uintptr) int {
	n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF)
	if err != nil {
		return 0
	}
	return n
}
