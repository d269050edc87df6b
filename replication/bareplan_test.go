package replication

import (
	"bytes"
	"slices"
	"testing"

	"vkm/internal/entity"
	"vkm/wire"
)

// TestBarePlansMatchWalk plans every entity of a world of circling bodies
// for connections acknowledging at delays of one to three rounds, two of
// them losing snapshots, both the short way a bare moving body takes
// (roundEnt.bare) and walking its types, and checks that both find the
// same width, actions and findings, and that each connection is sent
// what a twin that always walks is sent. Some bodies carry a Health now
// and then (so a baseline may hold a type the body no longer has), stand
// still with their velocity kept now and then (so nothing of theirs is
// this round's), stop, or are replaced by a new occupant.
func TestBarePlansMatchWalk(t *testing.T) {
	const peers, bodies, delays = 6, 36, 3
	s := testSchema(t)
	w, step := circling(bodies)
	r := NewRound(s)
	ps, twins := make([]*Peer, peers), make([]*Peer, peers)
	for i := range ps {
		ps[i], twins[i] = newPeer(s), newPeer(s)
		twins[i].generalPlans = true
	}
	var seq wire.Seq
	fate := func(i int) AckFunc {
		return func(q wire.Seq) (bool, bool) {
			if wire.Diff(seq, q) < 1+i%delays {
				return false, false
			}
			lost := i >= peers-2 && q%4 == 0
			return !lost, lost
		}
	}
	type state struct {
		t  entity.Transform
		rb entity.Rigidbody
	}
	last := map[uint32]state{}
	short, walkedBare, freshShort := 0, 0, 0
	for tick := 1; tick <= 96; tick++ {
		step(tick)
		for slot := uint32(1); slot <= bodies; slot++ {
			e := w.ents[slot]
			switch {
			case slot%5 == 0:
				// A Health on for eight ticks, off for eight.
				if tick/8%2 == 0 {
					e.health = entity.Values{float64(tick % 100)}
				} else {
					e.health = nil
				}
			case slot%7 == 0 && tick%4 == 0:
				// Still for a tick, its velocity kept: its Transform
				// and Rigidbody as they were.
				*e.t, *e.rb = last[slot].t, last[slot].rb
			case slot%11 == 0 && tick%16 == 8:
				e.rb.VX, e.rb.VY, e.rb.AngularVelocity = 0, 0, 0
			case slot%13 == 0 && tick%24 == 12:
				rb, tr := *e.rb, *e.t
				n := w.spawn(slot, Described, tr.X)
				*n.t, n.rb = tr, &rb
			}
			last[slot] = state{*e.t, *e.rb}
		}
		w.build(t, r, uint32(tick))
		seq++
		for i := range ps {
			p := ps[i]
			p.Acknowledge(fate(i))
			got := p.Write(nil, r, entity.None, budgetBytes)
			for k := range r.ents {
				e := &r.ents[k]
				if e.silence == InInstance {
					continue
				}
				b := p.base(e.id.Slot)
				if e.bare && (b == nil || b.occ != e.id || b.ntypes <= baseHead) {
					short++
					if b == nil || b.occ != e.id {
						freshShort++
					}
				} else if e.bare {
					walkedBare++
				}
				bits, fresh := p.plan(r, e, false)
				acts, pl := slices.Clone(p.acts), p.pl
				p.generalPlans = true
				wantBits, wantFresh := p.plan(r, e, false)
				p.generalPlans = false
				if bits != wantBits || fresh != wantFresh || !slices.Equal(acts, p.acts) || pl != p.pl {
					t.Fatalf("tick %d, connection %d, %v (bare %v): planned %d bits, fresh %v, %v, %+v; walking its types, %d bits, fresh %v, %v, %+v",
						tick, i, e.id, e.bare, bits, fresh, acts, pl, wantBits, wantFresh, p.acts, p.pl)
				}
			}
			p.Sent(seq)
			twins[i].Acknowledge(fate(i))
			want := twins[i].Write(nil, r, entity.None, budgetBytes)
			twins[i].Sent(seq)
			if !bytes.Equal(got, want) {
				t.Fatalf("tick %d, connection %d: sent %x planning bare bodies the short way, %x walking every entity's types", tick, i, got, want)
			}
		}
	}
	// Most plans of the circling bodies go the short way; some bare
	// bodies meet a baseline holding their Health and are walked.
	if short < 96*peers*bodies/2 || freshShort == 0 || walkedBare == 0 {
		t.Fatalf("%d plans the short way (%d fresh), %d bare bodies walked: the world does not test the short way", short, freshShort, walkedBare)
	}
	t.Logf("%d plans the short way (%d fresh), %d bare bodies walked", short, freshShort, walkedBare)
}
