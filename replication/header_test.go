package replication

import (
	"math/rand/v2"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// headerLink is one Peer writing header-only snapshots (an empty world)
// to one receiving Snapshot, with the acknowledgements a test decides.
type headerLink struct {
	t     *testing.T
	p     *Peer
	r     *Round
	rc    Snapshot
	seq   wire.Seq
	fates map[wire.Seq]string // "acked" or "lost"; absent: in flight
	sent  map[wire.Seq][]byte
}

func newHeaderLink(t *testing.T) *headerLink {
	s := &Schema{}
	return &headerLink{t: t, p: NewPeer(s), r: NewRound(s), fates: map[wire.Seq]string{}, sent: map[wire.Seq][]byte{}}
}

// send acknowledges what the fates say, writes a snapshot at tick for own
// and binds it to the next sequence, which it returns.
func (l *headerLink) send(tick uint32, own entity.ID) wire.Seq {
	l.p.Acknowledge(AckFunc(func(seq wire.Seq) (bool, bool) {
		f := l.fates[seq]
		return f == "acked", f == "lost"
	}))
	l.r.Begin(tick)
	payload := l.p.Write(nil, l.r, own, budgetBytes)
	l.seq++
	l.p.Sent(l.seq)
	l.sent[l.seq] = payload
	return l.seq
}

// read decodes the snapshot sent as seq at the receiver.
func (l *headerLink) read(seq wire.Seq, refs Refs) *Snapshot {
	l.t.Helper()
	if err := l.rc.Decode(l.p.schema, l.sent[seq], refs); err != nil {
		l.t.Fatalf("snapshot %d: %v", seq, err)
	}
	return &l.rc
}

// form returns the header form of the snapshot sent as seq: whether the
// tick and command numbers are whole, and whether own is stated.
func (l *headerLink) form(seq wire.Seq) (full, stated bool) {
	r := wire.NewReader(l.sent[seq])
	full, _ = r.ReadBool()
	width := shortBits
	if full {
		width = tickBits
	}
	r.ReadBits(width)
	stated, _ = r.ReadBool()
	return full, stated
}

func TestHeaderFullUntilASnapshotIsAcknowledged(t *testing.T) {
	l := newHeaderLink(t)
	own := entity.ID{Slot: 3, Gen: 1}
	for tick := uint32(65530); tick < 65540; tick++ {
		seq := l.send(tick, own)
		if full, stated := l.form(seq); !full || !stated {
			t.Fatalf("tick %d, nothing acknowledged: full %v, own stated %v", tick, full, stated)
		}
	}
	// Only a snapshot in the middle arrives, and its acknowledgement
	// reaches the server.
	if sn := l.read(5, Refs{}); sn.Tick != 65534 || sn.Own != own {
		t.Fatalf("read tick %d own %v", sn.Tick, sn.Own)
	}
	l.fates[5] = "acked"
	seq := l.send(65540, own)
	if full, stated := l.form(seq); full || stated {
		t.Fatalf("after an acknowledgement: full %v, own stated %v", full, stated)
	}
	if sn := l.read(seq, Refs{}); sn.Tick != 65540 || sn.Own != own {
		t.Fatalf("short header read as tick %d own %v", sn.Tick, sn.Own)
	}
	if len(l.sent[seq]) >= len(l.sent[1]) {
		t.Fatalf("the short header is %d bytes, the full one %d", len(l.sent[seq]), len(l.sent[1]))
	}
}

// TestHeaderShortFormsAcrossTheWrap runs ticks, newest sequences and judged
// ticks across 65535 → 65536 (and the tick across 2^32 → 0), every
// snapshot delivered and acknowledged, with the client's references
// anywhere their windows allow: each reads back whole.
func TestHeaderShortFormsAcrossTheWrap(t *testing.T) {
	for _, start := range []uint32{65400, 1<<32 - 200, 3 << 16} {
		l := newHeaderLink(t)
		own := entity.ID{Slot: 0, Gen: 1}
		rng := rand.New(rand.NewPCG(uint64(start), 1))
		short := 0
		for i := uint32(0); i < 400; i++ {
			tick := start + i
			c := Commands{Newest: start + 3*i, Judged: start + 2*i - 50, LowWater: uint8(i % 16)}
			l.p.SetCommands(c)
			seq := l.send(tick, own)
			if full, _ := l.form(seq); !full {
				short++
			}
			refs := Refs{
				Sequence:   c.Newest + uint32(rng.IntN(1<<16)),             // never below newest, at most 65535 above
				ClientTick: c.Judged + uint32(rng.IntN(1<<16)) - 1<<15 + 1, // within ±32767
			}
			sn := l.read(seq, refs)
			if sn.Tick != tick || sn.Own != own || !sn.HasCommands || sn.Commands != c {
				t.Fatalf("start %d, snapshot %d: read tick %d own %v %+v; wrote tick %d own %v %+v (refs %+v)",
					start, i, sn.Tick, sn.Own, sn.Commands, tick, own, c, refs)
			}
			l.fates[seq] = "acked"
		}
		if short < 390 {
			t.Fatalf("start %d: only %d of 400 headers short", start, short)
		}
	}
}

// TestHeaderTickWindow: a short tick is at most 32767 past the newest
// acknowledged snapshot's, whatever the receiver holds of what came after.
func TestHeaderTickWindow(t *testing.T) {
	l := newHeaderLink(t)
	first := l.send(100, entity.None)
	l.read(first, Refs{})
	l.fates[first] = "acked"
	in := l.send(200, entity.None) // in flight: the receiver may or may not read it
	at := l.send(100+maxShortAhead, entity.None)
	if full, _ := l.form(at); full {
		t.Fatal("a tick 32767 past the acknowledged one went whole")
	}
	past := l.send(100+maxShortAhead+1, entity.None)
	if full, _ := l.form(past); !full {
		t.Fatal("a tick 32768 past the acknowledged one went short")
	}
	// Both possible receivers read the short one right.
	alt := newHeaderLink(t)
	alt.p, alt.sent = l.p, l.sent
	alt.read(first, Refs{})
	alt.read(in, Refs{})
	if got := l.read(at, Refs{}).Tick; got != 100+maxShortAhead {
		t.Fatalf("read %d", got)
	}
	if got := alt.read(at, Refs{}).Tick; got != 100+maxShortAhead {
		t.Fatalf("after the snapshot in flight, read %d", got)
	}
}

// TestHeaderTickGoingBack: a tick below the last sent goes whole, and so
// does every later one until a snapshot from the step back on is
// acknowledged.
func TestHeaderTickGoingBack(t *testing.T) {
	l := newHeaderLink(t)
	l.read(l.send(10, entity.None), Refs{})
	l.fates[1] = "acked"
	l.read(l.send(20, entity.None), Refs{})
	back := l.send(15, entity.None)
	if full, _ := l.form(back); !full {
		t.Fatal("a tick below the last sent went short")
	}
	l.fates[2] = "acked"
	next := l.send(16, entity.None)
	if full, _ := l.form(next); !full {
		t.Fatal("a tick after a step back went short before the step back was acknowledged")
	}
	l.read(back, Refs{})
	l.fates[back] = "acked"
	again := l.send(17, entity.None)
	if full, _ := l.form(again); full {
		t.Fatal("still whole after the step back was acknowledged")
	}
	if got := l.read(again, Refs{}).Tick; got != 17 {
		t.Fatalf("read %d", got)
	}

	// Acknowledged at 100, then 50000 (read, its acknowledgement still
	// on the way), then back to 101: near the acknowledged tick, far from
	// what the receiver read last.
	l = newHeaderLink(t)
	l.read(l.send(100, entity.None), Refs{})
	l.fates[1] = "acked"
	l.read(l.send(50000, entity.None), Refs{})
	l.read(l.send(101, entity.None), Refs{})
	seq := l.send(102, entity.None)
	if full, _ := l.form(seq); !full {
		t.Fatal("a tick after a step back went short with only a snapshot before the step acknowledged")
	}
	if got := l.read(seq, Refs{}).Tick; got != 102 {
		t.Fatalf("read %d", got)
	}
}

func TestHeaderJudgedZeroGoesWhole(t *testing.T) {
	l := newHeaderLink(t)
	l.p.SetCommands(Commands{})
	l.read(l.send(100000, entity.None), Refs{})
	l.fates[1] = "acked"
	seq := l.send(100001, entity.None)
	if full, _ := l.form(seq); !full {
		t.Fatal("judged 0 went short")
	}
	// A client far along its own ticks still reads 0.
	if sn := l.read(seq, Refs{Sequence: 0, ClientTick: 90000}); sn.Commands.Judged != 0 || sn.Commands.Newest != 0 || sn.Tick != 100001 {
		t.Fatalf("read %+v at tick %d", sn.Commands, sn.Tick)
	}
	l.fates[seq] = "acked"
	l.p.SetCommands(Commands{Newest: 1, Judged: 90001})
	seq = l.send(100002, entity.None)
	if full, _ := l.form(seq); full {
		t.Fatal("a judged tick went whole")
	}
	if sn := l.read(seq, Refs{Sequence: 3, ClientTick: 90004}); sn.Commands.Judged != 90001 || sn.Commands.Newest != 1 {
		t.Fatalf("read %+v", sn.Commands)
	}
}

// TestOwnStatedAgainAfterALoss: a snapshot stating a new own entity is
// lost; every later one states it until one is acknowledged.
func TestOwnStatedAgainAfterALoss(t *testing.T) {
	l := newHeaderLink(t)
	a, b := entity.ID{Slot: 1, Gen: 1}, entity.ID{Slot: 2, Gen: 1}
	s1 := l.send(1, a)
	l.read(s1, Refs{})
	l.fates[s1] = "acked"
	s2 := l.send(2, a)
	if _, stated := l.form(s2); stated {
		t.Fatal("own stated again after it was acknowledged")
	}
	l.read(s2, Refs{})
	s3 := l.send(3, b) // lost on the way
	if _, stated := l.form(s3); !stated {
		t.Fatal("a new own entity not stated")
	}
	l.fates[s2], l.fates[s3] = "acked", "lost"
	for tick := uint32(4); tick < 8; tick++ {
		seq := l.send(tick, b)
		if _, stated := l.form(seq); !stated {
			t.Fatalf("tick %d: own not stated again while unacknowledged", tick)
		}
		l.fates[seq] = "lost" // delivered, every acknowledgement lost
		if sn := l.read(seq, Refs{}); sn.Own != b {
			t.Fatalf("tick %d: read own %v", tick, sn.Own)
		}
	}
	s8 := l.send(8, b)
	l.read(s8, Refs{})
	l.fates[s8] = "acked"
	s9 := l.send(9, b)
	if _, stated := l.form(s9); stated {
		t.Fatal("own stated after the new one was acknowledged")
	}
	if sn := l.read(s9, Refs{}); sn.Own != b {
		t.Fatalf("read own %v", sn.Own)
	}
	// To none: stated, as none.
	s10 := l.send(10, entity.None)
	if _, stated := l.form(s10); !stated {
		t.Fatal("a change to none not stated")
	}
	if sn := l.read(s10, Refs{}); !sn.Own.IsNone() {
		t.Fatalf("read own %v, want none", sn.Own)
	}
}

// TestOwnBackToAnEarlierOneIsStated: own goes a → b → a. The snapshot
// naming b may have been read (its acknowledgement lost), so the one back
// to a states a although a was acknowledged before.
func TestOwnBackToAnEarlierOneIsStated(t *testing.T) {
	l := newHeaderLink(t)
	a, b := entity.ID{Slot: 1, Gen: 1}, entity.ID{Slot: 2, Gen: 1}
	s1 := l.send(1, a)
	l.read(s1, Refs{})
	l.fates[s1] = "acked"
	s2 := l.send(2, b)
	l.read(s2, Refs{})
	l.fates[s2] = "lost" // read, but the acknowledgement never came
	s3 := l.send(3, a)
	if _, stated := l.form(s3); !stated {
		t.Fatal("a return to an earlier own entity not stated")
	}
	if sn := l.read(s3, Refs{}); sn.Own != a {
		t.Fatalf("read own %v, want %v", sn.Own, a)
	}
}

// TestHeaderOverALossyLink runs a Peer and a receiver over a link that
// loses, delays and drops acknowledgements at random, the own entity
// changing among four values and the tick now and then stepping back or
// jumping far: the receiver reads every header it gets exactly as written.
func TestHeaderOverALossyLink(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		l := newHeaderLink(t)
		owns := []entity.ID{entity.None, {Slot: 1, Gen: 1}, {Slot: 2, Gen: 1}, {Slot: 1, Gen: 2}}
		type want struct {
			tick uint32
			own  entity.ID
			c    Commands
		}
		type flight struct {
			seq wire.Seq
			at  int
		}
		wants := map[wire.Seq]want{}
		ackAt := map[wire.Seq]int{} // when the server learns of it; absent: never
		open := map[wire.Seq]bool{} // sent, no fate yet
		var link []flight
		var newest wire.Seq // the receiver's newest read
		var newestAcked wire.Seq
		tick, own := uint32(65000+rng.IntN(1000)), owns[1]
		c := Commands{Newest: 65500, Judged: 0}
		clientTick := uint32(70000)
		read, shortRead, sameRead := 0, 0, 0
		for round := range 3000 {
			// The server learns of acknowledgements; one not acknowledged
			// with a newer one acknowledged is lost.
			for seq, at := range ackAt {
				if at <= round {
					l.fates[seq] = "acked"
					newestAcked = max(newestAcked, seq)
					delete(ackAt, seq)
					delete(open, seq)
				}
			}
			for seq := range open {
				if _, coming := ackAt[seq]; seq < newestAcked && !coming {
					l.fates[seq] = "lost"
					delete(open, seq)
				}
			}
			switch r := rng.IntN(100); {
			case r < 10:
				own = owns[rng.IntN(len(owns))]
			case r == 10:
				tick -= uint32(rng.IntN(5))
			case r == 11:
				tick += 20000 + uint32(rng.IntN(30000))
			default:
				tick += 1 + uint32(rng.IntN(2))
			}
			clientTick++
			c.Newest += uint32(rng.IntN(3))
			if round > 20 {
				c.Judged = clientTick - 5 - uint32(rng.IntN(20))
			}
			l.p.SetCommands(c)
			seq := l.send(tick, own)
			wants[seq] = want{tick, own, c}
			open[seq] = true
			if rng.IntN(100) >= 25 {
				link = append(link, flight{seq, round + rng.IntN(4)})
			}
			kept := link[:0]
			for _, f := range link {
				if f.at > round {
					kept = append(kept, f)
					continue
				}
				if f.seq <= newest {
					continue // the transport refuses what is not newer
				}
				newest = f.seq
				full, stated := l.form(f.seq)
				sn := l.read(f.seq, Refs{Sequence: c.Newest + uint32(rng.IntN(40)), ClientTick: clientTick})
				w := wants[f.seq]
				if sn.Tick != w.tick || sn.Own != w.own || sn.Commands != w.c {
					t.Fatalf("seed %d, snapshot %d (full %v, own stated %v): read tick %d own %v %+v; wrote tick %d own %v %+v",
						seed, f.seq, full, stated, sn.Tick, sn.Own, sn.Commands, w.tick, w.own, w.c)
				}
				read++
				if !full {
					shortRead++
				}
				if !stated {
					sameRead++
				}
				if rng.IntN(100) >= 20 { // else the acknowledgement is lost
					ackAt[f.seq] = round + 1 + rng.IntN(8)
				}
			}
			link = kept
		}
		if shortRead < read/2 || sameRead < read/3 {
			t.Fatalf("seed %d: of %d read, %d short, %d own not stated", seed, read, shortRead, sameRead)
		}
	}
}
