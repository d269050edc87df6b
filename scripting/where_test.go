package scripting

import (
	"regexp"
	"testing"
)

// whereRE is what findWhere scans for, as the regular expression it
// replaces.
var whereRE = regexp.MustCompile(`([^\s:'"\[\]]+):(\d+):`)

// checkWhere fails when findWhere and whereRE disagree on s.
func checkWhere(t *testing.T, s string) {
	t.Helper()
	start, whereEnd, end := findWhere(s)
	m := whereRE.FindStringSubmatchIndex(s)
	if m == nil {
		if start >= 0 {
			t.Errorf("findWhere(%q) = %q, the expression finds none", s, s[start:end])
		}
		return
	}
	if start != m[0] || whereEnd != m[5] || end != m[1] {
		t.Errorf("findWhere(%q) = %d,%d,%d; the expression: %d,%d,%d", s, start, whereEnd, end, m[0], m[5], m[1])
	}
}

var whereSamples = []string{
	"",
	"main.lua:12: attempt to index a nil value",
	`<string>:3: bad argument #1 to 'spawn'`,
	"stack traceback:\n\t[G]: in function 'error'\n\tbehaviors/walker.lua:41: in function 'tick'",
	"[G]: in function",
	"a:b:1:",
	"x::12:",
	"path:12",
	"path:12x:",
	"path:: 3:",
	"'quoted.lua':4:",
	"é/ü.lua:7: non-ASCII path",
	"no position here",
	"p:1:2:3:",
	":1:",
	"a\t:1:",
	"a\v:1:",
	"lib/x.lua:0009:",
}

func TestFindWhereMatchesItsExpression(t *testing.T) {
	for _, s := range whereSamples {
		checkWhere(t, s)
	}
	if where, rest := splitWhere("main.lua:12: boom"); where != "main.lua:12" || rest != "boom" {
		t.Errorf(`splitWhere("main.lua:12: boom") = %q, %q`, where, rest)
	}
	if where, rest := splitWhere("boom at main.lua:12: x"); where != "" || rest != "boom at main.lua:12: x" {
		t.Errorf("splitWhere of a message with a position not at its start = %q, %q", where, rest)
	}
}

func FuzzFindWhere(f *testing.F) {
	for _, s := range whereSamples {
		f.Add(s)
	}
	f.Fuzz(checkWhere)
}
