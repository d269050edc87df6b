package transport_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"vkm/transport"
	"vkm/transport/memnet"
	"vkm/wire"
)

// relEnd is one side of a connection carrying a reliable channel: a Conn, a
// Reliable, the link it sends into and the link it hears from.
type relEnd struct {
	name     string
	conn     *transport.Conn
	rel      *transport.Reliable
	out, in  *memnet.Link
	nextSend transport.Time
	rng      *rand.Rand
	payload  []byte
	buf      []byte
	got      [][]byte
	packets  int
	budgets  [3]int // sends whose leftover budget fit no fragment, some, a lot (≥ 600 bytes)
}

// relMessages returns n seeded random messages, sizes drawn from sizes.
func relMessages(rng *rand.Rand, sizes ...int) [][]byte {
	out := make([][]byte, len(sizes))
	for i, n := range sizes {
		out[i] = make([]byte, n)
		for j := range out[i] {
			out[i][j] = byte(rng.Uint32())
		}
	}
	return out
}

// newRelEnd makes an end with a fresh Conn and Reliable.
func newRelEnd(t *testing.T, name string, out, in *memnet.Link, seed uint64) *relEnd {
	t.Helper()
	rel, err := transport.NewReliable(transport.ReliableConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return &relEnd{name: name, conn: transport.NewConn(transport.Config{}, 0), rel: rel,
		out: out, in: in, rng: rand.New(rand.NewPCG(seed, 0x72656c))}
}

// send seals one datagram at now: a stand-in snapshot of random length
// (framed by a 2-byte length) takes its bytes first, and the reliable
// section gets what is left (0 to 1188 bytes), last in the payload.
func (e *relEnd) send(t *testing.T, now transport.Time) {
	t.Helper()
	e.rel.Acknowledge(e.conn, now)
	snap := e.rng.IntN(e.conn.MaxPayload(0) - 1)
	e.payload = binary.LittleEndian.AppendUint16(e.payload[:0], uint16(snap))
	e.payload = append(e.payload, make([]byte, snap)...)
	budget := e.conn.MaxPayload(0) - len(e.payload)
	before := len(e.payload)
	e.payload = e.rel.Append(e.payload, budget, now)
	if n := len(e.payload) - before; n > budget {
		t.Fatalf("%s: section of %d bytes for a budget of %d", e.name, n, budget)
	}
	switch {
	case budget < transport.ReliableSectionHeader+transport.ReliableFragmentHeader+1:
		e.budgets[0]++
	case budget < 600:
		e.budgets[1]++
	default:
		e.budgets[2]++
	}
	var seq wire.Seq
	var err error
	e.buf, seq, err = e.conn.Seal(e.buf[:0], e.payload, now)
	if err != nil {
		t.Fatal(err)
	}
	e.rel.Sent(seq)
	e.out.Send(e.buf, now)
	e.packets++
}

// receive opens every datagram due by now and reads its section.
func (e *relEnd) receive(t *testing.T, now transport.Time) {
	t.Helper()
	for {
		dg, ok := e.in.Receive(now)
		if !ok {
			return
		}
		payload, err := e.conn.Open(dg, now)
		if errors.Is(err, transport.ErrStale) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: open: %v", e.name, err)
		}
		snap := int(binary.LittleEndian.Uint16(payload))
		section := payload[2+snap:]
		if len(section) > 0 {
			n, err := e.rel.ReadSection(section)
			if err != nil || n != len(section) {
				t.Fatalf("%s at %v: read %d of %d: %v", e.name, time.Duration(now), n, len(section), err)
			}
		}
		for {
			msg, ok := e.rel.Receive()
			if !ok {
				break
			}
			e.got = append(e.got, msg)
		}
		e.rel.Acknowledge(e.conn, now)
	}
}

// A 1 MiB message between small ones, over the Awful profile (10 % loss,
// 2 % duplicated, 5 % reordered, 150 ± 50 ms each way), both ends sealing 64
// datagrams a second and giving the channel whatever a random snapshot
// leaves: every message arrives whole, once, in order, both ways.
func TestReliableOverAwful(t *testing.T) {
	const seed = 20260417
	const interval = time.Second / 64
	const limit = 5 * time.Minute
	pipe, err := memnet.NewPipe(memnet.Awful, seed)
	if err != nil {
		t.Fatal(err)
	}
	a := newRelEnd(t, "A", pipe.AtoB, pipe.BtoA, seed)
	b := newRelEnd(t, "B", pipe.BtoA, pipe.AtoB, seed+1)
	b.nextSend = transport.Time(7 * time.Millisecond)

	rng := rand.New(rand.NewPCG(seed, 1))
	aFirst := relMessages(rng, 1, 0, 700, 2500, 1<<20, 1, 3000)
	aLater := relMessages(rng, 40, 0, 12000)
	bAll := relMessages(rng, 10, 5000, 0, 100)
	for _, m := range aFirst {
		if err := a.rel.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range bAll {
		if err := b.rel.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	wantA := slices.Concat(aFirst, aLater)
	later := transport.Time(0).Add(3 * time.Second)
	sentLater := false

	var now, done transport.Time
	for {
		now = min(a.nextSend, b.nextSend)
		if at, ok := pipe.NextArrival(); ok {
			now = min(now, at)
		}
		if !sentLater && now >= later {
			for _, m := range aLater {
				if err := a.rel.Send(m); err != nil {
					t.Fatal(err)
				}
			}
			sentLater = true
		}
		for _, e := range []*relEnd{a, b} {
			e.receive(t, now)
		}
		for _, e := range []*relEnd{a, b} {
			if now == e.nextSend {
				e.send(t, now)
				e.nextSend = e.nextSend.Add(interval)
			}
		}
		if done == 0 && len(b.got) == len(wantA) && len(a.got) == len(bAll) {
			done = now
		}
		if done != 0 && a.rel.PendingMessages() == 0 && b.rel.PendingMessages() == 0 {
			break
		}
		if now.Sub(0) > limit {
			t.Fatalf("seed %d: after %v, B has %d of %d messages, A %d of %d; pending %d and %d",
				seed, limit, len(b.got), len(wantA), len(a.got), len(bAll), a.rel.Pending(), b.rel.Pending())
		}
	}

	relSameMessages(t, "A to B", b.got, wantA)
	relSameMessages(t, "B to A", a.got, bAll)
	for _, e := range []*relEnd{a, b} {
		s, c := e.rel.Stats(), e.out.Counts()
		t.Logf("seed %d %s: %d packets sent (budget none/some/large %v), link %+v; rtt %v",
			seed, e.name, e.packets, e.budgets, c, e.conn.RTT())
		t.Logf("seed %d %s: %d sections, %d fragments sent, %d resent (packets lost %d, timed out %d), "+
			"%d bytes; received %d fragments, %d duplicates dropped",
			seed, e.name, s.Sections, s.FragmentsSent, s.FragmentsResent, s.PacketsLost, s.PacketsTimedOut,
			s.BytesSent, s.FragmentsReceived, s.DuplicatesDropped)
		if e.rel.Buffered() != 0 {
			t.Errorf("%s: %d bytes still buffered", e.name, e.rel.Buffered())
		}
	}
	t.Logf("seed %d: every message delivered at %v of simulated time, all acknowledged at %v",
		seed, done.Sub(0), now.Sub(0))
	if s := a.rel.Stats(); s.FragmentsResent == 0 || b.rel.Stats().DuplicatesDropped == 0 {
		t.Errorf("no resend or no duplicate over Awful: the paths went untested")
	}
}

// relSameMessages fails unless got is exactly want, in order.
func relSameMessages(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages delivered, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: message %d differs (%d bytes, want %d)", what, i, len(got[i]), len(want[i]))
		}
	}
}

// relFates is an AckSource for direct tests: each sent sequence's fate is
// set by hand, and sequences not mentioned are in flight.
type relFates struct {
	acked, lost map[wire.Seq]bool
	rto         time.Duration
}

func newRelFates(rto time.Duration) *relFates {
	return &relFates{acked: map[wire.Seq]bool{}, lost: map[wire.Seq]bool{}, rto: rto}
}

func (f *relFates) Acked(seq wire.Seq) (acked, known bool) { return f.acked[seq], true }
func (f *relFates) Lost(seq wire.Seq) bool                 { return f.lost[seq] }
func (f *relFates) RTO() time.Duration                     { return f.rto }

// relSender numbers the sections a Reliable writes, as a Conn would.
type relSender struct {
	r   *transport.Reliable
	seq wire.Seq
}

// section appends a section for budget and binds it to the next sequence;
// nil when nothing was written.
func (s *relSender) section(budget int, now transport.Time) ([]byte, wire.Seq) {
	b := s.r.Append(nil, budget, now)
	if len(b) == 0 {
		return nil, ^wire.Seq(0)
	}
	seq := s.seq
	s.seq++
	s.r.Sent(seq)
	return b, seq
}

func mustReliable(tb testing.TB, cfg transport.ReliableConfig) *transport.Reliable {
	tb.Helper()
	r, err := transport.NewReliable(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// drainReliable returns every message r has ready.
func drainReliable(r *transport.Reliable) [][]byte {
	var out [][]byte
	for {
		m, ok := r.Receive()
		if !ok {
			return out
		}
		out = append(out, m)
	}
}

// Sections sent, lost, sent again with other budgets (so fragments overlap
// at different boundaries), then read shuffled and twice over: each message
// comes out once, in order, and nothing comes out before everything ahead
// of it has.
func TestReliableDuplicatesAndReordering(t *testing.T) {
	const seed = 7
	rng := rand.New(rand.NewPCG(seed, 2))
	msgs := relMessages(rng, 5000, 0, 300, 1, 2000)
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	for _, m := range msgs {
		if err := s.r.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	fates := newRelFates(time.Hour)
	var sections [][]byte
	for round := range 3 {
		for {
			b, seq := s.section(11+rng.IntN(700), 0)
			if b == nil {
				break
			}
			sections = append(sections, b)
			if round < 2 && rng.IntN(2) == 0 {
				fates.lost[seq] = true // sent again next round
			} else {
				fates.acked[seq] = true
			}
		}
		s.r.Acknowledge(fates, 0)
	}
	if s.r.Pending() != 0 {
		t.Fatalf("pending %d after every section was acknowledged", s.r.Pending())
	}
	// Everything twice, shuffled.
	feed := slices.Concat(sections, sections)
	rng.Shuffle(len(feed), func(i, j int) { feed[i], feed[j] = feed[j], feed[i] })

	r := mustReliable(t, transport.ReliableConfig{})
	var got [][]byte
	for _, b := range feed {
		n, err := r.ReadSection(b)
		if err != nil || n != len(b) {
			t.Fatalf("read %d of %d: %v", n, len(b), err)
		}
		got = append(got, drainReliable(r)...)
		for i := range got {
			if !bytes.Equal(got[i], msgs[i]) {
				t.Fatalf("message %d out of order or damaged", i)
			}
		}
	}
	relSameMessages(t, "shuffled", got, msgs)
	st := r.Stats()
	t.Logf("seed %d: %d sections (%d fragments, %d resent) read twice shuffled: %d fragments, %d duplicates dropped",
		seed, len(sections), s.r.Stats().FragmentsSent, s.r.Stats().FragmentsResent, st.FragmentsReceived, st.DuplicatesDropped)
	if st.DuplicatesDropped < st.FragmentsReceived/2 || r.Buffered() != 0 {
		t.Fatalf("stats %+v, buffered %d", st, r.Buffered())
	}
}

// relFragment encodes one fragment by hand, as docs/protocol.md lays it out.
func relFragment(num uint16, size, off int, data []byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, num)
	b = append(b, byte(size), byte(size>>8), byte(size>>16), byte(off), byte(off>>8), byte(off>>16))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	return append(b, data...)
}

// relSection counts fragments into a section.
func relSection(frags ...[]byte) []byte {
	return slices.Concat(append([][]byte{{byte(len(frags))}}, frags...)...)
}

// The vector in docs/protocol.md: messages 0 ("hi", whole) and 1 (the first
// 3 bytes of "hello"), written by a sender with a 26-byte budget.
func TestReliableVector(t *testing.T) {
	const want = "02" +
		"0000" + "020000" + "000000" + "0200" + "6869" +
		"0100" + "050000" + "000000" + "0300" + "68656c"
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	for _, m := range []string{"hi", "hello"} {
		if err := s.r.Send([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := s.section(1+10+2+10+3, 0)
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("section %s\n         want %s", got, want)
	}
	r := mustReliable(t, transport.ReliableConfig{})
	if n, err := r.ReadSection(b); err != nil || n != len(b) {
		t.Fatalf("read %d of %d: %v", n, len(b), err)
	}
	if got := drainReliable(r); len(got) != 1 || string(got[0]) != "hi" {
		t.Fatalf("delivered %q", got)
	}
	if r.Buffered() != 5 {
		t.Fatalf("buffered %d, want the 5 bytes of the message begun", r.Buffered())
	}
	// What follows a section is the caller's: ReadSection stops at its end.
	r = mustReliable(t, transport.ReliableConfig{})
	if n, err := r.ReadSection(append(bytes.Clone(b), 0xEE, 0xFF)); err != nil || n != len(b) {
		t.Fatalf("read %d of %d with trailing bytes: %v", n, len(b), err)
	}
	// Every strict prefix fails.
	for i := range len(b) {
		r := mustReliable(t, transport.ReliableConfig{})
		if _, err := r.ReadSection(b[:i]); !errors.Is(err, transport.ErrReliableProtocol) {
			t.Fatalf("prefix of %d bytes: %v", i, err)
		}
	}
}

// Append writes nothing when a fragment header does not fit, and never more
// than the budget; with the least room it moves a byte at a time.
func TestReliableSmallBudgets(t *testing.T) {
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	msg := []byte("abcdefgh")
	if err := s.r.Send(msg); err != nil {
		t.Fatal(err)
	}
	for budget := -1; budget < transport.ReliableSectionHeader+transport.ReliableFragmentHeader+1; budget++ {
		if b, _ := s.section(budget, 0); b != nil {
			t.Fatalf("budget %d: wrote %x", budget, b)
		}
	}
	r := mustReliable(t, transport.ReliableConfig{})
	sections := 0
	for {
		b, _ := s.section(12, 0)
		if b == nil {
			break
		}
		if len(b) != 12 {
			t.Fatalf("section of %d bytes for a budget of 12", len(b))
		}
		sections++
		if _, err := r.ReadSection(b); err != nil {
			t.Fatal(err)
		}
	}
	got := drainReliable(r)
	if sections != len(msg) || len(got) != 1 || !bytes.Equal(got[0], msg) {
		t.Fatalf("%d sections delivered %q", sections, got)
	}
	// An empty message needs only the headers.
	if err := s.r.Send(nil); err != nil {
		t.Fatal(err)
	}
	b, _ := s.section(11, 0)
	if _, err := r.ReadSection(b); err != nil || len(b) != 11 {
		t.Fatalf("empty message: %x, %v", b, err)
	}
	if got := drainReliable(r); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("delivered %q", got)
	}
}

// A section never bound by Sent (its packet was never sent) is taken back
// and its bytes go in the next one.
func TestReliableUnsentSectionTakenBack(t *testing.T) {
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	if err := s.r.Send([]byte("payload")); err != nil {
		t.Fatal(err)
	}
	if b := s.r.Append(nil, 100, 0); len(b) == 0 {
		t.Fatal("nothing written")
	}
	b, _ := s.section(100, 0)
	r := mustReliable(t, transport.ReliableConfig{})
	if _, err := r.ReadSection(b); err != nil {
		t.Fatal(err)
	}
	if got := drainReliable(r); len(got) != 1 || string(got[0]) != "payload" {
		t.Fatalf("delivered %q", got)
	}
}

// A section unanswered for one RTO is sent again once, not at every later
// Acknowledge; a loss verdict after that adds no second copy; and a late
// acknowledgement of the original still settles the message.
func TestReliableTimeoutResend(t *testing.T) {
	const rto = 100 * time.Millisecond
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	if err := s.r.Send([]byte("x")); err != nil {
		t.Fatal(err)
	}
	fates := newRelFates(rto)
	_, first := s.section(100, 0)
	s.r.Acknowledge(fates, transport.Time(rto-1))
	if b, _ := s.section(100, transport.Time(rto-1)); b != nil {
		t.Fatal("resent before the RTO")
	}
	s.r.Acknowledge(fates, transport.Time(rto))
	b, second := s.section(100, transport.Time(rto))
	if b == nil {
		t.Fatal("not resent after the RTO")
	}
	s.r.Acknowledge(fates, transport.Time(3*rto/2))
	fates.lost[first] = true
	s.r.Acknowledge(fates, transport.Time(3*rto/2))
	if b, _ := s.section(100, transport.Time(3*rto/2)); b != nil {
		t.Fatal("sent a third time: the timeout and the loss verdict both queued it")
	}
	fates.acked[second] = true
	s.r.Acknowledge(fates, transport.Time(2*rto))
	st := s.r.Stats()
	t.Logf("stats %+v", st)
	if s.r.Pending() != 0 || st.PacketsTimedOut != 1 || st.FragmentsResent != 1 || st.PacketsLost != 0 {
		t.Fatalf("pending %d, stats %+v", s.r.Pending(), st)
	}
}

// The send window: past it Send fails and queues nothing, however long the
// peer stays silent; once acknowledgements come, room opens again.
func TestReliableSendWindow(t *testing.T) {
	cfg := transport.ReliableConfig{MaxMessage: 1000, Window: 4000, Messages: 6}
	s := &relSender{r: mustReliable(t, cfg)}
	if err := s.r.Send(make([]byte, 1001)); !errors.Is(err, transport.ErrReliableTooLarge) {
		t.Fatalf("a message over MaxMessage: %v", err)
	}
	// A peer that never answers: send, write sections, acknowledge nothing.
	fates := newRelFates(time.Hour)
	var seqs []wire.Seq
	accepted, refused := 0, 0
	for i := range 100 {
		err := s.r.Send(make([]byte, 300))
		switch {
		case err == nil:
			accepted++
		case errors.Is(err, transport.ErrReliableFull):
			refused++
		default:
			t.Fatal(err)
		}
		if p := s.r.Pending(); p > cfg.Window {
			t.Fatalf("round %d: pending %d over the window", i, p)
		}
		if b, seq := s.section(1000, transport.Time(i)); b != nil {
			seqs = append(seqs, seq)
		}
		s.r.Acknowledge(fates, transport.Time(i))
	}
	t.Logf("silent peer: %d messages accepted, %d refused, pending %d", accepted, refused, s.r.Pending())
	if accepted != 6 || refused != 94 || s.r.Pending() != 1800 {
		t.Fatalf("accepted %d, refused %d, pending %d", accepted, refused, s.r.Pending())
	}
	// Bytes bind too, once the messages are acknowledged.
	for _, seq := range seqs {
		fates.acked[seq] = true
	}
	s.r.Acknowledge(fates, 200)
	if s.r.Pending() != 0 {
		t.Fatalf("pending %d after every section was acknowledged", s.r.Pending())
	}
	for range 4 {
		if err := s.r.Send(make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.r.Send([]byte{1}); !errors.Is(err, transport.ErrReliableFull) {
		t.Fatalf("one byte past a full window: %v", err)
	}

	// The defaults: two 4 MiB messages fill the 8 MiB window.
	d := mustReliable(t, transport.ReliableConfig{})
	big := make([]byte, transport.DefaultReliableMaxMessage)
	if err := d.Send(append(big, 0)); !errors.Is(err, transport.ErrReliableTooLarge) {
		t.Fatalf("4 MiB + 1: %v", err)
	}
	for range 2 {
		if err := d.Send(big); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Send([]byte{1}); !errors.Is(err, transport.ErrReliableFull) {
		t.Fatalf("one byte past the default window: %v", err)
	}
}

// A config out of range is refused.
func TestReliableConfig(t *testing.T) {
	bad := []transport.ReliableConfig{
		{MaxMessage: -1}, {MaxMessage: 1 << 24}, {MaxMessage: 100, Window: 99},
		{Window: 1 << 20}, {Messages: -1}, {Messages: 1<<15 + 1},
	}
	for _, cfg := range bad {
		if _, err := transport.NewReliable(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	r := mustReliable(t, transport.ReliableConfig{MaxMessage: 16 << 20 / 2})
	if c := r.Config(); c.Window != 8<<20 || c.Messages != transport.DefaultReliableMessages {
		t.Errorf("defaults %+v", c)
	}
}

// Hostile sections: each is refused with a protocol error, never a panic,
// and the receiver never holds more than its window.
func TestReliableHostileSections(t *testing.T) {
	cfg := transport.ReliableConfig{MaxMessage: 1000, Window: 2000, Messages: 8}
	d := func(n int) []byte { return bytes.Repeat([]byte{0xAB}, n) }
	cases := []struct {
		name  string
		first []byte // read before, must succeed (nil: none)
		bad   []byte
	}{
		{"empty input", nil, nil},
		{"no fragments", nil, []byte{0}},
		{"header cut short", nil, relSection(relFragment(0, 4, 0, d(4)))[:8]},
		{"data cut short", nil, relSection(relFragment(0, 4, 0, d(4)))[:14]},
		{"second fragment missing", nil, relSection(relFragment(0, 4, 0, d(4)))[:] /* count fixed below */},
		{"past the message's end", nil, relSection(relFragment(0, 4, 2, d(3)))},
		{"offset past the end", nil, relSection(relFragment(0, 4, 1<<23, d(1)))},
		{"empty fragment of a non-empty message", nil, relSection(relFragment(0, 4, 0, nil))},
		{"data in an empty message", nil, relSection(relFragment(0, 0, 0, d(1)))},
		{"offset in an empty message", nil, relSection(relFragment(0, 0, 3, nil))},
		{"over the maximum size", nil, relSection(relFragment(0, 1001, 0, d(1)))},
		{"largest size the field holds", nil, relSection(relFragment(0, 1<<24-1, 0, d(1)))},
		{"too far ahead", nil, relSection(relFragment(8, 4, 0, d(1)))},
		{"far ahead after a wrap", nil, relSection(relFragment(0x7fff, 4, 0, d(1)))},
		{"reassembly over the window", relSection(relFragment(0, 1000, 0, d(1)), relFragment(1, 1000, 0, d(1))),
			relSection(relFragment(2, 1, 0, d(1)))},
		{"window hit within one section", nil,
			relSection(relFragment(3, 1000, 0, d(1)), relFragment(4, 1000, 0, d(1)), relFragment(5, 1000, 0, d(1)))},
		{"size changes", relSection(relFragment(1, 10, 0, d(2))), relSection(relFragment(1, 11, 2, d(2)))},
		{"empty becomes non-empty", relSection(relFragment(1, 0, 0, nil)), relSection(relFragment(1, 5, 0, d(1)))},
		{"bytes disagree", relSection(relFragment(0, 10, 0, d(6))), relSection(relFragment(0, 10, 4, []byte{0xAC, 0xAB, 0xAB}))},
		{"bytes disagree in one section", nil,
			relSection(relFragment(2, 10, 0, d(6)), relFragment(2, 10, 5, []byte{0, 0xAB}))},
	}
	cases[4].bad[0] = 2 // "second fragment missing": counts two, holds one
	for _, c := range cases {
		r := mustReliable(t, cfg)
		if c.first != nil {
			if _, err := r.ReadSection(c.first); err != nil {
				t.Fatalf("%s: setup: %v", c.name, err)
			}
		}
		_, err := r.ReadSection(c.bad)
		if !errors.Is(err, transport.ErrReliableProtocol) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.Buffered() > cfg.Window {
			t.Errorf("%s: buffered %d", c.name, r.Buffered())
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// A receive window below the sending limits bounds what the receiver holds
// and the largest message it believes, and leaves sending as it was.
func TestReliableReceiveWindow(t *testing.T) {
	cfg := transport.ReliableConfig{MaxMessage: 1000, Window: 2000, ReceiveWindow: 300, Messages: 8}
	d := func(n int) []byte { return bytes.Repeat([]byte{0xAB}, n) }
	r := mustReliable(t, cfg)
	if _, err := r.ReadSection(relSection(relFragment(0, 301, 0, d(1)))); !errors.Is(err, transport.ErrReliableProtocol) {
		t.Errorf("a 301-byte message under a 300-byte receive window: %v", err)
	}
	r = mustReliable(t, cfg)
	if _, err := r.ReadSection(relSection(relFragment(0, 200, 0, d(1)))); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadSection(relSection(relFragment(1, 200, 0, d(1)))); !errors.Is(err, transport.ErrReliableProtocol) {
		t.Errorf("400 bytes held under a 300-byte receive window: %v", err)
	}
	if r.Buffered() > cfg.ReceiveWindow {
		t.Errorf("buffered %d", r.Buffered())
	}
	r = mustReliable(t, cfg)
	whole := relSection(relFragment(0, 300, 0, d(300)))
	if _, err := r.ReadSection(whole); err != nil {
		t.Fatal(err)
	}
	if m, ok := r.Receive(); !ok || len(m) != 300 {
		t.Errorf("a 300-byte message: %d bytes, %v", len(m), ok)
	}
	if err := r.Send(d(1000)); err != nil {
		t.Errorf("sending a 1000-byte message: %v", err)
	}
	if _, err := transport.NewReliable(transport.ReliableConfig{ReceiveWindow: -1}); err == nil {
		t.Error("a negative receive window accepted")
	}
}

// Fragments the receiver has no use for are dropped and counted, not
// refused: a message already delivered, bytes already held, and a message
// number from behind (even one a hostile peer picked).
func TestReliableDuplicatesDropped(t *testing.T) {
	r := mustReliable(t, transport.ReliableConfig{MaxMessage: 1000, Window: 2000, Messages: 8})
	whole := relSection(relFragment(0, 3, 0, []byte("abc")))
	part := relSection(relFragment(1, 4, 0, []byte("de")))
	for _, b := range [][]byte{whole, whole, part, part, relSection(relFragment(0xFFF0, 9, 0, []byte("z")))} {
		if _, err := r.ReadSection(b); err != nil {
			t.Fatal(err)
		}
	}
	got := drainReliable(r)
	if st := r.Stats(); len(got) != 1 || st.DuplicatesDropped != 3 || st.FragmentsReceived != 5 || r.Buffered() != 4 {
		t.Fatalf("delivered %q, stats %+v, buffered %d", got, st, r.Buffered())
	}
}

// Message numbers travel as 16 bits: past 65536 messages the order holds.
func TestReliableMessageNumbersWrap(t *testing.T) {
	const total = 70000
	s := &relSender{r: mustReliable(t, transport.ReliableConfig{})}
	r := mustReliable(t, transport.ReliableConfig{})
	fates := newRelFates(time.Hour)
	next, delivered := 0, 0
	for delivered < total {
		for i := 0; i < 60 && next < total; i++ {
			if err := s.r.Send(binary.LittleEndian.AppendUint32(nil, uint32(next))); err != nil {
				t.Fatal(err)
			}
			next++
		}
		for {
			b, seq := s.section(transport.MaxDatagram, 0)
			if b == nil {
				break
			}
			if _, err := r.ReadSection(b); err != nil {
				t.Fatalf("after %d messages: %v", delivered, err)
			}
			fates.acked[seq] = true
		}
		s.r.Acknowledge(fates, 0)
		for _, m := range drainReliable(r) {
			if got := int(binary.LittleEndian.Uint32(m)); got != delivered {
				t.Fatalf("message %d delivered as number %d", got, delivered)
			}
			delivered++
		}
	}
	if s.r.Pending() != 0 || r.Buffered() != 0 {
		t.Fatalf("pending %d, buffered %d", s.r.Pending(), r.Buffered())
	}
	t.Logf("%d messages in order across a 16-bit wrap, %d sections", total, s.r.Stats().Sections)
}
