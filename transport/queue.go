package transport

import (
	"net/netip"
	"slices"
)

// span is where one queued item's bytes lie in a queue's buffer.
type span struct{ start, end int }

// outbox queues outgoing datagrams back to back in one buffer that is reused
// once the caller has taken them all, so a steady session sends without
// allocating. The bytes handed out alias that buffer.
type outbox struct {
	buf  []byte
	to   []netip.AddrPort
	at   []span
	head int
}

// reuse empties the outbox if everything in it has been taken, so its buffer
// is written again from the start. Every method that may queue a datagram
// calls it first; this is what limits how long taken bytes stay valid.
func (o *outbox) reuse() {
	if o.head == len(o.at) {
		o.buf, o.to, o.at, o.head = o.buf[:0], o.to[:0], o.at[:0], 0
	}
}

// open starts a datagram and returns the buffer to append it to. The buffer
// has room for MaxDatagram more bytes, so an append that stays within the
// limit never moves it (Conn.Seal relies on this, see sealData).
func (o *outbox) open() []byte {
	o.buf = slices.Grow(o.buf, MaxDatagram)
	return o.buf
}

// commit queues the datagram appended to buf since open (buf must be what
// open returned, extended by appending).
func (o *outbox) commit(to netip.AddrPort, buf []byte) {
	o.at = append(o.at, span{len(o.buf), len(buf)})
	o.to = append(o.to, to)
	o.buf = buf
}

// next returns the oldest datagram not yet taken. Its capacity is cut to its
// length, so a caller's append cannot overwrite the datagram after it.
func (o *outbox) next() (netip.AddrPort, []byte, bool) {
	if o.head == len(o.at) {
		return netip.AddrPort{}, nil, false
	}
	s, to := o.at[o.head], o.to[o.head]
	o.head++
	return to, o.buf[s.start:s.end:s.end], true
}

// eventQueue queues events of type E, each with an optional payload copied
// into one reused buffer, under the same reuse rule as outbox.
type eventQueue[E any] struct {
	q    []E
	at   []span
	buf  []byte
	head int
}

// reuse empties the queue if every event has been taken.
func (e *eventQueue[E]) reuse() {
	if e.head == len(e.q) {
		clear(e.q) // drop references (names) held by taken events
		e.q, e.at, e.buf, e.head = e.q[:0], e.at[:0], e.buf[:0], 0
	}
}

// push queues ev with a copy of payload.
func (e *eventQueue[E]) push(ev E, payload []byte) {
	start := len(e.buf)
	e.buf = append(e.buf, payload...)
	e.q = append(e.q, ev)
	e.at = append(e.at, span{start, len(e.buf)})
}

// next returns the oldest event not yet taken and its payload (nil when
// empty), which aliases the queue's buffer.
func (e *eventQueue[E]) next() (E, []byte, bool) {
	if e.head == len(e.q) {
		var zero E
		return zero, nil, false
	}
	ev, s := e.q[e.head], e.at[e.head]
	e.head++
	if s.start == s.end {
		return ev, nil, true
	}
	return ev, e.buf[s.start:s.end:s.end], true
}
