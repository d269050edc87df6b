package transport

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"vkm/wire"
)

// interval64 is one packet interval at 64 a second.
const interval64 = time.Second / 64

func TestAcksRideTraffic(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	d, seq := mustSeal(t, a, []byte("command"), ms(0))
	p, err := b.Open(d, ms(20))
	if err != nil || string(p) != "command" {
		t.Fatalf("open: %q, %v", p, err)
	}
	if len(b.NewlyAcked()) != 0 {
		t.Fatalf("B saw acks of packets it never sent: %v", b.NewlyAcked())
	}
	if acked, known := a.Acked(wire.Seq(seq)); acked || !known {
		t.Fatalf("before any reply: acked %v known %v", acked, known)
	}

	reply, _ := mustSeal(t, b, []byte("snapshot"), ms(30))
	if _, err := a.Open(reply, ms(50)); err != nil {
		t.Fatal(err)
	}
	if got := a.NewlyAcked(); !slices.Equal(got, []wire.Seq{wire.Seq(seq)}) {
		t.Fatalf("NewlyAcked = %v, want [%d]", got, seq)
	}
	if acked, known := a.Acked(wire.Seq(seq)); !acked || !known {
		t.Fatalf("after the reply: acked %v known %v", acked, known)
	}
	if a.RTT() != 50*time.Millisecond || a.RTTVar() != 25*time.Millisecond {
		t.Fatalf("first sample: RTT %v RTTVar %v, want 50ms 25ms", a.RTT(), a.RTTVar())
	}
	// A second reply acknowledges nothing new.
	again, _ := mustSeal(t, b, nil, ms(60))
	if _, err := a.Open(again, ms(70)); err != nil {
		t.Fatal(err)
	}
	if len(a.NewlyAcked()) != 0 {
		t.Fatalf("an ack counted twice: %v", a.NewlyAcked())
	}
	if s := a.Stats(); s.Acked != 1 || s.PacketsSent != 1 || s.PacketsReceived != 2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestStaleAndDuplicateRefused(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	d0, _ := mustSeal(t, a, []byte{0}, ms(0))
	d1, _ := mustSeal(t, a, []byte{1}, ms(1))
	d2, _ := mustSeal(t, a, []byte{2}, ms(2))

	if _, err := b.Open(d1, ms(10)); err != nil {
		t.Fatal(err)
	}
	for _, late := range [][]byte{d0, d1} { // reordered, then duplicated
		if _, err := b.Open(late, ms(11)); !errors.Is(err, ErrStale) {
			t.Fatalf("late datagram: err = %v, want ErrStale", err)
		}
	}
	if _, err := b.Open(d2, ms(12)); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.Stale != 2 || s.PacketsReceived != 2 || s.Malformed != 0 {
		t.Fatalf("stats %+v", s)
	}
	// B acknowledges only what it accepted: 1 and 2, never the refused 0.
	reply, _ := mustSeal(t, b, nil, ms(13))
	if _, err := a.Open(reply, ms(20)); err != nil {
		t.Fatal(err)
	}
	for seq, want := range []bool{false, true, true} {
		if acked, _ := a.Acked(wire.Seq(seq)); acked != want {
			t.Errorf("Acked(%d) = %v, want %v", seq, acked, want)
		}
	}
	// A refused datagram does not count as hearing from the peer.
	c := NewConn(Config{Timeout: time.Second}, 0)
	d, _ := mustSeal(t, NewConn(Config{}, 0), nil, 0)
	if _, err := c.Open(d, ms(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(d, ms(900)); !errors.Is(err, ErrStale) {
		t.Fatal(err)
	}
	if !c.TimedOut(ms(1100)) {
		t.Fatal("a stale duplicate kept the connection alive")
	}
}

// Two ends exchange 70,000 datagrams each way, so both sequence counters wrap.
// A drops every 97th datagram on its way to B: each must be judged lost, and
// every other one acknowledged by the reply that follows it.
func TestSequenceWrapKeepsWorking(t *testing.T) {
	const n = 70000
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	var bufA, bufB []byte
	wraps := 0
	now := Time(0)
	for i := range n {
		var seq wire.Seq
		var err error
		bufA, seq, err = a.Seal(bufA[:0], []byte{byte(i)}, now)
		if err != nil {
			t.Fatal(err)
		}
		if seq == 0 {
			wraps++
		}
		dropped := i%97 == 50
		if !dropped {
			p, err := b.Open(bufA, now.Add(time.Millisecond))
			if err != nil || len(p) != 1 || p[0] != byte(i) {
				t.Fatalf("packet %d (seq %d): %v", i, seq, err)
			}
		}
		bufB, _, err = b.Seal(bufB[:0], nil, now.Add(2*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Open(bufB, now.Add(3*time.Millisecond)); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		newly := a.NewlyAcked()
		if dropped {
			if len(newly) != 0 {
				t.Fatalf("packet %d was dropped but %v acked", i, newly)
			}
		} else if !slices.Equal(newly, []wire.Seq{seq}) {
			t.Fatalf("packet %d (seq %d): NewlyAcked = %v", i, seq, newly)
		}
		if i >= 33 && (i-33)%97 == 50 {
			if old := seq - 33; !a.Lost(old) {
				t.Fatalf("packet %d (seq %d) not judged lost 33 packets later", i-33, old)
			}
		}
		now = now.Add(interval64)
	}
	if wraps != 2 {
		t.Fatalf("sequence passed 0 %d times, want 2 (start and one wrap)", wraps)
	}
	s := a.Stats()
	wantLost := uint64(0)
	for i := range n - 33 {
		if i%97 == 50 {
			wantLost++
		}
	}
	if s.Lost != wantLost || s.Acked+s.Lost > s.PacketsSent || s.Stale != 0 || s.Malformed != 0 {
		t.Fatalf("stats %+v, want %d lost", s, wantLost)
	}
	if rtt := a.RTT(); rtt != 3*time.Millisecond {
		t.Fatalf("RTT %v, want 3ms", rtt)
	}
}

// With a fixed 50 ms each way and replies sent on arrival, every sample is
// exactly 100 ms.
func TestRTTExactOnPingPong(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	now := Time(0)
	for i := range 200 {
		d, _ := mustSeal(t, a, nil, now)
		if _, err := b.Open(d, now.Add(50*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		r, _ := mustSeal(t, b, nil, now.Add(50*time.Millisecond))
		if _, err := a.Open(r, now.Add(100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if a.RTT() != 100*time.Millisecond {
			t.Fatalf("round %d: RTT %v", i, a.RTT())
		}
		if i == 0 && a.RTTVar() != 50*time.Millisecond {
			t.Fatalf("first RTTVar %v, want R/2", a.RTTVar())
		}
		now = now.Add(200 * time.Millisecond)
	}
	if a.RTTVar() > time.Millisecond {
		t.Fatalf("RTTVar %v did not decay", a.RTTVar())
	}
}

// Both ends stream at 64 a second over 50 ms each way: the RTT settles near
// 100 ms plus the wait for the peer's next datagram (up to 15.6 ms).
func TestRTTConvergesToLinkDelay(t *testing.T) {
	p := &pairRun{
		a: NewConn(Config{}, 0), b: NewConn(Config{}, 0),
		ab: newTestLink(50*time.Millisecond, 0, 1), ba: newTestLink(50*time.Millisecond, 0, 2),
		interval: interval64, phase: 7 * time.Millisecond,
		payload: make([]byte, 100),
	}
	p.run(t, 0, ms(20_000), nil)
	for name, c := range map[string]*Conn{"A": p.a, "B": p.b} {
		t.Logf("%s: RTT %v RTTVar %v RTO %v", name, c.RTT(), c.RTTVar(), c.RTO())
		if rtt := c.RTT(); rtt < 100*time.Millisecond || rtt > 116*time.Millisecond {
			t.Errorf("%s: RTT %v, want 100..116 ms", name, rtt)
		}
		if c.RTTVar() > 10*time.Millisecond {
			t.Errorf("%s: RTTVar %v on a fixed-delay link", name, c.RTTVar())
		}
		if loss := c.Loss(ms(20_000)); loss != 0 {
			t.Errorf("%s: loss %v on a lossless link", name, loss)
		}
	}
}

func TestRTTSmoothingFollowsRFC6298(t *testing.T) {
	c := NewConn(Config{}, 0)
	samples := []time.Duration{80, 120, 100, 300, 90, 95, 100, 40, 100, 100}
	var srtt, rttvar float64
	for i, s := range samples {
		r := float64(s * time.Millisecond)
		c.sampleRTT(s * time.Millisecond)
		if i == 0 {
			srtt, rttvar = r, r/2
		} else {
			rttvar = 0.75*rttvar + 0.25*math.Abs(srtt-r)
			srtt = 0.875*srtt + 0.125*r
		}
		if d := math.Abs(float64(c.RTT()) - srtt); d > 10 { // ns of integer rounding
			t.Fatalf("sample %d: SRTT %v, want %v", i, c.RTT(), time.Duration(srtt))
		}
		if d := math.Abs(float64(c.RTTVar()) - rttvar); d > 10 {
			t.Fatalf("sample %d: RTTVAR %v, want %v", i, c.RTTVar(), time.Duration(rttvar))
		}
	}
	if want := c.RTT() + 4*c.RTTVar(); c.RTO() != want {
		t.Fatalf("RTO %v, want %v", c.RTO(), want)
	}
}

// Over a link losing 10% each way, the loss figure matches what the link did.
func TestLossEstimateOnLossyLink(t *testing.T) {
	const seed, loss = 42, 0.10
	p := &pairRun{
		a: NewConn(Config{}, 0), b: NewConn(Config{}, 0),
		ab: newTestLink(40*time.Millisecond, loss, seed), ba: newTestLink(40*time.Millisecond, loss, seed+1),
		interval: interval64, phase: 3 * time.Millisecond,
	}
	var sum float64
	var samples int
	p.run(t, 0, ms(60_000), func(now Time) {
		if now >= ms(5000) && now%Time(time.Second) == 0 {
			sum += p.a.Loss(now)
			samples++
		}
	})
	s := p.a.Stats()
	cumulative := float64(s.Lost) / float64(s.PacketsSent)
	mean := sum / float64(samples)
	t.Logf("seed %d: link A→B sent %d dropped %d (%.2f%%); A sent %d acked %d lost %d (%.2f%%); Loss() mean over %d samples %.2f%%",
		seed, p.ab.sent, p.ab.lost, 100*float64(p.ab.lost)/float64(p.ab.sent),
		s.PacketsSent, s.Acked, s.Lost, 100*cumulative, samples, 100*mean)
	if math.Abs(cumulative-loss) > 0.02 {
		t.Errorf("cumulative loss %.3f, want %.2f±0.02", cumulative, loss)
	}
	if math.Abs(mean-loss) > 0.02 {
		t.Errorf("mean Loss() %.3f, want %.2f±0.02", mean, loss)
	}
	// Every datagram the link dropped is judged lost, and nothing else is
	// (the ack field's redundancy rides out 10% loss on the way back).
	inFlight := s.PacketsSent - s.Acked - s.Lost
	if int(s.Lost) > p.ab.lost || int(s.Lost)+int(inFlight) < p.ab.lost {
		t.Errorf("lost %d (in flight %d), link dropped %d", s.Lost, inFlight, p.ab.lost)
	}
}

func TestLossIgnoresPacketsWithinOneRTO(t *testing.T) {
	c := NewConn(Config{}, 0)
	for i := range 10 {
		mustSeal(t, c, nil, ms(i))
	}
	if l := c.Loss(ms(10)); l != 0 {
		t.Fatalf("loss %v with every packet still within the initial RTO", l)
	}
	if l := c.Loss(ms(2000)); l != 1 {
		t.Fatalf("loss %v with nothing acknowledged after 2 s", l)
	}
}

func TestLostRule(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	send := func(from, to int, skip ...int) {
		for i := from; i < to; i++ {
			d, _ := mustSeal(t, a, nil, ms(i))
			if !slices.Contains(skip, i) {
				if _, err := b.Open(d, ms(i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		r, _ := mustSeal(t, b, nil, ms(to))
		if _, err := a.Open(r, ms(to)); err != nil {
			t.Fatal(err)
		}
	}
	send(0, 41, 3, 10) // newest acked is 40
	check := func(seq wire.Seq, wantAcked, wantLost bool) {
		t.Helper()
		acked, known := a.Acked(seq)
		if !known || acked != wantAcked || a.Lost(seq) != wantLost {
			t.Errorf("seq %d: acked %v known %v lost %v; want acked %v lost %v",
				seq, acked, known, a.Lost(seq), wantAcked, wantLost)
		}
	}
	check(3, false, true)   // 37 behind the ack: out of the field's reach
	check(10, false, false) // 30 behind: still in flight, a later header may report it
	check(40, true, false)
	send(41, 43)
	check(10, false, false) // 32 behind: bit 31 of the field still reaches it
	send(43, 44)
	check(10, false, true) // 33 behind: out of reach
	if _, known := a.Acked(1000); known {
		t.Error("a sequence never sent is known")
	}
	// A forgotten packet: more than 1024 sends ago.
	for i := range 1100 {
		mustSeal(t, a, nil, ms(100+i))
	}
	if _, known := a.Acked(40); known || a.Lost(40) {
		t.Error("a packet 1100 sends old is still known")
	}
}

func TestTimeout(t *testing.T) {
	start := ms(5000)
	c := NewConn(Config{}, start)
	if c.TimedOut(start.Add(10*time.Second - 1)) {
		t.Fatal("timed out early")
	}
	if !c.TimedOut(start.Add(10 * time.Second)) {
		t.Fatal("no timeout after 10 s of silence")
	}
	d, _ := mustSeal(t, NewConn(Config{}, 0), nil, 0)
	heard := start.Add(9 * time.Second)
	if _, err := c.Open(d, heard); err != nil {
		t.Fatal(err)
	}
	if c.TimedOut(heard.Add(10*time.Second - 1)) {
		t.Fatal("an accepted datagram did not restart the timeout")
	}
	if !c.TimedOut(heard.Add(10 * time.Second)) {
		t.Fatal("no timeout 10 s after the last datagram")
	}
	if short := NewConn(Config{Timeout: time.Second}, 0); !short.TimedOut(ms(1000)) {
		t.Fatal("Config.Timeout ignored")
	}
}

func TestKeepAliveDeadline(t *testing.T) {
	c := NewConn(Config{}, ms(100))
	if !c.NeedsKeepAlive(ms(100)) || c.NextDeadline() != ms(100) {
		t.Fatalf("a new Conn should want to send at once: deadline %v", c.NextDeadline())
	}
	mustSeal(t, c, nil, ms(100))
	if c.NextDeadline() != ms(350) {
		t.Fatalf("deadline %v, want 350ms", time.Duration(c.NextDeadline()))
	}
	if c.NeedsKeepAlive(ms(349)) || !c.NeedsKeepAlive(ms(350)) {
		t.Fatal("keep-alive not due exactly 250 ms after the last send")
	}
	mustSeal(t, c, []byte("x"), ms(300))
	if c.NextDeadline() != ms(550) {
		t.Fatalf("a send did not push the deadline: %v", time.Duration(c.NextDeadline()))
	}
	// When the timeout comes first, it is the deadline.
	q := NewConn(Config{Timeout: 100 * time.Millisecond, KeepAlive: time.Second}, 0)
	mustSeal(t, q, nil, 0)
	if q.NextDeadline() != ms(100) {
		t.Fatalf("deadline %v, want the 100 ms timeout", time.Duration(q.NextDeadline()))
	}
}

func TestEveryStrictPrefixRefused(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	d, _ := mustSeal(t, a, []byte("a payload of some bytes"), 0)
	for n := range len(d) {
		if _, err := b.Open(d[:n], 0); !errors.Is(err, ErrMalformed) {
			t.Errorf("prefix %d/%d: err = %v, want ErrMalformed", n, len(d), err)
		}
	}
	if _, err := b.Open(append(d[:len(d):len(d)], 0), 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("a trailing byte: err = %v, want ErrMalformed", err)
	}
	if s := b.Stats(); s.Malformed != uint64(len(d))+1 || s.PacketsReceived != 0 {
		t.Fatalf("stats %+v", s)
	}
	if p, err := b.Open(d, 0); err != nil || string(p) != "a payload of some bytes" {
		t.Fatalf("the whole datagram after its prefixes: %q, %v", p, err)
	}
}

func TestNothingLargerThanMaxDatagram(t *testing.T) {
	const outer = 12 // the session's message header
	c := NewConn(Config{}, 0)
	if got := c.MaxPayload(outer); got != MaxDatagram-outer-HeaderLen {
		t.Fatalf("MaxPayload(%d) = %d", outer, got)
	}
	if c.MaxPayload(MaxDatagram) != 0 {
		t.Fatal("MaxPayload went negative")
	}
	dst := make([]byte, outer, MaxDatagram)
	full := make([]byte, c.MaxPayload(outer))
	d, seq, err := c.Seal(dst, full, 0)
	if err != nil || len(d) != MaxDatagram || seq != 0 {
		t.Fatalf("a full datagram: %d bytes, seq %d, %v", len(d), seq, err)
	}
	if _, _, err := c.Seal(dst, append(full, 0), 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one byte over: %v", err)
	}
	if _, _, err := c.Seal(nil, make([]byte, MaxDatagram), 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("with no outer header: %v", err)
	}
	if _, seq, _ := c.Seal(nil, nil, 0); seq != 1 || c.Stats().PacketsSent != 2 {
		t.Fatal("a refused Seal used a sequence")
	}
	// A datagram over the limit is refused on the way in, too.
	big := make([]byte, MaxDatagram+1)
	big[8], big[9] = byte((MaxDatagram+1-HeaderLen)&0xFF), byte((MaxDatagram+1-HeaderLen)>>8)
	if _, err := NewConn(Config{}, 0).Open(big, 0); !errors.Is(err, ErrMalformed) {
		t.Fatalf("oversize datagram: %v", err)
	}
}

func TestAckOfUnsentPacketRefused(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	mustSeal(t, b, nil, 0) // B has sent sequence 0 only
	forged := []byte{7, 0, 5, 0, 0, 0, 0, 0, 0, 0}
	if _, err := b.Open(forged, 0); !errors.Is(err, ErrMalformed) {
		t.Fatalf("ack of sequence 5: %v", err)
	}
	forged[2] = 0
	if _, err := b.Open(forged, 0); err != nil {
		t.Fatalf("ack of sequence 0: %v", err)
	}
	// A fresh end's first header says "nothing received" and is accepted.
	d, _ := mustSeal(t, a, nil, 0)
	if _, err := NewConn(Config{}, 0).Open(d, 0); err != nil {
		t.Fatal(err)
	}
}

func TestLossWindowCapped(t *testing.T) {
	if got := (Config{LossWindow: 5000}).withDefaults().LossWindow; got != sentRing {
		t.Fatalf("LossWindow %d, want %d", got, sentRing)
	}
	if got := (Config{}).withDefaults(); got.LossWindow != DefaultLossWindow ||
		got.Timeout != DefaultTimeout || got.KeepAlive != DefaultKeepAlive {
		t.Fatalf("defaults %+v", got)
	}
}

func TestSealAndOpenDoNotAllocate(t *testing.T) {
	a, b := NewConn(Config{}, 0), NewConn(Config{}, 0)
	bufA, bufB := make([]byte, 0, MaxDatagram), make([]byte, 0, MaxDatagram)
	payload := make([]byte, 200)
	now := Time(0)
	allocs := testing.AllocsPerRun(1000, func() {
		d, _, _ := a.Seal(bufA[:0], payload, now)
		_, _ = b.Open(d, now)
		d, _, _ = b.Seal(bufB[:0], payload, now)
		_, _ = a.Open(d, now)
		_ = a.NewlyAcked()
		now = now.Add(interval64)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per exchange", allocs)
	}
}

func BenchmarkSealOpen(b *testing.B) {
	x, y := NewConn(Config{}, 0), NewConn(Config{}, 0)
	buf := make([]byte, 0, MaxDatagram)
	payload := make([]byte, 500)
	now := Time(0)
	b.ReportAllocs()
	for b.Loop() {
		d, _, _ := x.Seal(buf[:0], payload, now)
		_, _ = y.Open(d, now)
		d, _, _ = y.Seal(buf[:0], nil, now)
		_, _ = x.Open(d, now)
		now = now.Add(interval64)
	}
}
