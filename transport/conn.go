package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"vkm/wire"
)

// MaxDatagram is the largest datagram vkm ever sends, in bytes, counting the
// caller's message header and the connection header but not UDP's or IP's.
// It is a protocol constant: 1200 bytes plus the IPv6
// (40) and UDP (8) headers fit the 1280-byte minimum MTU every IPv6 link must
// carry, and the usual 1500 of Ethernet paths with room for tunnels, so no
// path we care about has to fragment it. A fragmented datagram is lost when
// any fragment is, and some middleboxes drop fragments outright.
const MaxDatagram = 1200

// HeaderLen is the size in bytes of the connection header Seal writes in
// front of each payload. It is a protocol constant. The layout, all fields
// little-endian (the byte order wire's bit packing gives aligned fields):
//
//	offset 0  sequence      uint16  this datagram's number
//	offset 2  ack           uint16  newest sequence received from the peer
//	offset 4  ack bits      uint32  bit i set: ack-1-i was received too
//	offset 8  payload len   uint16  bytes that follow; must match exactly
//
// The payload length costs two bytes a datagram and makes a truncated or
// padded datagram detectable here, before any decoder sees its payload.
const HeaderLen = 10

// ackBits is how many sequences before the newest one the ack field reports.
// It is a protocol constant (the width of the field): each acknowledgement
// rides 33 consecutive datagrams, so it survives heavy loss on the way back.
const ackBits = 32

// Tuning constants: defaults and internal sizes, not part of the wire format.
const (
	// DefaultTimeout is Config.Timeout when zero: a peer silent this long is
	// gone. Ten seconds rides out a Wi-Fi roam or a stalled frame without
	// keeping a dead seat for long.
	DefaultTimeout = 10 * time.Second

	// DefaultKeepAlive is Config.KeepAlive when zero. Four datagrams a second
	// keep acknowledgements and the RTT estimate flowing on an idle link at a
	// negligible cost, and give the peer's Timeout forty chances.
	DefaultKeepAlive = 250 * time.Millisecond

	// DefaultLossWindow is Config.LossWindow when zero: four seconds of
	// datagrams at 64 a second, long enough for a stable percentage and short
	// enough to follow a link that gets worse.
	DefaultLossWindow = 256

	// sentRing is how many sent packets a Conn remembers (send time and
	// fate). 1024 is 16 s at 64 a second: far longer than anything asks
	// about a packet's fate, and the cap on Config.LossWindow. A power of two
	// so a sequence maps to its slot with a mask.
	sentRing = 1024

	// initialRTO stands in for the retransmission timeout before the first
	// RTT sample, as RFC 6298 section 2.1 does.
	initialRTO = time.Second

	// minRTOSpread is the least margin RTO adds to the smoothed RTT. An
	// acknowledgement waits for the peer's next datagram, up to one interval
	// at 64 a second, and on a steady link RTTVAR alone can shrink below that.
	minRTOSpread = 16 * time.Millisecond
)

// ErrStale is returned by Open for a datagram whose sequence is not newer
// than the newest one accepted. At this layer a reordered datagram and a late
// duplicate cannot be told apart, and applying the older of two would mix two
// moments of the peer's world, so both are refused.
var ErrStale = errors.New("transport: stale or duplicate datagram")

// ErrMalformed is returned by Open for a datagram that is not a valid
// connection datagram. Callers drop and count it; nothing of it is applied.
var ErrMalformed = errors.New("transport: malformed datagram")

// ErrTooLarge is returned by Seal when the datagram would exceed MaxDatagram.
var ErrTooLarge = errors.New("transport: datagram would exceed MaxDatagram")

var (
	errShort     = fmt.Errorf("%w: shorter than the header", ErrMalformed)
	errLength    = fmt.Errorf("%w: payload length does not match", ErrMalformed)
	errOversize  = fmt.Errorf("%w: larger than MaxDatagram", ErrMalformed)
	errAckUnsent = fmt.Errorf("%w: acknowledges a packet never sent", ErrMalformed)
)

// Config tunes a Conn. The zero value gives the defaults; both ends need not
// agree on any of it.
type Config struct {
	// Timeout is how long a peer may stay silent before TimedOut reports it
	// gone. Zero or less means DefaultTimeout.
	Timeout time.Duration

	// KeepAlive is how long the caller may go without sending before
	// NeedsKeepAlive asks for a datagram (an empty payload will do), so the
	// peer keeps hearing acknowledgements. Zero or less means
	// DefaultKeepAlive.
	KeepAlive time.Duration

	// LossWindow is how many of the most recent sent packets Loss considers.
	// Zero or less means DefaultLossWindow; more than 1024 means 1024.
	LossWindow int
}

func (cfg Config) withDefaults() Config {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.LossWindow <= 0 {
		cfg.LossWindow = DefaultLossWindow
	}
	cfg.LossWindow = min(cfg.LossWindow, sentRing)
	return cfg
}

// Conn is one end of a connection: the sequencing, acknowledgement and
// measurement of the datagrams it carries. It never resends anything;
// acknowledgements ride the datagrams the caller was sending anyway, and the
// caller (replication, prediction) decides what a lost packet means.
//
// A Conn is sans-IO. The caller strips and checks its outer message header
// (token, kind) before handing the rest to Open, and puts one in front of what
// Seal produces; it arms one timer at NextDeadline and then asks TimedOut and
// NeedsKeepAlive.
//
//	caller                       Conn
//	  │ Seal(dst, payload, now) ──▶ stamp seq, ack, ack bits; remember send time
//	  │ Open(datagram, now) ──────▶ refuse stale/malformed; record arrival;
//	  │                             mark acked packets, sample RTT, judge losses
//	  │ NewlyAcked() ◀──────────── sequences the last Open confirmed
//	  │ NextDeadline() ◀────────── keep-alive or timeout, whichever is first
//
// All state lives in fixed-size rings, so neither Seal nor Open allocates.
// Use NewConn; the zero value is not ready. A Conn is not safe for concurrent
// use: one goroutine (the one that owns the session) drives it.
type Conn struct {
	cfg Config

	next       wire.Seq // sequence the next Seal stamps
	sent       [sentRing]sentPacket
	lastSentAt Time

	recvNewest wire.Seq // newest sequence accepted from the peer
	recvBits   uint32   // bit i: recvNewest-1-i was accepted
	haveRecv   bool
	lastRecvAt Time // when a datagram was last accepted, or NewConn's now

	lastAckAt   Time     // when the peer last acknowledged one, or NewConn's now
	newestAcked wire.Seq // newest of our sequences the peer has acknowledged
	haveAcked   bool
	judgeNext   wire.Seq // oldest sequence not yet judged by the reach rule

	newly  [ackBits + 1]wire.Seq
	nNewly int

	srtt, rttvar time.Duration
	haveRTT      bool

	stats Stats
}

// NewConn returns a Conn that starts at now: its Timeout counts from now and
// it wants its first datagram sent at once.
func NewConn(cfg Config, now Time) *Conn {
	c := &Conn{cfg: cfg.withDefaults(), lastRecvAt: now, lastAckAt: now}
	c.lastSentAt = now.Add(-c.cfg.KeepAlive)
	c.recvNewest = ^wire.Seq(0) // 65535, so the first header says "nothing received": ack 65535, no bits
	return c
}

// MaxPayload returns how many payload bytes fit in one datagram when the
// caller puts overhead bytes of its own header in front of the connection
// header (the session's 12-byte message header, for instance). It is never
// negative.
func (c *Conn) MaxPayload(overhead int) int {
	return max(0, MaxDatagram-overhead-HeaderLen)
}

// Seal appends the connection header and payload to dst and returns the
// extended slice and the sequence it was stamped with. dst is taken to hold
// the caller's outer header already: its length counts against MaxDatagram,
// and a datagram that would exceed it fails with ErrTooLarge, leaving the
// Conn unchanged. An empty payload makes a keep-alive.
func (c *Conn) Seal(dst, payload []byte, now Time) ([]byte, wire.Seq, error) {
	if len(dst)+HeaderLen+len(payload) > MaxDatagram {
		return dst, 0, ErrTooLarge
	}
	seq := c.next
	dst = binary.LittleEndian.AppendUint16(dst, uint16(seq))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(c.recvNewest))
	dst = binary.LittleEndian.AppendUint32(dst, c.recvBits)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(payload)))
	dst = append(dst, payload...)

	c.recordSent(seq, now)
	c.next++
	c.lastSentAt = now
	c.stats.PacketsSent++
	c.stats.BytesSent += uint64(HeaderLen + len(payload))
	return dst, seq, nil
}

// header is a parsed connection header.
type header struct {
	seq, ack wire.Seq
	bits     uint32
}

// parseHeader splits a datagram into its header and payload.
func parseHeader(b []byte) (header, []byte, error) {
	if len(b) > MaxDatagram {
		return header{}, nil, errOversize
	}
	if len(b) < HeaderLen {
		return header{}, nil, errShort
	}
	h := header{
		seq:  wire.Seq(binary.LittleEndian.Uint16(b[0:])),
		ack:  wire.Seq(binary.LittleEndian.Uint16(b[2:])),
		bits: binary.LittleEndian.Uint32(b[4:]),
	}
	if int(binary.LittleEndian.Uint16(b[8:])) != len(b)-HeaderLen {
		return header{}, nil, errLength
	}
	return h, b[HeaderLen:], nil
}

// Open takes a datagram from the peer (the connection part, after the caller
// has stripped and checked its outer header) and returns its payload, which
// aliases datagram.
//
// It refuses, with an error wrapping ErrStale, a datagram not newer than the
// newest it has accepted, and, wrapping ErrMalformed, one with a bad header
// or acknowledging a sequence this end never sent. A refused datagram changes
// nothing but the Stats counters; in particular its acknowledgements are not
// believed and it does not count as hearing from the peer. An accepted one
// moves the receive window, confirms what its ack field reports (see
// NewlyAcked) and feeds the RTT estimate.
func (c *Conn) Open(datagram []byte, now Time) ([]byte, error) {
	c.nNewly = 0
	h, payload, err := parseHeader(datagram)
	if err != nil {
		c.stats.Malformed++
		return nil, err
	}
	if wire.Diff(h.ack, c.next-1) > 0 {
		// An ack ahead of the last sequence sent. Before anything is sent
		// c.next-1 is 65535, which is exactly what a peer that has heard
		// nothing puts in its ack field.
		c.stats.Malformed++
		return nil, errAckUnsent
	}
	if c.haveRecv && !h.seq.Newer(c.recvNewest) {
		c.stats.Stale++
		return nil, ErrStale
	}
	c.markReceived(h.seq)
	c.lastRecvAt = now
	c.stats.PacketsReceived++
	c.stats.BytesReceived += uint64(len(datagram))
	c.processAcks(h.ack, h.bits, now)
	return payload, nil
}

// markReceived slides the receive window forward to seq, which is newer than
// recvNewest (or the first sequence heard).
func (c *Conn) markReceived(seq wire.Seq) {
	if !c.haveRecv {
		c.haveRecv = true
		c.recvNewest, c.recvBits = seq, 0
		return
	}
	d := wire.Diff(seq, c.recvNewest) // 1..32767
	if d <= ackBits {
		// The old newest becomes bit d-1. Shifting a uint32 by 32 gives 0 in
		// Go, so d == 32 needs no special case.
		c.recvBits = c.recvBits<<d | 1<<(d-1)
	} else {
		c.recvBits = 0 // everything before is out of the field's reach
	}
	c.recvNewest = seq
}

// NeedsKeepAlive reports whether nothing has been sent for KeepAlive, so the
// caller should Seal something now (an empty payload will do).
func (c *Conn) NeedsKeepAlive(now Time) bool {
	return now.Sub(c.lastSentAt) >= c.cfg.KeepAlive
}

// TimedOut reports whether no datagram has been accepted for Timeout (counted
// from NewConn when none has ever been). The caller ends the connection.
func (c *Conn) TimedOut(now Time) bool {
	return now.Sub(c.lastRecvAt) >= c.cfg.Timeout
}

// NextDeadline returns when the Conn next needs attention if nothing else
// happens: the earlier of the keep-alive and the timeout. At or after it the
// caller checks TimedOut, then NeedsKeepAlive. Every Seal and accepted Open
// can move it later.
func (c *Conn) NextDeadline() Time {
	return min(c.lastSentAt.Add(c.cfg.KeepAlive), c.lastRecvAt.Add(c.cfg.Timeout))
}

// AckSilent reports whether the peer has acknowledged nothing this end
// sent for BackoffAfter (counted from NewConn when it never has): it hears
// nothing, or says nothing back, so a send loop sends it less.
func (c *Conn) AckSilent(now Time) bool { return now.Sub(c.lastAckAt) >= BackoffAfter }

// keepAliveAt returns when NeedsKeepAlive turns true.
func (c *Conn) keepAliveAt() Time { return c.lastSentAt.Add(c.cfg.KeepAlive) }

// LastHeard returns when a datagram was last accepted, or NewConn's now
// when none has been.
func (c *Conn) LastHeard() Time { return c.lastRecvAt }

// Stats returns the counters so far.
func (c *Conn) Stats() Stats { return c.stats }
