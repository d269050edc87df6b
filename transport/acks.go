package transport

import (
	"time"

	"vkm/wire"
)

// fate is what became of a sent packet.
type fate uint8

const (
	fateNone     fate = iota // slot never used
	fateInFlight             // sent, not yet acknowledged or judged lost
	fateAcked                // the peer acknowledged it
	fateLost                 // it can no longer be acknowledged
)

// sentPacket is one slot of the sent ring.
type sentPacket struct {
	at   Time
	seq  wire.Seq
	fate fate
}

// slot returns the ring slot a sequence maps to.
func (c *Conn) slot(seq wire.Seq) *sentPacket { return &c.sent[int(seq)&(sentRing-1)] }

// lookup returns the record of seq, or nil when seq was never sent or has been
// forgotten (more than sentRing sends ago).
func (c *Conn) lookup(seq wire.Seq) *sentPacket {
	if d := wire.Diff(c.next, seq); d < 1 || d > sentRing {
		return nil
	}
	if p := c.slot(seq); p.fate != fateNone && p.seq == seq {
		return p
	}
	return nil
}

// recordSent remembers that seq went out at now. The packet it displaces
// from the ring, sentRing sends ago, counts as lost if it was never settled:
// nothing could acknowledge it any more.
func (c *Conn) recordSent(seq wire.Seq, now Time) {
	p := c.slot(seq)
	if p.fate == fateInFlight {
		c.stats.Lost++
	}
	*p = sentPacket{at: now, seq: seq, fate: fateInFlight}
	if wire.Diff(seq, c.judgeNext) >= sentRing {
		c.judgeNext = seq - sentRing + 1 // keep the judging cursor inside the ring
	}
}

// processAcks applies an accepted header's ack and ack bits.
func (c *Conn) processAcks(ack wire.Seq, bits uint32, now Time) {
	c.ackOne(ack, now)
	for i := range ackBits {
		if bits&(1<<i) != 0 {
			c.ackOne(ack-1-wire.Seq(i), now)
		}
	}
	if c.lookup(ack) != nil && (!c.haveAcked || ack.Newer(c.newestAcked)) {
		c.newestAcked, c.haveAcked = ack, true
		c.judgeUnreachable()
	}
}

// ackOne settles one acknowledged sequence, if it is one still in flight.
func (c *Conn) ackOne(seq wire.Seq, now Time) {
	p := c.lookup(seq)
	if p == nil || p.fate != fateInFlight {
		return // unknown, already acknowledged, or already judged lost
	}
	p.fate = fateAcked
	c.lastAckAt = now
	c.stats.Acked++
	c.newly[c.nNewly] = seq
	c.nNewly++
	c.sampleRTT(now.Sub(p.at))
}

// judgeUnreachable marks lost every in-flight packet that has fallen out of
// the reach of the peer's ack field: more than 32 behind the newest sequence
// it acknowledged. The peer accepts only ever-newer sequences, so its ack
// never moves back and such a packet can never be acknowledged.
func (c *Conn) judgeUnreachable() {
	for c.judgeNext != c.next && wire.Diff(c.newestAcked, c.judgeNext) > ackBits {
		if p := c.lookup(c.judgeNext); p != nil && p.fate == fateInFlight {
			p.fate = fateLost
			c.stats.Lost++
		}
		c.judgeNext++
	}
}

// NewlyAcked returns the sequences the last Open acknowledged for the first
// time, newest first (at most 33). The slice aliases the Conn's own storage:
// it is valid until the next Open, and the caller must not keep it.
func (c *Conn) NewlyAcked() []wire.Seq { return c.newly[:c.nNewly] }

// Acked reports whether the sent packet seq has been acknowledged. known is
// false for a sequence never sent or sent more than 1024 packets ago, whose
// fate is forgotten; acked is then false too.
func (c *Conn) Acked(seq wire.Seq) (acked, known bool) {
	p := c.lookup(seq)
	if p == nil {
		return false, false
	}
	return p.fate == fateAcked, true
}

// Lost reports whether the sent packet seq can no longer be acknowledged.
//
// The rule: a packet is lost once the peer has acknowledged a sequence more
// than 32 newer than it without acknowledging it. The ack field reaches only
// 32 sequences behind the ack, and the peer's ack only moves forward (it
// refuses anything older than what it accepted), so from then on no header
// can confirm it. A packet displaced from the 1024-entry record unsettled
// counts as lost too, but is no longer known, so Lost reports false for it.
//
// Lost covers more than the link's drops: a datagram that arrived after a
// newer one was refused as stale by the peer and is lost too, since nothing
// of it was applied. Lost is final and errs on the safe side: a lost packet
// may in fact have been applied if every header reporting it was itself lost
// on the way back (33 in a row); replication then treats it as not received,
// which costs a resend of state and never a missing one. A packet that is
// neither acked nor lost is still in flight.
func (c *Conn) Lost(seq wire.Seq) bool {
	p := c.lookup(seq)
	return p != nil && p.fate == fateLost
}

// sampleRTT folds one round-trip sample into the estimate as RFC 6298
// section 2 does: the first sample sets SRTT = R and RTTVAR = R/2; later ones
// move RTTVAR a quarter of the way to |SRTT-R| (using the old SRTT) and SRTT
// an eighth of the way to R.
func (c *Conn) sampleRTT(r time.Duration) {
	r = max(r, 0) // a caller's clock that stepped back gives no negative sample
	if !c.haveRTT {
		c.srtt, c.rttvar, c.haveRTT = r, r/2, true
		return
	}
	dev := c.srtt - r
	if dev < 0 {
		dev = -dev
	}
	c.rttvar += (dev - c.rttvar) / 4
	c.srtt += (r - c.srtt) / 8
}

// RTT returns the smoothed round-trip time, or 0 before the first sample. It
// includes the peer's wait for its next datagram, since an acknowledgement
// rides one: at 64 datagrams a second that adds up to 15.6 ms.
func (c *Conn) RTT() time.Duration { return c.srtt }

// RTTVar returns the smoothed mean deviation of the round-trip time, or 0
// before the first sample.
func (c *Conn) RTTVar() time.Duration { return c.rttvar }

// RTO returns how long after sending a packet its acknowledgement is
// overdue: SRTT + max(4·RTTVAR, 16 ms), or 1 s before the first sample. Loss
// leaves packets younger than this out of its count.
func (c *Conn) RTO() time.Duration {
	if !c.haveRTT {
		return initialRTO
	}
	return c.srtt + max(4*c.rttvar, minRTOSpread)
}

// Loss returns the share, in [0, 1], of recently sent packets that were never
// acknowledged: of the last LossWindow packets sent, those sent at least one
// RTO before now, plus any judged lost sooner, excluding the rest as still
// undecided. It is 0 when none qualifies. Loss scans the window, so it suits
// a status line or a once-a-second figure rather than a per-packet call.
func (c *Conn) Loss(now Time) float64 {
	rto := c.RTO()
	var decided, lost int
	for i := 1; i <= c.cfg.LossWindow; i++ {
		p := c.lookup(c.next - wire.Seq(i))
		if p == nil {
			break // fewer packets sent than the window holds
		}
		switch {
		case p.fate == fateLost:
			lost++
		case now.Sub(p.at) < rto:
			continue
		case p.fate == fateInFlight:
			lost++
		}
		decided++
	}
	if decided == 0 {
		return 0
	}
	return float64(lost) / float64(decided)
}
