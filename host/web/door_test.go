package web

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// testDoor is a door with the default caps and a rate that never runs
// out within a test.
func testDoor(maxPeers int) *door {
	return newDoor(Config{MaxPeers: maxPeers, OffersPerIPPerSecond: 1000}.withDefaults())
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// One source may have DefaultMaxConnectingPerAddress attempts connecting
// and DefaultMaxPeersPerAddress admitted; a welcome frees a connecting
// place, a leave frees both, and others are not held back meanwhile.
func TestTheDoorCapsEachSource(t *testing.T) {
	d := testDoor(DefaultMaxPeers)
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for i := range DefaultMaxConnectingPerAddress {
		if r := d.enter(a, t0); r != reasonNone {
			t.Fatalf("attempt %d: %v", i+1, r)
		}
	}
	if r := d.enter(a, t0); r != reasonAddressCap {
		t.Fatalf("one attempt past the connecting cap: %v, want address_cap", r)
	}
	if r := d.enter(b, t0); r != reasonNone {
		t.Fatalf("another source meanwhile: %v", r)
	}
	// Welcomed peers free their connecting places, up to the peer cap.
	admitted := 0
	for admitted < DefaultMaxPeersPerAddress {
		if r := d.admit(a); r != reasonNone {
			t.Fatalf("admitting peer %d: %v", admitted+1, r)
		}
		d.welcome(a)
		admitted++
		if admitted < DefaultMaxPeersPerAddress {
			if r := d.enter(a, t0); r != reasonNone {
				t.Fatalf("an attempt with %d welcomed: %v", admitted, r)
			}
		}
	}
	if r := d.enter(a, t0); r != reasonAddressCap {
		t.Fatalf("an attempt with %d peers: %v, want address_cap", admitted, r)
	}
	d.leave(a, true, true)
	if r := d.enter(a, t0); r != reasonNone {
		t.Fatalf("an attempt once a peer left: %v", r)
	}
}

// The gateway's slots are shared: past MaxPeers an attempt is not
// admitted, and an attempt that was not yet admitted holds none.
func TestTheDoorAdmitsUpToMaxPeers(t *testing.T) {
	d := testDoor(3)
	srcs := []netip.Addr{netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3"), netip.MustParseAddr("192.0.2.4")}
	for _, s := range srcs {
		if r := d.enter(s, t0); r != reasonNone {
			t.Fatal(r)
		}
	}
	for _, s := range srcs[:3] {
		if r := d.admit(s); r != reasonNone {
			t.Fatal(r)
		}
	}
	if r := d.admit(srcs[3]); r != reasonFull {
		t.Fatalf("the fourth: %v, want full", r)
	}
	d.leave(srcs[0], true, false)
	if r := d.admit(srcs[3]); r != reasonNone {
		t.Fatalf("the fourth once one left: %v", r)
	}
	for _, s := range srcs[1:] {
		d.leave(s, true, false)
	}
	// srcs[0] left; the table forgets every source with nothing under way.
	if d.slots != 0 || len(d.sources) != 0 {
		t.Errorf("after every attempt left: %d slots, sources %v", d.slots, d.sources)
	}
}

// A source at its cap spends none of its offer allowance, and the rate
// still holds one under its caps.
func TestTheDoorKeepsTheOfferRate(t *testing.T) {
	d := newDoor(Config{OffersPerIPPerSecond: 2}.withDefaults())
	a := netip.MustParseAddr("192.0.2.1")
	var got []reason
	for range 2 * OfferBurst {
		r := d.enter(a, t0)
		got = append(got, r)
		if r == reasonNone {
			d.leave(a, false, false)
		}
	}
	if fmt.Sprint(got) != "[none none none none none none none none]" {
		t.Fatalf("a burst: %v", got)
	}
	if r := d.enter(a, t0); r != reasonRate {
		t.Fatalf("past the burst: %v, want rate", r)
	}
	if r := d.enter(a, t0.Add(time.Second/2)); r != reasonNone {
		t.Fatalf("half a second later: %v", r)
	}
}

// An IPv6 source is its /64; an IPv4 one (mapped or not) its address.
func TestSourcesAreAnIPv4AddressOrAnIPv6Slash64(t *testing.T) {
	for _, c := range []struct{ a, want string }{
		{"192.0.2.7", "192.0.2.7"},
		{"::ffff:192.0.2.7", "192.0.2.7"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"},
		{"2001:db8:1:2::1", "2001:db8:1:2::"},
		{"fe80::1%eth0", "fe80::"},
		{"::1", "::"},
	} {
		if got := sourceKey(netip.MustParseAddr(c.a)); got != netip.MustParseAddr(c.want) {
			t.Errorf("sourceKey(%s) = %v, want %s", c.a, got, c.want)
		}
	}
	// Two addresses of one /64 share its caps.
	d := testDoor(DefaultMaxPeers)
	for i := range DefaultMaxConnectingPerAddress {
		a := netip.MustParseAddr(fmt.Sprintf("2001:db8::%x", i+1))
		if r := d.enter(sourceKey(a), t0); r != reasonNone {
			t.Fatal(r)
		}
	}
	if r := d.enter(sourceKey(netip.MustParseAddr("2001:db8::ffff")), t0); r != reasonAddressCap {
		t.Errorf("another address of the same /64: %v, want address_cap", r)
	}
	if r := d.enter(sourceKey(netip.MustParseAddr("2001:db8:0:1::1")), t0); r != reasonNone {
		t.Errorf("the next /64: %v", r)
	}
}

func TestReasonsHaveLabels(t *testing.T) {
	seen := map[string]bool{}
	for r := range numReasons {
		s := r.String()
		if s == "" || seen[s] {
			t.Errorf("reason %d: label %q", r, s)
		}
		seen[s] = true
	}
	if s := numReasons.String(); s != fmt.Sprintf("reason(%d)", numReasons) {
		t.Errorf("an unknown reason: %q", s)
	}
}
