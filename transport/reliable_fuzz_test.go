package transport_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"vkm/transport"
	"vkm/wire"
)

// fuzzRelConfig keeps the fuzzed receiver's limits small, so inputs of a few
// hundred bytes reach every bound: the code paths are the same at 4 MiB.
var fuzzRelConfig = transport.ReliableConfig{MaxMessage: 1 << 12, Window: 1 << 13, Messages: 16}

// fuzzRelSections returns the sections a sender with fuzzRelConfig writes
// for msgs with the given budgets in turn (the last one repeating),
// concatenated, each section acknowledged as it goes.
func fuzzRelSections(tb testing.TB, msgs [][]byte, budgets ...int) []byte {
	s := &relSender{r: mustReliable(tb, fuzzRelConfig)}
	for _, m := range msgs {
		if err := s.r.Send(m); err != nil {
			tb.Fatal(err)
		}
	}
	fates := newRelFates(time.Hour)
	var out []byte
	for i := 0; ; i++ {
		b, seq := s.section(budgets[min(i, len(budgets)-1)], 0)
		if b == nil {
			return out
		}
		out = append(out, b...)
		fates.acked[seq] = true
		s.r.Acknowledge(fates, 0)
	}
}

// FuzzReliable feeds one receiver a stream of sections, read one after the
// other as ReadSection reports their lengths, until one fails. It must never
// panic, never hold more than the window, never deliver more bytes than it
// was given, and never allocate far beyond the window whatever sizes the
// input claims.
func FuzzReliable(f *testing.F) {
	abc := []byte("abcdefghijklmnopqrstuvwxyz")
	f.Add(fuzzRelSections(f, [][]byte{abc}, 100))
	f.Add(fuzzRelSections(f, [][]byte{abc, nil, abc[:5], bytes.Repeat(abc, 40)}, 12, 30, 200))
	f.Add(fuzzRelSections(f, [][]byte{bytes.Repeat(abc, 150)}, 1200))
	f.Add(fuzzRelSections(f, [][]byte{nil, nil, nil}, 11))
	// Out of order and twice over.
	two := fuzzRelSections(f, [][]byte{abc, abc}, 20)
	f.Add(slices.Concat(two[len(two)/2:], two, two[:len(two)/2]))
	f.Add(relSection(relFragment(3, 6, 3, abc[:3]), relFragment(2, 0, 0, nil), relFragment(3, 6, 0, abc[:3])))
	f.Add(relSection(relFragment(0, 4096, 0, abc), relFragment(1, 4096, 10, abc)))
	f.Add(relSection(relFragment(15, 1, 0, abc[:1]), relFragment(16, 1, 0, abc[:1])))
	f.Add(relSection(relFragment(0, 1<<24-1, 1<<24-2, abc[:1])))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := mustReliable(t, fuzzRelConfig)
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		delivered, sections := 0, 0
		var stop error
		for b := in; len(b) > 0; sections++ {
			n, err := r.ReadSection(b)
			if err != nil {
				if !errors.Is(err, transport.ErrReliableProtocol) {
					t.Fatalf("error %v does not wrap ErrReliableProtocol", err)
				}
				stop = err
				break
			}
			if n < transport.ReliableSectionHeader+transport.ReliableFragmentHeader || n > len(b) {
				t.Fatalf("section of %d bytes read from %d", n, len(b))
			}
			b = b[n:]
			if r.Buffered() > fuzzRelConfig.Window {
				t.Fatalf("buffered %d over the window", r.Buffered())
			}
			for {
				m, ok := r.Receive()
				if !ok {
					break
				}
				delivered += len(m)
			}
		}
		t.Logf("%d sections read, %d bytes delivered, stopped by %v", sections, delivered, stop)
		if delivered > len(in) {
			t.Fatalf("delivered %d bytes from %d", delivered, len(in))
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		// The window and its bitmaps, everything delivered (at most the
		// input), and per message a few dozen bytes of bookkeeping (at most 16
		// bytes per input byte, since a message takes at least 11); the
		// slack covers what the runtime itself allocates meanwhile.
		limit := uint64(2*fuzzRelConfig.Window + 16*len(in) + 1<<16)
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Fatalf("allocated %d bytes for a %d-byte input (limit %d)", got, len(in), limit)
		}
	})
}

// FuzzLossyReliable runs a sender and a receiver over a link whose every
// choice comes from the input: what is sent, each packet's budget, which
// packets arrive (in any order, any number of times), which are dropped,
// when acknowledgements and loss verdicts come back, and the clock. The
// answers stay truthful, as a Conn's are: a packet is acknowledged only if
// it arrived. After a final clean exchange, every message accepted by Send
// must have been delivered exactly once, in order, and ReadSection must never
// have failed.
func FuzzLossyReliable(f *testing.F) {
	f.Add([]byte{0, 10, 0, 200, 1, 90, 1, 30, 2, 0, 2, 0, 5, 3, 0, 4, 0})
	f.Add([]byte{0, 255, 0, 0, 0, 77, 1, 3, 1, 200, 7, 9, 3, 1, 2, 1, 4, 0, 6, 250, 5, 5})
	f.Add([]byte{0x30, 0, 0x30}) // one empty message, never sealed before the end
	f.Add([]byte{0, 40, 1, 12, 1, 12, 1, 12, 2, 2, 2, 0, 6, 255, 5, 1, 1, 255, 2, 0, 5})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := transport.ReliableConfig{MaxMessage: 1 << 12, Window: 1 << 13, Messages: 16}
		l := &relLossy{t: t, tx: mustReliable(t, cfg), rx: mustReliable(t, cfg), fates: newRelFates(50 * time.Millisecond)}
		for len(ops) >= 2 {
			l.step(ops[0], ops[1])
			ops = ops[2:]
		}
		l.finish()
	})
}

// relLossy is the state of a FuzzLossyReliable run.
type relLossy struct {
	t         *testing.T
	tx, rx    *transport.Reliable
	fates     *relFates
	now       transport.Time
	seq       wire.Seq
	inFlight  []relPacket
	arrived   map[wire.Seq]bool
	sent, got [][]byte
}

type relPacket struct {
	seq wire.Seq
	b   []byte
}

// step performs one operation, chosen by op, with argument arg.
func (l *relLossy) step(op, arg byte) {
	switch op % 8 {
	case 0: // Send a message of a size from arg, its bytes from its number
		m := bytes.Repeat(binary.LittleEndian.AppendUint16(nil, uint16(len(l.sent))), int(arg)*9)
		if err := l.tx.Send(m); err == nil {
			l.sent = append(l.sent, m)
		} else if !errors.Is(err, transport.ErrReliableFull) && !errors.Is(err, transport.ErrReliableTooLarge) {
			l.t.Fatal(err)
		}
	case 1: // seal a packet with a budget from arg
		l.seal(int(arg) * 5)
	case 2: // a packet arrives
		l.arrive(int(arg), true)
	case 3: // a packet arrives and stays in flight, to arrive again
		l.arrive(int(arg), false)
	case 4: // a packet is dropped
		if len(l.inFlight) > 0 {
			i := int(arg) % len(l.inFlight)
			l.inFlight = slices.Delete(l.inFlight, i, i+1)
		}
	case 5: // answers come back: acknowledged if arrived, else maybe lost
		for _, p := range l.inFlight {
			if arg&1 != 0 && !l.arrived[p.seq] {
				l.fates.lost[p.seq] = true
			}
		}
		for seq := range l.arrived {
			l.fates.acked[seq] = true
		}
		l.tx.Acknowledge(l.fates, l.now)
	case 6: // time passes
		l.now = l.now.Add(time.Duration(arg) * time.Millisecond)
	case 7: // a section is written for a packet never sent
		l.tx.Append(nil, int(arg)*5, l.now)
	}
}

func (l *relLossy) seal(budget int) {
	b := l.tx.Append(nil, budget, l.now)
	if len(b) > max(budget, 0) {
		l.t.Fatalf("section of %d bytes for a budget of %d", len(b), budget)
	}
	l.seq++
	if len(b) > 0 {
		l.tx.Sent(l.seq)
		l.inFlight = append(l.inFlight, relPacket{l.seq, b})
	}
}

func (l *relLossy) arrive(i int, remove bool) {
	if len(l.inFlight) == 0 {
		return
	}
	i %= len(l.inFlight)
	p := l.inFlight[i]
	if remove {
		l.inFlight = slices.Delete(l.inFlight, i, i+1)
	}
	if n, err := l.rx.ReadSection(p.b); err != nil || n != len(p.b) {
		l.t.Fatalf("read %d of %d: %v", n, len(p.b), err)
	}
	if l.arrived == nil {
		l.arrived = map[wire.Seq]bool{}
	}
	l.arrived[p.seq] = true
	l.got = append(l.got, drainReliable(l.rx)...)
}

// finish delivers what is in flight, then runs clean rounds until the
// sender has nothing pending, and checks what came out.
func (l *relLossy) finish() {
	for len(l.inFlight) > 0 {
		l.arrive(0, true)
	}
	for round := 0; l.tx.PendingMessages() > 0; round++ {
		if round > 1000 {
			l.t.Fatalf("pending %d after 1000 clean rounds", l.tx.Pending())
		}
		l.now = l.now.Add(time.Second)
		l.step(5, 0)
		l.seal(transport.MaxDatagram)
		for len(l.inFlight) > 0 {
			l.arrive(0, true)
		}
		l.step(5, 0)
	}
	if len(l.got) != len(l.sent) {
		l.t.Fatalf("%d messages delivered of %d", len(l.got), len(l.sent))
	}
	for i := range l.sent {
		if !bytes.Equal(l.got[i], l.sent[i]) {
			l.t.Fatalf("message %d differs", i)
		}
	}
	if l.rx.Buffered() != 0 {
		l.t.Fatalf("buffered %d", l.rx.Buffered())
	}
}
