package transport

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"vkm/wire"
)

// Protocol constants of the reliable section (docs/protocol.md, "Reliable
// messages"). A section is a count byte and that many fragments; a fragment
// is a 10-byte header and its data:
//
//	offset 0  message   uint16  low 16 bits of the message's number
//	offset 2  size      uint24  the whole message's length in bytes
//	offset 5  offset    uint24  where this fragment's bytes start in it
//	offset 8  length    uint16  data bytes that follow
//	offset 10 data
const (
	// ReliableSectionHeader is the section's fixed part: one byte counting
	// its fragments, 1..255. It is never 0, since a section with nothing in
	// it is not written.
	ReliableSectionHeader = 1

	// ReliableFragmentHeader is the size of each fragment's header. Fixed
	// widths rather than varints: ten bytes is 1% of a typical fragment, and
	// a constant makes "does anything fit" a comparison.
	ReliableFragmentHeader = 10

	// maxSectionFragments is the most fragments one section counts: the
	// count is a byte. A 1200-byte datagram holds at most 109 fragments
	// (empty messages, header only), so the cap never binds there.
	maxSectionFragments = 255

	// maxReliableSize is the largest message size the 24-bit size and
	// offset fields can state: 16 MiB − 1.
	maxReliableSize = 1<<24 - 1

	// maxFragmentData is the most data one fragment carries: its length is
	// 16 bits. Only a budget larger than any datagram reaches it.
	maxFragmentData = 1<<16 - 1

	// maxReliableMessages caps ReliableConfig.Messages. A message number
	// travels as its low 16 bits, and the receiver rebuilds it from the
	// signed distance to the next one it expects; that distance lies in
	// [-Messages, Messages) for an honest peer (see ReadSection), which
	// int16 covers while Messages is at most 32768.
	maxReliableMessages = 1 << 15
)

// Tuning constants: defaults of ReliableConfig, and an internal bound.
const (
	// DefaultReliableMaxMessage is ReliableConfig.MaxMessage when zero:
	// 4 MiB. A project's whole script bundle, the largest thing the channel
	// is for, is tens to hundreds of KiB; 4 MiB leaves ample room and still
	// arrives in about a minute on the bytes snapshots leave free.
	DefaultReliableMaxMessage = 4 << 20

	// DefaultReliableWindow is ReliableConfig.Window when zero: 8 MiB, two
	// largest messages, so one can be in flight while the next is queued.
	// It bounds each end's memory per connection (see ReliableConfig).
	DefaultReliableWindow = 8 << 20

	// DefaultReliableMessages is ReliableConfig.Messages when zero. The
	// channel carries rare, large things; 1024 messages queued and not yet
	// acknowledged is far past honest use, and bounds the receiver's
	// per-message bookkeeping against a peer that opens many small ones.
	DefaultReliableMessages = 1024

	// maxReliableRecords bounds the sent sections awaiting an answer. It is
	// the Conn's record of sent packets (sentRing): an older packet's fate
	// is forgotten anyway, so its fragments are queued again.
	maxReliableRecords = sentRing
)

// ErrReliableFull is returned by Reliable.Send when the message would take
// the bytes or messages queued and not yet acknowledged past the window. The
// peer is not taking what it is sent (or the caller sends faster than the
// link carries); the caller ends the connection.
var ErrReliableFull = errors.New("transport: reliable send window full")

// ErrReliableTooLarge is returned by Reliable.Send for a message over
// ReliableConfig.MaxMessage.
var ErrReliableTooLarge = errors.New("transport: reliable message over the maximum size")

// ErrReliableProtocol is wrapped by every error ReadSection returns: the
// section is malformed, or says something an honest peer never says (a
// message too large or too far ahead, more than the window to reassemble,
// fragments that disagree). The caller ends the connection (a Goodbye with
// the protocol reason); the section cannot just be dropped, because the Conn
// has acknowledged its packet (see Reliable).
var ErrReliableProtocol = errors.New("transport: reliable section violates the protocol")

var (
	errRelShort     = fmt.Errorf("%w: truncated", ErrReliableProtocol)
	errRelEmpty     = fmt.Errorf("%w: no fragments", ErrReliableProtocol)
	errRelFragment  = fmt.Errorf("%w: fragment outside its message", ErrReliableProtocol)
	errRelTooLarge  = fmt.Errorf("%w: message over the maximum size", ErrReliableProtocol)
	errRelAhead     = fmt.Errorf("%w: message too far ahead", ErrReliableProtocol)
	errRelWindow    = fmt.Errorf("%w: reassembly over the window", ErrReliableProtocol)
	errRelDisagree  = fmt.Errorf("%w: fragments of one message disagree", ErrReliableProtocol)
	errRelBadConfig = errors.New("transport: reliable config out of range")
)

// ReliableConfig sets a Reliable's limits. The zero value gives the
// defaults. Both ends of a connection must use the same values (a receiver's
// may be larger): the receiver refuses what the sender's limits allow beyond
// its own. With them, a Reliable holds at most about 9/8 of Window bytes on
// each side (data plus a bit per byte of bookkeeping), plus the messages
// delivered and not yet taken by Receive.
type ReliableConfig struct {
	// MaxMessage is the largest message, in bytes, Send accepts and
	// ReadSection believes. Zero means DefaultReliableMaxMessage; it must be
	// under 16 MiB (the size field is 24 bits).
	MaxMessage int

	// Window bounds, on the sending side, the bytes of messages queued and
	// not yet wholly acknowledged (counted from the oldest such message to
	// the newest, as Pending reports), and on the receiving side the bytes
	// of messages held for reassembly. Zero means DefaultReliableWindow, or
	// MaxMessage if that is larger; it must be at least MaxMessage.
	Window int

	// ReceiveWindow, when not zero, bounds the receiving side instead of
	// Window: the bytes of messages held for reassembly, and so also the
	// largest message ReadSection believes. An end that expects little or
	// nothing from its peer (a server: its clients send no messages) holds
	// that much at most for each connection, whatever the peer sends; the
	// peer's sends past it end the connection (ErrReliableProtocol).
	ReceiveWindow int

	// Messages bounds the messages queued and not yet wholly acknowledged,
	// and how far past the next message to deliver a fragment's message may
	// be. Zero means DefaultReliableMessages; it must be at most 32768.
	Messages int
}

func (cfg ReliableConfig) withDefaults() (ReliableConfig, error) {
	if cfg.MaxMessage == 0 {
		cfg.MaxMessage = DefaultReliableMaxMessage
	}
	if cfg.Window == 0 {
		cfg.Window = max(DefaultReliableWindow, cfg.MaxMessage)
	}
	if cfg.Messages == 0 {
		cfg.Messages = DefaultReliableMessages
	}
	if cfg.ReceiveWindow == 0 {
		cfg.ReceiveWindow = cfg.Window
	}
	if cfg.MaxMessage < 0 || cfg.MaxMessage > maxReliableSize || cfg.Window < cfg.MaxMessage || cfg.ReceiveWindow < 0 ||
		cfg.Messages < 1 || cfg.Messages > maxReliableMessages {
		return cfg, fmt.Errorf("%w: %+v", errRelBadConfig, cfg)
	}
	return cfg, nil
}

// AckSource answers what became of a sent packet, by its sequence, and how
// long an acknowledgement may take. *Conn satisfies it: Acked reports whether
// the peer acknowledged seq (known is false for a sequence the Conn no longer
// remembers), Lost whether seq can no longer be acknowledged, and RTO after
// how long an unanswered packet is overdue.
type AckSource interface {
	Acked(seq wire.Seq) (acked, known bool)
	Lost(seq wire.Seq) bool
	RTO() time.Duration
}

var _ AckSource = (*Conn)(nil)

// ReliableStats counts what a Reliable has done since it was made. It is a
// plain value, safe to copy.
type ReliableStats struct {
	MessagesSent      uint64 // messages Send accepted
	MessagesDelivered uint64 // messages completed in order, for Receive
	Sections          uint64 // sections bound to a packet by Sent
	FragmentsSent     uint64 // fragments bound to packets, resends included
	FragmentsResent   uint64 // of those, ones carrying bytes sent before
	BytesSent         uint64 // message bytes in those fragments
	PacketsLost       uint64 // packets with fragments the Conn judged lost or forgot, not timed out first
	PacketsTimedOut   uint64 // packets with fragments unanswered after an RTO
	FragmentsReceived uint64 // fragments read by ReadSection
	DuplicatesDropped uint64 // of those, ones bringing no byte not already held or delivered
}

// Reliable is an ordered, reliable message channel carried in the sections a
// caller adds to the datagrams of one connection, for what is not state: a
// script bundle, a chat line, a file. Every message Send accepts is delivered
// by the peer's Receive exactly once, whole, and in the order sent. One
// Reliable serves both directions of a connection: its sending side writes
// the sections of this end's datagrams, its receiving side reads the peer's.
//
// Messages are split into fragments sized to each packet's leftover budget.
// Each byte range of a message moves through these states, and a message is
// released once all its bytes, and every message before it, are
// acknowledged:
//
//	         Append, Sent                 packet acknowledged
//	queued ───────────────▶ in flight ──────────────────────▶ acknowledged
//	  ▲                         │ packet judged lost, forgotten by the Conn,
//	  └──── queued again ◀──────┘ or unanswered one RTO after (see Acknowledge)
//
// The receiver reassembles messages and delivers each once every message
// before it is complete.
//
// Each round the caller drives it like this:
//
//	sender                                     receiver
//	  Acknowledge(conn, now)  settle answered     Open(datagram) ─▶ payload
//	  Append(payload, budget, now)                ReadSection(section)
//	  Seal(payload) ─▶ seq;  Sent(seq)            Receive() until false
//
// The caller frames the section: Append writes nothing when it has nothing
// to send or no room, so the caller marks whether a section follows (put it
// last in the payload, where nothing left means none, or give it a tag or a
// length). ReadSection reports the bytes the section spans. The caller must
// hand ReadSection the section of every datagram the Conn accepted, before
// anything else might reject that datagram: the Conn has acknowledged it, so
// the peer will never send its fragments again. If the section cannot be
// read (ReadSection fails, or the rest of the payload fails to decode first)
// the connection must end.
//
// Nothing is resent by the channel's own clock: fragments ride the packets
// the caller sends anyway (snapshots and commands, 64 a second). The zero
// value is not usable; call NewReliable. A Reliable is not safe for
// concurrent use.
type Reliable struct {
	cfg   ReliableConfig
	stats ReliableStats

	// Sending side.
	queue   []*relOut    // oldest not wholly acknowledged first; numbers consecutive
	nextOut uint64       // number the next Send gives
	queued  int          // bytes of the messages in queue
	records []*relRecord // sent sections awaiting an answer, in send order
	free    []*relRecord
	draft   *relRecord // the last Append's, until Sent

	// Receiving side.
	nextIn  uint64            // number of the next message to deliver
	partial map[uint64]*relIn // messages at or past nextIn with a fragment received
	held    int               // bytes allocated for partial
	ready   [][]byte          // delivered, awaiting Receive, from readyAt
	readyAt int
}

// relOut is a message on the sending side.
type relOut struct {
	num     uint64
	size    int
	data    []byte  // nil once done
	acked   relBits // bytes acknowledged
	nAcked  int
	done    bool      // every byte (for an empty message, its one fragment) acknowledged
	next    int       // bytes [0, next) have been sent at least once
	started bool      // a first fragment has been sent (what an empty message needs)
	resend  []relSpan // ranges to send again, oldest first
}

// relIn is a message on the receiving side, being reassembled.
type relIn struct {
	data []byte
	got  relBits // bytes received
	nGot int
}

// relSpan is the byte range [lo, hi) of a message.
type relSpan struct{ lo, hi int }

// relFrag is what one sent fragment carried.
type relFrag struct {
	num    uint64
	off, n int
	resend bool
}

// relRecord is a sent section: the packet it went in and its fragments.
type relRecord struct {
	seq      wire.Seq
	at       Time
	timedOut bool // its fragments were queued again after an RTO
	frags    []relFrag
}

// NewReliable returns an empty channel with cfg's limits. It fails only for
// a config out of range (see ReliableConfig).
func NewReliable(cfg ReliableConfig) (*Reliable, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Reliable{cfg: cfg, partial: make(map[uint64]*relIn)}, nil
}

// Config returns the limits in force, defaults filled in.
func (r *Reliable) Config() ReliableConfig { return r.cfg }

// Stats returns the counters so far.
func (r *Reliable) Stats() ReliableStats { return r.stats }

// Pending returns the bytes of messages queued and not yet wholly
// acknowledged, from the oldest such message to the newest Send accepted
// (messages after the oldest count until it is acknowledged too). It is what
// the Window bounds.
func (r *Reliable) Pending() int { return r.queued }

// PendingMessages returns how many messages Pending counts. Zero means the
// peer has acknowledged everything sent so far, empty messages included.
func (r *Reliable) PendingMessages() int { return len(r.queue) }

// Buffered returns the bytes the receiving side holds for messages it cannot
// deliver yet: incomplete, or waiting for an earlier one. It never exceeds
// the Window.
func (r *Reliable) Buffered() int { return r.held }

// Send queues msg to be delivered to the peer, after every message queued
// before it. The Reliable keeps msg (the caller must not change it
// afterwards). It fails with ErrReliableTooLarge for a message over
// MaxMessage, and with ErrReliableFull when queuing it would take Pending
// past the Window or the messages queued past Messages; nothing is queued
// then.
func (r *Reliable) Send(msg []byte) error {
	switch {
	case len(msg) > r.cfg.MaxMessage:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrReliableTooLarge, len(msg), r.cfg.MaxMessage)
	case r.queued+len(msg) > r.cfg.Window:
		return fmt.Errorf("%w: %d bytes pending, %d more exceed %d", ErrReliableFull, r.queued, len(msg), r.cfg.Window)
	case len(r.queue) >= r.cfg.Messages:
		return fmt.Errorf("%w: %d messages pending", ErrReliableFull, len(r.queue))
	}
	r.queue = append(r.queue, &relOut{num: r.nextOut, size: len(msg), data: msg, acked: newRelBits(len(msg))})
	r.nextOut++
	r.queued += len(msg)
	r.stats.MessagesSent++
	return nil
}

// Append appends to dst a section of at most budget bytes for the packet
// about to be sealed, and returns the extended slice. Fragments go in message
// order, each message's resends before its bytes never sent, so the message
// the receiver waits for comes first. It appends nothing when nothing waits
// to be sent or budget cannot hold a section with one fragment (11 bytes, 12
// with a byte of data).
//
// What went in is remembered as a draft until Sent binds it to the packet's
// sequence. A draft not followed by Sent (the packet was never sent) is
// taken back at the next Append and its fragments are queued again.
func (r *Reliable) Append(dst []byte, budget int, now Time) []byte {
	r.takeBackDraft()
	room := budget - ReliableSectionHeader
	if room < ReliableFragmentHeader || len(r.queue) == 0 {
		return dst
	}
	rec := r.newRecord()
	start := len(dst)
	dst = append(dst, 0) // the count, filled in below
	for _, m := range r.queue {
		for len(rec.frags) < maxSectionFragments && room >= ReliableFragmentHeader {
			off, n, resend, ok := m.nextFragment(room - ReliableFragmentHeader)
			if !ok {
				break
			}
			dst = appendRelFragment(dst, m, off, n)
			room -= ReliableFragmentHeader + n
			rec.frags = append(rec.frags, relFrag{num: m.num, off: off, n: n, resend: resend})
		}
	}
	if len(rec.frags) == 0 {
		r.free = append(r.free, rec)
		return dst[:start]
	}
	dst[start] = byte(len(rec.frags))
	rec.at = now
	r.draft = rec
	return dst
}

// appendRelFragment appends the fragment of m holding bytes [off, off+n).
func appendRelFragment(dst []byte, m *relOut, off, n int) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, uint16(m.num))
	dst = appendRelUint24(dst, m.size)
	dst = appendRelUint24(dst, off)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
	return append(dst, m.data[off:off+n]...)
}

func appendRelUint24(dst []byte, v int) []byte {
	return append(dst, byte(v), byte(v>>8), byte(v>>16))
}

func relUint24(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }

// nextFragment picks the bytes of m the next fragment carries, at most max
// of them, and marks them taken: the first range awaiting a resend that is
// not acknowledged, else the first bytes never sent. ok is false when m has
// nothing to send or no byte fits.
func (m *relOut) nextFragment(max int) (off, n int, resend, ok bool) {
	if m.done {
		return 0, 0, false, false
	}
	max = min(max, maxFragmentData)
	for len(m.resend) > 0 {
		s := &m.resend[0]
		if m.size == 0 { // an empty message's only fragment
			m.resend = m.resend[1:]
			return 0, 0, true, true
		}
		if s.lo < s.hi && m.acked.get(s.lo) {
			s.lo = m.acked.run(s.lo, s.hi)
		}
		if s.lo >= s.hi {
			m.resend = m.resend[1:]
			continue
		}
		if max < 1 {
			return 0, 0, false, false
		}
		off = s.lo
		s.lo = min(m.acked.run(off, s.hi), off+max)
		n = s.lo - off
		if s.lo >= s.hi {
			m.resend = m.resend[1:]
		}
		return off, n, true, true
	}
	if m.started && m.next >= m.size || m.size > 0 && max < 1 {
		return 0, 0, false, false
	}
	m.started = true
	off = m.next
	m.next = min(m.size, off+max)
	return off, m.next - off, false, true
}

// Sent binds the last Append's section to seq, the sequence of the packet
// that carried it (as Conn.Seal returned it). It does nothing when that
// Append wrote nothing.
func (r *Reliable) Sent(seq wire.Seq) {
	rec := r.draft
	if rec == nil {
		return
	}
	r.draft = nil
	rec.seq = seq
	if len(r.records) == maxReliableRecords {
		r.settle(r.records[0], false)
		r.free = append(r.free, r.records[0])
		r.records[0] = nil
		r.records = r.records[1:]
	}
	r.records = append(r.records, rec)
	r.stats.Sections++
	for _, f := range rec.frags {
		r.stats.FragmentsSent++
		r.stats.BytesSent += uint64(f.n)
		if f.resend {
			r.stats.FragmentsResent++
		}
	}
}

// takeBackDraft queues again the fragments of an Append never followed by
// Sent.
func (r *Reliable) takeBackDraft() {
	if r.draft != nil {
		r.requeue(r.draft)
		r.free = append(r.free, r.draft)
		r.draft = nil
	}
}

func (r *Reliable) newRecord() *relRecord {
	if n := len(r.free); n > 0 {
		rec := r.free[n-1]
		r.free = r.free[:n-1]
		*rec = relRecord{frags: rec.frags[:0]}
		return rec
	}
	return &relRecord{}
}

// Acknowledge settles every sent section a has an answer for, and queues
// again the fragments of those whose packets are lost or overdue. Call it
// before each Append (after Opening what arrived), with the Conn that seals
// the packets.
//
// A section's fragments are queued again when its packet is judged lost,
// when the Conn has forgotten it, and also, once, when no answer has come
// one RTO after it was sent. The Conn judges a packet lost only when the
// peer acknowledges one more than 32 newer, which at 64 packets a second is
// half a second plus a round trip, and on a link carrying keep-alives alone
// (4 a second) eight seconds; the RTO (the smoothed round trip plus four
// deviations) bounds the wait by the link's own delay instead. A packet
// merely late is then resent needlessly; the receiver drops the duplicate,
// and a late acknowledgement still settles the original.
func (r *Reliable) Acknowledge(a AckSource, now Time) {
	rto := a.RTO()
	kept := r.records[:0]
	for _, rec := range r.records {
		acked, known := a.Acked(rec.seq)
		switch {
		case acked:
			r.settle(rec, true)
		case !known || a.Lost(rec.seq):
			r.settle(rec, false)
		default:
			if !rec.timedOut && now.Sub(rec.at) >= rto {
				rec.timedOut = true
				r.requeue(rec)
				r.stats.PacketsTimedOut++
			}
			kept = append(kept, rec)
			continue
		}
		r.free = append(r.free, rec)
	}
	clear(r.records[len(kept):])
	r.records = kept
	r.release()
}

// settle applies a section's answer: acknowledged, or lost. A section whose
// fragments were already queued again after a timeout is not queued twice.
func (r *Reliable) settle(rec *relRecord, acked bool) {
	switch {
	case acked:
		for _, f := range rec.frags {
			if m := r.sending(f.num); m != nil {
				m.ack(f.off, f.n)
			}
		}
	case !rec.timedOut:
		r.requeue(rec)
		r.stats.PacketsLost++
	}
}

// requeue queues a section's fragments to be sent again.
func (r *Reliable) requeue(rec *relRecord) {
	for _, f := range rec.frags {
		if m := r.sending(f.num); m != nil && !m.done {
			m.resend = append(m.resend, relSpan{f.off, f.off + f.n})
		}
	}
}

// release drops the wholly acknowledged messages at the front of the queue.
func (r *Reliable) release() {
	n := 0
	for n < len(r.queue) && r.queue[n].done {
		r.queued -= r.queue[n].size
		n++
	}
	clear(r.queue[:n])
	r.queue = r.queue[n:]
}

// sending returns the queued message numbered num, or nil once released.
func (r *Reliable) sending(num uint64) *relOut {
	if len(r.queue) == 0 || num < r.queue[0].num || num-r.queue[0].num >= uint64(len(r.queue)) {
		return nil
	}
	return r.queue[num-r.queue[0].num]
}

// ack marks bytes [off, off+n) acknowledged; the message's storage goes
// once all of it is.
func (m *relOut) ack(off, n int) {
	if m.done {
		return
	}
	for lo, end := off, off+n; lo < end; {
		hi := m.acked.run(lo, end)
		if !m.acked.get(lo) {
			m.acked.set(lo, hi)
			m.nAcked += hi - lo
		}
		lo = hi
	}
	if m.nAcked == m.size {
		m.done, m.data, m.acked, m.resend = true, nil, nil, nil
	}
}

// ReadSection reads the section at the front of b, which must start there,
// and returns how many bytes it spans; what follows is the caller's. The
// fragments are applied as they are read, and every message they complete
// in order becomes available to Receive.
//
// A fragment of a message already delivered, or holding only bytes already
// held, is dropped and counted (DuplicatesDropped). Any error wraps
// ErrReliableProtocol and means the connection must end: a section that is
// truncated or counts no fragment; a fragment reaching past its message, or
// empty in a message that is not; a message over MaxMessage, or Messages or
// more past the next one to deliver, or one whose reassembly would take
// Buffered past the Window; fragments of one message that disagree on its
// size or its bytes. An honest peer with the same limits never causes one:
// everything it sends was queued within its own window, counted from a
// message this end has not yet delivered. After an error the Reliable's
// receiving state is unspecified.
func (r *Reliable) ReadSection(b []byte) (int, error) {
	if len(b) < ReliableSectionHeader {
		return 0, errRelShort
	}
	count := int(b[0])
	if count == 0 {
		return 0, errRelEmpty
	}
	pos := ReliableSectionHeader
	for range count {
		n, err := r.readFragment(b[pos:])
		if err != nil {
			return 0, err
		}
		pos += n
	}
	r.deliver()
	return pos, nil
}

// readFragment reads and applies the fragment at the front of b, returning
// its length.
func (r *Reliable) readFragment(b []byte) (int, error) {
	if len(b) < ReliableFragmentHeader {
		return 0, errRelShort
	}
	num := binary.LittleEndian.Uint16(b)
	size, off := relUint24(b[2:]), relUint24(b[5:])
	n := int(binary.LittleEndian.Uint16(b[8:]))
	if len(b)-ReliableFragmentHeader < n {
		return 0, errRelShort
	}
	data := b[ReliableFragmentHeader : ReliableFragmentHeader+n]
	switch {
	case size == 0 && (off != 0 || n != 0), size > 0 && (n == 0 || off+n > size):
		return 0, errRelFragment
	case size > r.cfg.MaxMessage || size > r.cfg.ReceiveWindow:
		return 0, errRelTooLarge
	}
	r.stats.FragmentsReceived++
	// The distance from the next message to deliver, in 16 bits. An honest
	// peer's is in [-Messages, Messages): see ReadSection.
	d := int(int16(num - uint16(r.nextIn)))
	if d < 0 {
		r.stats.DuplicatesDropped++
		return ReliableFragmentHeader + n, nil
	}
	if d >= r.cfg.Messages {
		return 0, errRelAhead
	}
	if err := r.place(r.nextIn+uint64(d), size, off, data); err != nil {
		return 0, err
	}
	return ReliableFragmentHeader + n, nil
}

// place copies a fragment's data into its message, checking it against what
// is already held.
func (r *Reliable) place(num uint64, size, off int, data []byte) error {
	m, fresh := r.partial[num], false
	switch {
	case m == nil:
		if r.held+size > r.cfg.ReceiveWindow {
			return errRelWindow
		}
		m, fresh = &relIn{data: make([]byte, size), got: newRelBits(size)}, true
		r.partial[num] = m
		r.held += size
	case len(m.data) != size:
		return errRelDisagree
	}
	added := 0
	for lo, end := off, off+len(data); lo < end; {
		hi := m.got.run(lo, end)
		src := data[lo-off : hi-off]
		if m.got.get(lo) {
			if !bytes.Equal(m.data[lo:hi], src) {
				return errRelDisagree
			}
		} else {
			copy(m.data[lo:hi], src)
			m.got.set(lo, hi)
			added += hi - lo
		}
		lo = hi
	}
	m.nGot += added
	if !fresh && added == 0 {
		r.stats.DuplicatesDropped++
	}
	return nil
}

// deliver moves every complete message at the head of the order to ready.
func (r *Reliable) deliver() {
	for {
		m := r.partial[r.nextIn]
		if m == nil || m.nGot < len(m.data) {
			return
		}
		delete(r.partial, r.nextIn)
		r.held -= len(m.data)
		r.nextIn++
		r.ready = append(r.ready, m.data)
		r.stats.MessagesDelivered++
	}
}

// Receive returns the next delivered message and true, or nil and false when
// none waits. The message belongs to the caller. Messages wait until taken,
// outside the Window's count, so the caller takes them all after each
// ReadSection (or at least each frame).
func (r *Reliable) Receive() ([]byte, bool) {
	if r.readyAt == len(r.ready) {
		r.ready, r.readyAt = r.ready[:0], 0
		return nil, false
	}
	msg := r.ready[r.readyAt]
	r.ready[r.readyAt] = nil
	r.readyAt++
	return msg, true
}

// relBits is one bit per byte of a message.
type relBits []uint64

func newRelBits(n int) relBits { return make(relBits, (n+63)/64) }

func (b relBits) get(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// set sets bits [lo, hi).
func (b relBits) set(lo, hi int) {
	for lo < hi {
		end := min(hi, (lo|63)+1)
		b[lo>>6] |= ^uint64(0) >> (64 - (end - lo)) << (lo & 63)
		lo = end
	}
}

// run returns where the run of bits equal to bit i, starting at i, ends:
// the first index after i whose bit differs, or to if none before it. i
// must be below to.
func (b relBits) run(i, to int) int {
	var flip uint64
	if b.get(i) {
		flip = ^uint64(0)
	}
	for i < to {
		// Set bits of w mark differing positions from i on; the shift
		// brings in zeros past the word's end, which the next word covers.
		if w := (b[i>>6] ^ flip) >> (i & 63); w != 0 {
			return min(i+bits.TrailingZeros64(w), to)
		}
		i = (i | 63) + 1
	}
	return to
}
