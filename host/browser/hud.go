package browser

import (
	"math"
	"strconv"
	"strings"

	"vkm/host/project"
	"vkm/host/view"
	"vkm/internal/entity"
)

// hud fills the project's [[hud]] items in for one frame from the client's
// store: the own entity's fields, the first entity's that has a component
// (from = "game") or each player's (a list). It appends to out and returns
// it; the strings are new each frame.
func (v *Viewer) hud(out []view.HUDItem) []view.HUDItem {
	items := v.g.Project().HUD
	if len(items) == 0 {
		return out
	}
	var b strings.Builder
	for i := range items {
		it := &items[i]
		h := view.HUDItem{At: it.At, Kind: it.Kind(), Text: it.Label}
		switch h.Kind {
		case "text":
			b.Reset()
			v.fill(&b, it.Text, v.source(it.From, it.Text.Refs()), v.ownName())
			h.Text = b.String()
		case "bar":
			h.Value, h.Max = v.field(v.source(it.From, []project.Ref{it.Bar}), it.Bar), it.Max
		case "list":
			for _, p := range v.board.Rows {
				b.Reset()
				v.fill(&b, it.List, v.playerEntity(p.Name), p.Name)
				h.Lines = append(h.Lines, b.String())
			}
		case "scoreboard":
			h.Kind = "list"
			if h.Text == "" {
				h.Text = "scoreboard"
			}
			h.Lines = v.boardLines(&b)
		}
		out = append(out, h)
	}
	return out
}

// source returns the entity an item reads refs from: the own entity, or
// for "game" the first entity in slot order with the first ref's component.
func (v *Viewer) source(from string, refs []project.Ref) entity.ID {
	if from != "game" {
		return v.g.Own()
	}
	st, schema := v.g.Store(), v.g.Schema()
	for _, r := range refs {
		if r.Name {
			continue
		}
		typ := schema.Index(r.Type)
		if typ < 0 {
			return entity.None
		}
		found := entity.None
		st.Each(func(id entity.ID) bool {
			if st.Component(id, typ) != nil {
				found = id
				return false
			}
			return true
		})
		return found
	}
	return entity.None
}

// field returns r's value on id, NaN when id lacks it.
func (v *Viewer) field(id entity.ID, r project.Ref) float64 {
	schema := v.g.Schema()
	typ := schema.Index(r.Type)
	if typ < 0 || id.IsNone() || !v.g.Store().Alive(id) {
		return math.NaN()
	}
	for i, f := range schema.Types[typ].Fields {
		if f.Name == r.Field {
			if vals := v.g.Store().Component(id, typ); i < len(vals) {
				return vals[i]
			}
		}
	}
	return math.NaN()
}

// fill writes t with its fields read from id, name for {name}.
func (v *Viewer) fill(b *strings.Builder, t project.Template, id entity.ID, name string) {
	for _, p := range t {
		switch {
		case p.Ref == (project.Ref{}):
			b.WriteString(p.Text)
		case p.Ref.Name:
			b.WriteString(name)
		default:
			b.WriteString(formatHUD(v.field(id, p.Ref)))
		}
	}
}

// formatHUD writes x as the HUD shows it: a whole number without a point,
// others with up to two decimals, a missing value as a dash.
func formatHUD(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "\u2013"
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}

// ownName is the local player's name as the server's player list has it.
func (v *Viewer) ownName() string {
	own := v.g.Own()
	for _, p := range v.g.Players() {
		if !own.IsNone() && p.Entity == own {
			return p.Name
		}
	}
	return ""
}

// playerEntity is the entity of the player called name.
func (v *Viewer) playerEntity(name string) entity.ID {
	for _, p := range v.g.Players() {
		if p.Name == name {
			return p.Entity
		}
	}
	return entity.None
}

// boardLines writes the scoreboard as a HUD list's lines: a line for each
// player in the board's order, "name  3 · 1 · 40 ms" (the own marked with
// a triangle), then the game's state, "Round.left 93".
func (v *Viewer) boardLines(b *strings.Builder) []string {
	var lines []string
	for _, r := range v.board.Rows {
		b.Reset()
		if r.Own {
			b.WriteString("\u25b8 ")
		}
		b.WriteString(r.Name)
		for i, x := range r.Values {
			if i == 0 {
				b.WriteString("  ")
			} else {
				b.WriteString(" \u00b7 ")
			}
			b.WriteString(formatHUD(x))
		}
		b.WriteString("  ")
		b.WriteString(formatHUD(math.Round(r.RTTms)))
		b.WriteString(" ms")
		lines = append(lines, b.String())
	}
	for _, s := range v.board.State {
		lines = append(lines, s.Label+" "+formatHUD(s.Value))
	}
	return lines
}
