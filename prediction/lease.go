package prediction

import (
	"cmp"
	"slices"

	"vkm/internal/entity"
)

// LeaseTicks is how long a lease lasts after the island it was last seen in:
// a body reported after tick T is leased through tick T+31 and lapses at
// T+32. Contact breaking does not end a lease: a bouncing crate leaves the
// island for a tick at a time, and a lease that ended with each bounce
// would hand the body back and forth between prediction and interpolation.
// Counted in ticks, so it scales with a project's tick rate. Tuning
// constant.
const LeaseTicks = 32

// MaxLeases bounds how many bodies one client leases at once. A report that
// would lease more renews every lease already held and adds new bodies in
// slot order until the bound is reached. Far above any pile a character
// leans on; it exists so memory is bounded whatever the world holds.
const MaxLeases = 1024

// Leases is the set of bodies a client simulates besides its own character
// because the character is touching them, directly or through others, or
// set them moving: the host reports the character's island after each tick,
// a body the character's own behaviors push (a shot's impulse), and, while
// a leased body is still awake, that body and its own island (a knocked
// crate and what it runs into). It reports them (Report), asks which
// bodies are leased when it gathers (Leased, Each), and smooths the bodies
// whose lease lapsed back to the server's track (Expired).
//
// Ticks are compared by signed distance, so they may wrap, and a tick
// earlier than a lease's last report (a replayed tick) finds the lease held.
//
// The zero value holds no leases and is ready to use. A Leases is not safe
// for concurrent use.
type Leases struct {
	held []lease // slot order, then generation
}

// lease is one leased body and the tick it was last reported.
type lease struct {
	id   entity.ID
	last uint32
}

// Report leases every body in ids, the island of the character after tick,
// until LeaseTicks after tick, renewing those already leased. IDs naming no
// entity and repeats are ignored; ids need not be sorted. A report older
// than the one a lease already holds does not shorten it.
func (l *Leases) Report(ids []entity.ID, tick uint32) {
	for _, id := range ids {
		if id.IsNone() {
			continue
		}
		i, found := slices.BinarySearchFunc(l.held, id, leaseCmp)
		if found {
			if leaseAfter(tick, l.held[i].last) {
				l.held[i].last = tick
			}
			continue
		}
		if len(l.held) >= MaxLeases {
			continue
		}
		l.held = slices.Insert(l.held, i, lease{id: id, last: tick})
	}
}

// Leased reports whether id is leased at tick: whether it was reported
// fewer than LeaseTicks ticks before tick.
func (l *Leases) Leased(id entity.ID, tick uint32) bool {
	i, found := slices.BinarySearchFunc(l.held, id, leaseCmp)
	return found && leaseLive(l.held[i].last, tick)
}

// Each calls fn for every body leased at tick, in slot order, until fn
// returns false. fn must not call Report, Expired, Forget or Reset.
func (l *Leases) Each(tick uint32, fn func(entity.ID) bool) {
	for _, h := range l.held {
		if leaseLive(h.last, tick) && !fn(h.id) {
			return
		}
	}
}

// Expired forgets every lease that has lapsed by tick and calls fn for
// each, in slot order, so the host can hand the body back to the server's
// interpolation track. Each lapse is reported once. Call it every tick,
// after Report: a body reported again after its lease lapsed but before
// Expired saw the lapse is simply leased again. fn may be nil.
func (l *Leases) Expired(tick uint32, fn func(entity.ID)) {
	kept := l.held[:0]
	for _, h := range l.held {
		if leaseLive(h.last, tick) {
			kept = append(kept, h)
		} else if fn != nil {
			fn(h.id)
		}
	}
	clear(l.held[len(kept):])
	l.held = kept
}

// Forget ends id's lease at once without reporting it, as when the entity
// is destroyed.
func (l *Leases) Forget(id entity.ID) {
	if i, found := slices.BinarySearchFunc(l.held, id, leaseCmp); found {
		l.held = slices.Delete(l.held, i, i+1)
	}
}

// Reset ends every lease without reporting any, as on a new connection.
func (l *Leases) Reset() { l.held = l.held[:0] }

// leaseLive reports whether a lease last reported at last is held at tick.
func leaseLive(last, tick uint32) bool { return int32(tick-last) < LeaseTicks }

// leaseAfter reports whether tick a is later than tick b.
func leaseAfter(a, b uint32) bool { return int32(a-b) > 0 }

// leaseCmp orders leases by slot, then generation.
func leaseCmp(h lease, id entity.ID) int {
	if c := cmp.Compare(h.id.Slot, id.Slot); c != 0 {
		return c
	}
	return cmp.Compare(h.id.Gen, id.Gen)
}

// Until returns the last tick id is leased through at tick, and whether
// it is leased then: a developer's inspector shows it.
func (l *Leases) Until(id entity.ID, tick uint32) (uint32, bool) {
	i, found := slices.BinarySearchFunc(l.held, id, leaseCmp)
	if !found || !leaseLive(l.held[i].last, tick) {
		return 0, false
	}
	return l.held[i].last + LeaseTicks - 1, true
}
