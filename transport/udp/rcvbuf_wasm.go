//go:build js || wasip1

package udp

// getRcvbuf returns 0: a WebAssembly build has no socket options to read
// (it opens no UDP socket; it is there so the client compiles for a
// browser).
func getRcvbuf(fd uintptr) int { return 0 }
