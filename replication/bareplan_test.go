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
// what a twin that always walks is sent. A third of the bodies carry a
// NetSpawn, as a spawned body does; some carry a Health now and then, of
// one value or of a new one each tick (so a baseline may hold a type the
// body no longer has, or hold its rest as it is or not); some stand still
// with their velocity kept now and then (so nothing of theirs is this
// round's), stop, are replaced by a new occupant, or gain a Tint to keep.
// The short way an entity whose changes the round assembled takes
// (roundEnt.dBits, holdsUnchanged) is checked the same way.
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
	short, walkedBare, freshShort, restShort := 0, 0, 0, 0
	deltaShort, deltaWalked := 0, 0
	for slot := uint32(3); slot <= bodies; slot += 3 {
		e := w.ents[slot]
		e.ns = &entity.NetSpawn{Prefab: "prefabs/spinner.toml", Pose: *e.t}
	}
	for tick := 1; tick <= 96; tick++ {
		step(tick)
		for slot := uint32(1); slot <= bodies; slot++ {
			e := w.ents[slot]
			switch {
			case slot%5 == 0:
				// A Health on for eight ticks, off for eight.
				if tick/8%2 == 0 {
					// 50, then 60 from the fifth tick: a Health new
					// to the baselines, then one they hold at another
					// value, while it is not this round's.
					e.health = entity.Values{float64(50 + 10*(tick%8/4))}
					if slot%10 == 0 {
						e.health = entity.Values{float64(tick % 100)}
					}
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
				*n.t, n.rb, n.ns = tr, &rb, e.ns
			}
			if slot%4 == 1 && tick == 40 {
				// A Tint from now on, of one value: a type new to the
				// baselines, not of this round's making after this one.
				e.tint = entity.Values{0.5}
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
				fresh := b == nil || b.occ != e.id
				switch {
				case !e.bare && e.dBits != 0 && !fresh && e.silence == Described:
					if b.holdsUnchanged(r, e) {
						deltaShort++
					} else {
						deltaWalked++
					}
				case !e.bare:
				case fresh && e.end-e.first == 2:
					short++
					freshShort++
				case !fresh && b.holdsRest(r, e):
					short++
					if e.end-e.first > 2 {
						restShort++
					}
				default:
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
	if short < 96*peers*bodies/2 || freshShort == 0 || restShort < short/4 || walkedBare == 0 || deltaShort == 0 || deltaWalked == 0 {
		t.Fatalf("%d plans the short way (%d fresh, %d with a rest held), %d bare bodies walked, %d assembled changes the short way and %d walked: the world does not test the short ways",
			short, freshShort, restShort, walkedBare, deltaShort, deltaWalked)
	}
	t.Logf("%d plans the short way (%d fresh, %d with a rest held), %d bare bodies walked, %d assembled changes the short way and %d walked",
		short, freshShort, restShort, walkedBare, deltaShort, deltaWalked)
}
