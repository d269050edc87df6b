package project

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseProjectHUD(t *testing.T) {
	src := minimalProject + `
[[hud]]
at = "top"
text = "round {Round.number} {{{name}}}"
from = "game"

[[hud]]
bar = "Health.hp"
max = 150
label = "health"

[[hud]]
at = "top-right"
list = "{name}: {Score.coins}"
`
	p, err := ParseProject("project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.HUD) != 3 {
		t.Fatalf("HUD has %d items, want 3: %+v", len(p.HUD), p.HUD)
	}
	text, bar, list := p.HUD[0], p.HUD[1], p.HUD[2]
	wantText := Template{{Text: "round "}, {Ref: Ref{Type: "Round", Field: "number"}}, {Text: " {"}, {Ref: Ref{Name: true}}, {Text: "}"}}
	if text.Kind() != "text" || text.At != "top" || text.From != "game" || !reflect.DeepEqual(text.Text, wantText) {
		t.Errorf("text item = %+v, want at top from game with %+v", text, wantText)
	}
	if bar.Kind() != "bar" || bar.At != "top-left" || bar.From != "own" || bar.Bar != (Ref{Type: "Health", Field: "hp"}) || bar.Max != 150 || bar.Label != "health" {
		t.Errorf("bar item = %+v", bar)
	}
	if list.Kind() != "list" || len(list.List.Refs()) != 2 || list.List.Refs()[1] != (Ref{Type: "Score", Field: "coins"}) {
		t.Errorf("list item = %+v", list)
	}
	if text.Line != 5 || bar.Line != 10 {
		t.Errorf("lines %d, %d; want 5, 10", text.Line, bar.Line)
	}
}

func TestParseProjectHUDErrors(t *testing.T) {
	base := minimalProject + "\n[[hud]]\n" // the item's table starts on line 5
	tests := []struct {
		name, src string
		line      int
		key       string
		frag      string
	}{
		{"no kind", `at = "top"`, 5, "hud", "exactly one of text, bar, list or scoreboard (this one sets 0)"},
		{"two kinds", "text = \"a\"\nbar = \"H.p\"", 5, "hud", "sets 2"},
		{"bad place", "text = \"a\"\nat = \"middle\"", 7, "hud.at", `"middle" is not a place on screen`},
		{"unclosed field", `text = "{Score.red"`, 6, "hud.text", "is not closed"},
		{"stray brace", `text = "a } b"`, 6, "hud.text", "closes no field"},
		{"not a field", `text = "{Score}"`, 6, "hud.text", "{Score} is not a field"},
		{"bar of name", `bar = "name"`, 6, "hud.bar", "is not a component field"},
		{"max without bar", "text = \"a\"\nmax = 3", 7, "hud.max", "this item has no bar"},
		{"max zero", "bar = \"H.p\"\nmax = 0", 7, "hud.max", "0 is not a bar's full value"},
		{"bad from", "text = \"a\"\nfrom = \"all\"", 7, "hud.from", `"all" is not whose components`},
		{"list from", "list = \"{name}\"\nfrom = \"game\"", 7, "hud.from", "a list reads each player's entity"},
		{"unknown key", "text = \"a\"\ncolour = \"red\"", 7, "hud.colour", "unknown key"},
		{"scoreboard false", "scoreboard = false", 6, "hud.scoreboard", "sets scoreboard = true"},
		{"scoreboard from", "scoreboard = true\nfrom = \"own\"", 7, "hud.from", "a scoreboard reads each player's entity"},
		{"scoreboard and text", "scoreboard = true\ntext = \"a\"", 5, "hud", "sets 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProject("project.toml", []byte(base+tc.src+"\n"))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *ConfigError", err)
			}
			if ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Reason, tc.frag) {
				t.Errorf("got %v (line %d, key %q); want line %d, key %q, reason with %q", err, ce.Line, ce.Key, tc.line, tc.key, tc.frag)
			}
		})
	}
}

// FuzzParseTemplate: a template from project.toml parses or is refused,
// and what parses writes back to a template that parses the same.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"", "{Score.red}", "a {{b}} {name}", "{", "}", "{x.y", "{1.y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := ParseTemplate(s)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, p := range tpl {
			if p.Ref != (Ref{}) {
				b.WriteString("{" + p.Ref.String() + "}")
			} else {
				b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(p.Text))
			}
		}
		again, err := ParseTemplate(b.String())
		if err != nil || !reflect.DeepEqual(merge(again), merge(tpl)) {
			t.Fatalf("%q parses to %+v, written back %q parses to %+v (%v)", s, tpl, b.String(), again, err)
		}
	})
}

// merge joins adjacent literal parts, which one template may split where
// another does not.
func merge(t Template) Template {
	var out Template
	for _, p := range t {
		if n := len(out); n > 0 && p.Ref == (Ref{}) && out[n-1].Ref == (Ref{}) {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
	return out
}
