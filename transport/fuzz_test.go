package transport

import (
	"errors"
	"testing"
	"time"

	"vkm/wire"
)

// FuzzOpen feeds a Conn a mix of arbitrary datagrams, datagrams from a real
// peer (some corrupted, some replayed) and its own sends, on a clock that
// moves by arbitrary steps. It must never panic and its state must stay
// consistent after every step.
//
// The input is a list of operations. Each starts with a byte whose low three
// bits choose the operation and whose high five bits move the clock by that
// many milliseconds; some operations take more bytes after it.
func FuzzOpen(f *testing.F) {
	peer := NewConn(Config{}, 0)
	d0, _, _ := peer.Seal(nil, []byte("hello"), 0)
	d1, _, _ := peer.Seal(nil, nil, ms(16))
	f.Add(append([]byte{0, byte(len(d0))}, d0...))
	f.Add(append(append([]byte{0, byte(len(d0))}, d0...), append([]byte{0, byte(len(d1))}, d1...)...))
	f.Add([]byte{1, 2, 2, 1, 1, 2, 3, 4, 5, 2, 2})
	f.Add([]byte{0x81, 0x82, 3, 4, 0, 0x2A, 3, 9, 0xFF, 2, 5, 2})
	f.Add([]byte{0, 10, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		c := NewConn(Config{LossWindow: 64}, 0)
		peer := NewConn(Config{}, 0)
		var last []byte // the peer's newest datagram, for replays
		var opens uint64
		now := Time(0)
		for len(ops) > 0 {
			op := ops[0]
			ops = ops[1:]
			now = now.Add(time.Duration(op>>3) * time.Millisecond)
			var datagram []byte
			switch op & 7 {
			case 0: // an arbitrary datagram: a length byte, then that many bytes
				if len(ops) == 0 {
					return
				}
				n := min(int(ops[0]), len(ops)-1)
				datagram, ops = ops[1:1+n], ops[1+n:]
			case 1: // c sends to the peer, which hears it
				d := sealConn(t, c, now)
				_, _ = peer.Open(d, now)
				continue
			case 2: // the peer sends to c
				last = sealConn(t, peer, now)
				datagram = last
			case 3: // the peer's newest datagram with one byte changed
				if len(ops) < 2 || len(last) == 0 {
					return
				}
				datagram = append([]byte(nil), last...)
				datagram[int(ops[0])%len(datagram)] ^= ops[1] | 1
				ops = ops[2:]
			case 4: // the peer's newest datagram again
				datagram = last
			default: // c sends into the void
				sealConn(t, c, now)
				continue
			}
			opens++
			p, err := c.Open(datagram, now)
			if err == nil && len(p) != len(datagram)-HeaderLen {
				t.Fatalf("payload of %d bytes from a %d-byte datagram", len(p), len(datagram))
			}
			if err != nil && !errors.Is(err, ErrStale) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error %v", err)
			}
			checkConsistent(t, c, opens, now)
		}
		checkRing(t, c)
	})
}

func sealConn(t *testing.T, c *Conn, now Time) []byte {
	d, _, err := c.Seal(nil, []byte("payload"), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) > MaxDatagram {
		t.Fatalf("sealed %d bytes", len(d))
	}
	return d
}

// checkConsistent checks the invariants a Conn keeps whatever it was fed.
func checkConsistent(t *testing.T, c *Conn, opens uint64, now Time) {
	t.Helper()
	s := c.Stats()
	if s.PacketsReceived+s.Stale+s.Malformed != opens {
		t.Fatalf("stats %+v do not add up to %d opens", s, opens)
	}
	if s.Acked+s.Lost > s.PacketsSent {
		t.Fatalf("stats %+v: more settled than sent", s)
	}
	newly := c.NewlyAcked()
	if len(newly) > ackBits+1 {
		t.Fatalf("%d newly acked", len(newly))
	}
	for _, seq := range newly {
		if acked, known := c.Acked(seq); !acked || !known {
			t.Fatalf("newly acked %d: acked %v known %v", seq, acked, known)
		}
	}
	if l := c.Loss(now); l < 0 || l > 1 {
		t.Fatalf("loss %v", l)
	}
	if c.RTT() < 0 || c.RTTVar() < 0 || c.RTO() <= 0 {
		t.Fatalf("RTT %v RTTVar %v RTO %v", c.RTT(), c.RTTVar(), c.RTO())
	}
}

// checkRing checks that every remembered packet is acked, lost or in flight,
// never two of them, and that the judging cursor stays inside the ring.
func checkRing(t *testing.T, c *Conn) {
	t.Helper()
	if d := wire.Diff(c.next, c.judgeNext); d < 0 || d > sentRing {
		t.Fatalf("judging cursor %d is %d behind next %d", c.judgeNext, d, c.next)
	}
	for i := 1; i <= sentRing; i++ {
		seq := c.next - wire.Seq(i)
		acked, known := c.Acked(seq)
		if known && acked && c.Lost(seq) {
			t.Fatalf("seq %d both acked and lost", seq)
		}
	}
}
