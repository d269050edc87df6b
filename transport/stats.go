package transport

// Stats counts what a Conn has done since it was made. Byte counts cover the
// connection part of each datagram (header and payload); the outer message
// header and UDP/IP overhead are the caller's to add. The zero value is an
// empty count. Stats is a plain value, safe to copy.
type Stats struct {
	PacketsSent     uint64 // datagrams sealed
	BytesSent       uint64 // bytes sealed, header included
	PacketsReceived uint64 // datagrams accepted by Open
	BytesReceived   uint64 // bytes accepted by Open, header included
	Stale           uint64 // refused: not newer than the newest accepted (late, reordered or duplicated)
	Malformed       uint64 // refused: too short, wrong length, or acknowledging a packet never sent
	Acked           uint64 // sent packets the peer acknowledged
	Lost            uint64 // sent packets that can no longer be acknowledged (see Conn.Lost)
}
