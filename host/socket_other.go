//go:build !(linux && (amd64 || arm64))

package host

// listenServer opens a server's socket, read by a goroutine of its own.
func listenServer(addr string, _ bool) (socket, error) { return listenUDP(addr) }
