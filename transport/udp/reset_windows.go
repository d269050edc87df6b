//go:build windows

package udp

import (
	"net"
	"syscall"
	"unsafe"
)

// sioUDPConnReset is SIO_UDP_CONNRESET (_WSAIOW(IOC_VENDOR, 12)).
const sioUDPConnReset = syscall.IOC_IN | syscall.IOC_VENDOR | 12

// ignoreConnReset turns off the Windows behaviour that fails a socket's next
// read with WSAECONNRESET when an ICMP "port unreachable" comes back for an
// earlier send. On a server's one socket that would be a departed client
// interrupting the reads of every client still there.
func ignoreConnReset(conn *net.UDPConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = raw.Control(func(fd uintptr) {
		off := uint32(0) // FALSE: do not report
		var ret uint32
		ioErr = syscall.WSAIoctl(syscall.Handle(fd), sioUDPConnReset,
			(*byte)(unsafe.Pointer(&off)), uint32(unsafe.Sizeof(off)), nil, 0, &ret, nil, 0)
	})
	if err != nil {
		return err
	}
	return ioErr
}
