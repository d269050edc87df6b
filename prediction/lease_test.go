package prediction

import (
	"slices"
	"testing"

	"vkm/internal/entity"
)

// lid names slot n, generation 1.
func lid(n uint32) entity.ID { return entity.ID{Slot: n, Gen: 1} }

// leased lists what Each reports at tick.
func leased(l *Leases, tick uint32) []entity.ID {
	var ids []entity.ID
	l.Each(tick, func(id entity.ID) bool {
		ids = append(ids, id)
		return true
	})
	return ids
}

// expired lists what Expired reports at tick.
func expired(l *Leases, tick uint32) []entity.ID {
	var ids []entity.ID
	l.Expired(tick, func(id entity.ID) { ids = append(ids, id) })
	return ids
}

func TestLeaseLastsExactlyLeaseTicks(t *testing.T) {
	for _, start := range []uint32{0, 100, 1<<32 - 10} { // the last wraps mid-lease
		var l Leases
		l.Report([]entity.ID{lid(3)}, start)
		for d := uint32(0); d < LeaseTicks; d++ {
			if !l.Leased(lid(3), start+d) {
				t.Fatalf("start %d: not leased %d ticks after the report", start, d)
			}
			if got := expired(&l, start+d); len(got) != 0 {
				t.Fatalf("start %d: Expired at +%d = %v, want none", start, d, got)
			}
		}
		if l.Leased(lid(3), start+LeaseTicks) {
			t.Errorf("start %d: still leased %d ticks after the report", start, LeaseTicks)
		}
		if got := leased(&l, start+LeaseTicks); len(got) != 0 {
			t.Errorf("start %d: Each at +%d = %v, want none", start, LeaseTicks, got)
		}
		if got := expired(&l, start+LeaseTicks); !slices.Equal(got, []entity.ID{lid(3)}) {
			t.Errorf("start %d: Expired at +%d = %v, want [3#1]", start, LeaseTicks, got)
		}
	}
}

func TestLeaseOutlastsABounce(t *testing.T) {
	// A crate in the island on even ticks only stays leased throughout, and
	// lapses LeaseTicks after the last tick it was seen.
	var l Leases
	var lapses int
	for tick := uint32(1); tick <= 200; tick++ {
		if tick%2 == 0 && tick <= 100 {
			l.Report([]entity.ID{lid(5)}, tick)
		}
		if tick >= 2 && tick < 100+LeaseTicks && !l.Leased(lid(5), tick) {
			t.Fatalf("lost the lease at tick %d", tick)
		}
		got := expired(&l, tick)
		lapses += len(got)
		if len(got) != 0 && tick != 100+LeaseTicks {
			t.Errorf("lapsed at tick %d, want %d", tick, 100+LeaseTicks)
		}
	}
	if lapses != 1 {
		t.Errorf("lapsed %d times, want once", lapses)
	}
}

func TestLeaseRenewalAndOrder(t *testing.T) {
	var l Leases
	l.Report([]entity.ID{lid(9), lid(2), entity.None, lid(9), {Slot: 2, Gen: 2}}, 10)
	l.Report([]entity.ID{lid(7), lid(2)}, 20) // 2#1 renewed, 7 new
	l.Report([]entity.ID{lid(9)}, 5)          // older: does not shorten 9's lease

	want := []entity.ID{lid(2), {Slot: 2, Gen: 2}, lid(7), lid(9)}
	if got := leased(&l, 20); !slices.Equal(got, want) {
		t.Fatalf("Each at 20 = %v, want %v", got, want)
	}
	// At 10+32 the leases reported at 10 only have lapsed.
	want = []entity.ID{lid(2), lid(7)}
	if got := leased(&l, 42); !slices.Equal(got, want) {
		t.Errorf("Each at 42 = %v, want %v", got, want)
	}
	if got, want := expired(&l, 42), []entity.ID{{Slot: 2, Gen: 2}, lid(9)}; !slices.Equal(got, want) {
		t.Errorf("Expired at 42 = %v, want %v", got, want)
	}
	if got := expired(&l, 42); len(got) != 0 {
		t.Errorf("Expired again at 42 = %v: a lapse is reported once", got)
	}
	// A replayed tick before the last report still finds the lease.
	if !l.Leased(lid(7), 15) {
		t.Error("7#1 not leased at tick 15, replayed before its report at 20")
	}
	if got, want := expired(&l, 52), []entity.ID{lid(2), lid(7)}; !slices.Equal(got, want) {
		t.Errorf("Expired at 52 = %v, want %v", got, want)
	}
	if got := leased(&l, 52); len(got) != 0 {
		t.Errorf("Each at 52 = %v, want none", got)
	}
}

func TestLeaseEachStopsEarly(t *testing.T) {
	var l Leases
	l.Report([]entity.ID{lid(4), lid(1), lid(8)}, 0)
	var got []entity.ID
	l.Each(0, func(id entity.ID) bool {
		got = append(got, id)
		return len(got) < 2
	})
	if !slices.Equal(got, []entity.ID{lid(1), lid(4)}) {
		t.Errorf("got %v, want [1#1 4#1]", got)
	}
}

func TestLeaseForgetAndReset(t *testing.T) {
	var l Leases
	l.Report([]entity.ID{lid(1), lid(2)}, 0)
	l.Forget(lid(1))
	l.Forget(lid(6)) // not leased: nothing happens
	if l.Leased(lid(1), 0) || !l.Leased(lid(2), 0) {
		t.Errorf("after Forget(1#1): leased %v, want [2#1]", leased(&l, 0))
	}
	l.Reset()
	if got := expired(&l, LeaseTicks); len(got) != 0 {
		t.Errorf("Expired after Reset = %v, want none", got)
	}
	var zero Leases
	if zero.Leased(lid(1), 0) || len(leased(&zero, 0)) != 0 {
		t.Error("the zero Leases holds a lease")
	}
	zero.Expired(0, nil)
}

func TestLeaseMemoryIsBounded(t *testing.T) {
	var l Leases
	ids := make([]entity.ID, MaxLeases+100)
	for i := range ids {
		ids[i] = lid(uint32(len(ids) - i)) // unsorted
	}
	l.Report(ids, 0)
	n := len(leased(&l, 0))
	if n != MaxLeases {
		t.Fatalf("leased %d bodies, want the bound %d", n, MaxLeases)
	}
	// A steady island churning through new bodies never grows the set past
	// what LeaseTicks of reports hold.
	var m Leases
	for tick := uint32(0); tick < 10_000; tick++ {
		m.Report([]entity.ID{lid(tick), lid(tick + 1)}, tick)
		m.Expired(tick, nil)
		if got := len(m.held); got > LeaseTicks+1 {
			t.Fatalf("tick %d: %d leases held", tick, got)
		}
	}
	t.Logf("%d leases held after 10000 ticks of churn, capacity %d", len(m.held), cap(m.held))
}
