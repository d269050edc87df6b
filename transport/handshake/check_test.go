package handshake

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	server := Hello{SchemaFP: 10, ActionCount: 4, ActionFP: 20, WorldFP: 30, TickRate: 64}
	with := func(f func(*Hello)) Hello { h := server; f(&h); return h }
	for _, c := range []struct {
		name           string
		server, client Hello
		want           Reason // 0: accepted
	}{
		{"identical", server, server, 0},
		{"name and dev are not compared", server, with(func(h *Hello) { h.Name = "bo"; h.Dev = true }), 0},
		{"schema", server, with(func(h *Hello) { h.SchemaFP = 11 }), ReasonMismatch},
		{"action fingerprint", server, with(func(h *Hello) { h.ActionFP = 21 }), ReasonMismatch},
		{"action count", server, with(func(h *Hello) { h.ActionCount = 5 }), ReasonMismatch},
		{"client without actions is compared with nothing", server, with(func(h *Hello) { h.ActionFP = 0; h.ActionCount = 0 }), 0},
		{"server without actions is compared with nothing", with(func(h *Hello) { h.ActionFP = 0; h.ActionCount = 0 }), server, 0},
		{"world", server, with(func(h *Hello) { h.WorldFP = 31 }), ReasonMismatch},
		{"generated world on the client", server, with(func(h *Hello) { h.WorldFP = 0 }), 0},
		{"generated world on the server", with(func(h *Hello) { h.WorldFP = 0 }), server, 0},
		{"tick rate", server, with(func(h *Hello) { h.TickRate = 128 }), ReasonTickRate},
		{"mismatch is told before tick rate", server, with(func(h *Hello) { h.TickRate = 128; h.SchemaFP = 1 }), ReasonMismatch},
	} {
		r, ok := Check(c.server, c.client)
		if ok != (c.want == 0) || r.Reason != c.want {
			t.Errorf("%s: Check = %+v, %v; want reason %v", c.name, r, ok, c.want)
		}
	}
	r, _ := Check(server, with(func(h *Hello) { h.TickRate = 30 }))
	if r.ServerTickRate != 64 || r.ClientTickRate != 30 {
		t.Errorf("tick rate refusal carries %d/%d, want 64/30", r.ServerTickRate, r.ClientTickRate)
	}
}

func TestActionFingerprint(t *testing.T) {
	ab := ActionFingerprint([]string{"run", "jump"})
	if ab != ActionFingerprint([]string{"run", "jump"}) {
		t.Fatal("not deterministic")
	}
	for _, other := range [][]string{
		{"jump", "run"},     // same names, other slots
		{"runj", "ump"},     // same bytes, other split
		{"run", "jump", ""}, // an extra empty action
		{"run"},
	} {
		if ActionFingerprint(other) == ab {
			t.Errorf("%q has the fingerprint of [run jump]", other)
		}
	}
	if ActionFingerprint(nil) != 0 {
		t.Error("no actions must give 0")
	}
	if ActionFingerprint([]string{""}) == 0 {
		t.Error("one action gave 0")
	}
}

func TestWorldFingerprint(t *testing.T) {
	a := WorldFingerprint([]byte("[entity]\nid = 1\n"))
	if a == 0 {
		t.Fatal("a loaded world gave 0")
	}
	if WorldFingerprint([]byte("[entity]\r\nid = 1\r\n")) != a {
		t.Error("CRLF line endings changed the fingerprint")
	}
	if WorldFingerprint([]byte("[entity]\nid = 2\n")) == a {
		t.Error("a different world gave the same fingerprint")
	}
	if WorldFingerprint([]byte("a\rb")) == WorldFingerprint([]byte("ab")) {
		t.Error("a lone CR was dropped")
	}
	if WorldFingerprint(nil) != 0 {
		t.Error("no data must give 0")
	}
}

func TestNonzeroFP(t *testing.T) {
	if nonzeroFP(0) != 1 || nonzeroFP(5) != 5 {
		t.Fatal("nonzeroFP does not remap exactly 0")
	}
}

func TestMismatchLine(t *testing.T) {
	got := MismatchLine(sampleHello)
	want := "protocol=11 schema=1122334455667788 actions=5/99aabbccddeeff00 world=0102030405060708 tick_rate=64"
	if got != want {
		t.Fatalf("MismatchLine =\n%s\nwant\n%s", got, want)
	}
	// Fixed-width fingerprints keep two ends' lines aligned for a diff.
	zero := MismatchLine(Hello{ActionCount: 5, TickRate: 64})
	if len(zero) != len(want) || strings.Count(zero, " ") != 4 {
		t.Fatalf("MismatchLine with zero fingerprints = %q, not aligned with %q", zero, want)
	}
}
