package access

import (
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
)

func TestListSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "access.txt")
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rule{
		{Kind: ByID, Value: "4242", Reason: "cheating  in\tround 3"},
		{Kind: ByAddr, Value: "::ffff:203.0.113.7", Reason: "spam"},
		{Kind: ByAddr, Value: "198.51.100.2:40000"},
	} {
		if err := l.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range again.Rules() {
		lines = append(lines, r.String())
	}
	t.Logf("after a restart: %q", lines)
	if !slices.Equal(lines, []string{"ban id 4242 cheating in round 3", "ban addr 203.0.113.7 spam", "ban addr 198.51.100.2"}) {
		t.Fatal("the list did not come back as it was made")
	}
	for _, c := range []struct {
		addr  string
		id    uint64
		hasID bool
		ok    bool
		why   string
	}{
		{"10.0.0.1", 4242, true, false, "You are banned from this server: cheating in round 3"},
		{"10.0.0.1", 4242, false, true, ""},
		{"203.0.113.7", 1, true, false, "You are banned from this server: spam"},
		{"198.51.100.2", 0, false, false, "You are banned from this server."},
		{"10.0.0.1", 5, true, true, ""},
	} {
		ok, why := again.Check(netip.MustParseAddr(c.addr), c.id, c.hasID)
		if ok != c.ok || why != c.why {
			t.Errorf("%s id %d: %v %q", c.addr, c.id, ok, why)
		}
	}
	if ok, err := again.Remove(false, ByID, "4242"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := again.Check(netip.MustParseAddr("10.0.0.1"), 4242, true); !ok {
		t.Fatal("an unbanned id is still kept out")
	}
	if err := again.Add(Rule{Allow: true, Kind: ByID, Value: "7"}); err != nil {
		t.Fatal(err)
	}
	if ok, why := again.Check(netip.MustParseAddr("10.0.0.1"), 8, true); ok {
		t.Fatal("an allow list let in someone it does not name")
	} else if ok, _ := again.Check(netip.MustParseAddr("10.0.0.1"), 7, true); !ok {
		t.Fatal("an allow list kept out someone it names: " + why)
	}
}

func TestParseRuleRefuses(t *testing.T) {
	for _, line := range []string{"ban", "ban id", "ban id x", "kick id 3", "ban addr nowhere", "ban name bob"} {
		if _, err := ParseRule(line); err == nil {
			t.Errorf("%q parsed", line)
		}
	}
}

// FuzzParseRule: a rule that parses writes back as a line that parses to
// the same rule.
func FuzzParseRule(f *testing.F) {
	f.Add("ban id 4242 cheating")
	f.Add("allow addr ::1")
	f.Add("ban addr 1.2.3.4:5 x  y")
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseRule(line)
		if err != nil {
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("%q parsed as %+v, which writes %q and reads back %+v, %v", line, r, r.String(), again, err)
		}
	})
}
