package transport

import "testing"

// takeNext peeks and takes, failing the test when no number is free.
func takeNext(tb testing.TB, s *numbers) uint16 {
	tb.Helper()
	p, ok := s.peek()
	if !ok {
		tb.Fatal("no free number")
	}
	s.take(p)
	return p
}

func TestNumbersCountFromOne(t *testing.T) {
	var s numbers
	for want := uint16(1); want <= 3; want++ {
		if got := takeNext(t, &s); got != want {
			t.Fatalf("got %d, want %d", got, want)
		}
	}
	s.release(2)
	// The count does not go back for a released number.
	if got := takeNext(t, &s); got != 4 {
		t.Fatalf("after releasing 2: got %d, want 4", got)
	}
	// peek proposes without taking: a declined join leaves the count alone.
	a, _ := s.peek()
	b, _ := s.peek()
	if a != 5 || b != 5 {
		t.Fatalf("peek twice: %d, %d, want 5, 5", a, b)
	}
}

// After 65535 the count wraps to 1, skipping 0 and every number still held.
func TestNumbersWrapSkippingHeld(t *testing.T) {
	var s numbers
	held := []uint16{1, 2, 4, 65535}
	for _, p := range held {
		s.take(p)
	}
	s.next = 65534
	got := []uint16{takeNext(t, &s), takeNext(t, &s), takeNext(t, &s)}
	want := []uint16{65534, 3, 5} // 65535, 0, 1, 2 and 4 skipped
	t.Logf("held %v, from 65534: %v", held, got)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if s.n != len(held)+3 {
		t.Fatalf("count %d, want %d", s.n, len(held)+3)
	}
}

// A full count wraps the whole range: numbers go round exactly once before
// one is reused, and with all 65535 held there is none.
func TestNumbersFullRange(t *testing.T) {
	var s numbers
	for want := 1; want <= 65535; want++ {
		if got := takeNext(t, &s); int(got) != want {
			t.Fatalf("got %d, want %d", got, want)
		}
	}
	if p, ok := s.peek(); ok {
		t.Fatalf("all held, yet peek offered %d", p)
	}
	s.release(40000)
	s.release(7)
	if got := takeNext(t, &s); got != 7 {
		t.Fatalf("after the wrap: got %d, want 7 (the first free after 65535)", got)
	}
	if got := takeNext(t, &s); got != 40000 {
		t.Fatalf("got %d, want 40000", got)
	}
	t.Logf("65535 numbers taken, 7 and 40000 released and reissued in that order")
}
