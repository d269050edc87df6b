// Package wire is the bottom of vkm's protocol stack: a bit writer and reader
// that every message is encoded with, and the wrap-safe arithmetic on the
// 16-bit sequence numbers the connection stamps on each datagram.
//
// It knows nothing of sockets, connections or entities. The format it
// produces is described in docs/protocol.md ("Bits" and "Sequence numbers").
//
// # Bit order
//
// Bits are packed least significant first: the first bit written lands in
// bit 0 of byte 0, and a value of n bits is written from its lowest bit up.
// A field that happens to start on a byte boundary and is a whole number of
// bytes wide therefore reads as little-endian bytes, which is what the CPUs
// vkm runs on load natively; packing never reverses bits one at a time. The
// unused high bits of a final partial byte are zero.
package wire
