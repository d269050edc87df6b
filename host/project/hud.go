package project

import (
	"fmt"
	"slices"
	"strings"
)

// HUDItem is one thing the game shows on screen over the world, read from a
// [[hud]] table of project.toml: a line of text, a bar or a list, placed at
// one of HUDPlaces. Every end that draws the game resolves it from its own
// copy of the replicated components, so every player sees the same values
// the server's snapshots carry (DESIGN.md, "What a player sees is the
// project's").
type HUDItem struct {
	// At is where on screen: one of HUDPlaces ("top-left" when not set).
	At string
	// Text is a line of text, e.g. "{Score.coins} coins"; set for a text
	// item.
	Text Template
	// Bar is the field a bar shows, "Type.field", filled Value/Max; set for
	// a bar item. Label is written beside the bar.
	Bar   Ref
	Max   float64
	Label string
	// List is a line for each player, e.g. "{name}: {Score.coins}", in the
	// order of the scoreboard (highest first value first); set for a list
	// item.
	List Template
	// Scoreboard shows the scoreboard (the project's scoreboard fields,
	// each player's round trip, the game's state) as a list kept on
	// screen; set for a scoreboard item.
	Scoreboard bool
	// From is whose components Text and Bar read: "own" (the local player's
	// entity, the default) or "game" (the first entity, in slot order, that
	// has the component: a scene entity that keeps the match's state).
	From string
	// Line is where project.toml defines the item, for messages.
	Line int
}

// HUDPlaces are the places a HUD item can be put.
var HUDPlaces = []string{"top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"}

// Kind is "text", "bar", "list" or "scoreboard".
func (h *HUDItem) Kind() string {
	switch {
	case h.Bar.Type != "":
		return "bar"
	case h.List != nil:
		return "list"
	case h.Scoreboard:
		return "scoreboard"
	}
	return "text"
}

// Template is a line of text with fields in braces: "{Score.red}" is a
// component field's value, "{name}" (or "{player}") the player's name;
// "{{" and "}}" are a brace. Its parts are literal text (Ref zero) or one field each.
type Template []TemplatePart

// TemplatePart is literal text, or one field when Ref is set.
type TemplatePart struct {
	Text string
	Ref  Ref
}

// Ref names what a template's field shows: Type and Field of a component,
// or Name (the player's name) with Type empty.
type Ref struct {
	Type, Field string
	Name        bool
}

// String writes r as a template writes it, without braces.
func (r Ref) String() string {
	if r.Name {
		return "name"
	}
	return r.Type + "." + r.Field
}

// ParseTemplate parses s as a Template, or says what is wrong with it.
func ParseTemplate(s string) (Template, error) {
	var out Template
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, TemplatePart{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '}':
			return nil, fmt.Errorf("a } at byte %d closes no field; write }} for a brace", i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("the { at byte %d is not closed; write {{ for a brace", i)
			}
			r, err := parseRef(s[i+1 : i+end])
			if err != nil {
				return nil, err
			}
			flush()
			out = append(out, TemplatePart{Ref: r})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	if out == nil {
		out = Template{}
	}
	return out, nil
}

// parseRef parses what a template's braces hold: "name" or "Type.field".
func parseRef(s string) (Ref, error) {
	if s == "name" || s == "player" {
		return Ref{Name: true}, nil
	}
	typ, field, ok := strings.Cut(s, ".")
	if !ok || !isIdentifier(typ) || !isIdentifier(field) {
		return Ref{}, fmt.Errorf("{%s} is not a field: write {Type.field} (e.g. {Score.red}) or {name}", s)
	}
	return Ref{Type: typ, Field: field}, nil
}

// Refs returns the fields t shows, in order.
func (t Template) Refs() []Ref {
	var out []Ref
	for _, p := range t {
		if p.Ref != (Ref{}) {
			out = append(out, p.Ref)
		}
	}
	return out
}

// readHUD reads the [[hud]] tables into p.
func readHUD(root *tomlTable, p *Project) {
	items, _ := root.tables("hud", "[[hud]]")
	for _, t := range items {
		t.only()
		h := HUDItem{At: "top-left", From: "own", Line: t.line}
		if at, ok := t.str("at"); ok {
			if !slices.Contains(HUDPlaces, at) {
				t.fail("at", "%q is not a place on screen: use one of %s", at, strings.Join(HUDPlaces, ", "))
			}
			h.At = at
		}
		kinds := 0
		for _, k := range []string{"text", "bar", "list", "scoreboard"} {
			if t.has(k) {
				kinds++
			}
		}
		if kinds != 1 {
			t.fail("", "a [[hud]] item is exactly one of text, bar, list or scoreboard (this one sets %d)", kinds)
			continue
		}
		if sb, ok := t.boolean("scoreboard"); ok {
			if !sb {
				t.fail("scoreboard", "a scoreboard item sets scoreboard = true; leave the item out for none")
			}
			h.Scoreboard = true
			if t.has("from") {
				t.fail("from", "a scoreboard reads each player's entity; leave from out")
			}
		}
		h.Text = readTemplate(t, "text")
		h.List = readTemplate(t, "list")
		if s, ok := t.str("bar"); ok {
			r, err := parseRef(strings.Trim(s, "{}"))
			if err != nil || r.Name {
				t.fail("bar", "%q is not a component field: write \"Type.field\", e.g. \"Health.hp\"", s)
			}
			h.Bar = r
			h.Max = 100
			if m, ok := t.number("max"); ok {
				if !(m > 0 && m < 1e300) {
					t.fail("max", "%v is not a bar's full value: it must be above 0", m)
				}
				h.Max = m
			}
		} else if t.has("max") {
			t.fail("max", "max is the full value of a bar; this item has no bar")
		}
		if l, ok := t.str("label"); ok {
			h.Label = l
		}
		if from, ok := t.str("from"); ok {
			switch {
			case from != "own" && from != "game":
				t.fail("from", "%q is not whose components the item reads: use \"own\" (the local player's entity) or \"game\" (the first entity that has the component)", from)
			case h.List != nil:
				t.fail("from", "a list reads each player's entity; leave from out")
			}
			h.From = from
		}
		p.HUD = append(p.HUD, h)
	}
}

func readTemplate(t *tomlTable, key string) Template {
	s, ok := t.str(key)
	if !ok {
		return nil
	}
	tpl, err := ParseTemplate(s)
	if err != nil {
		t.fail(key, "%q: %v", s, err)
		return nil
	}
	return tpl
}
