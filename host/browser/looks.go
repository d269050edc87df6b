package browser

import (
	"math"
	"strings"
	"vkm/host/project"

	"vkm/host/view"
	"vkm/internal/entity"
)

// looks appends to out the looks of this frame's entities whose look
// follows their components (project.Look.Changes), read from the client's
// store: every end draws them from the same replicated fields.
func (v *Viewer) looks(out []view.Look) []view.Look {
	g := v.g
	st := g.Store()
	var names map[entity.ID]string
	var b strings.Builder
	st.Each(func(id entity.ID) bool {
		l := g.Look(id)
		if !l.Changes() || (st.Body(id) == nil && l.Sprite == nil) {
			return true
		}
		lk := view.Look{ID: id, Color: l.Color, Label: l.Label, Visible: true}
		if l.LabelFields != nil {
			if names == nil {
				names = map[entity.ID]string{}
				for _, p := range g.Players() {
					names[p.Entity] = p.Name
				}
			}
			b.Reset()
			v.fill(&b, l.LabelFields, id, names[id])
			lk.Label = b.String()
		} else {
			lk.Label = "" // the scene's label stands
		}
		if l.ColorBy.Type != "" {
			if x := v.field(id, l.ColorBy); x >= 0 && x < float64(len(l.Colors)) {
				lk.Color = l.Colors[int(x)]
			}
		}
		if l.VisibleBy.Type != "" {
			x := v.field(id, l.VisibleBy)
			lk.Visible = math.IsNaN(x) || x != 0
		}
		if sp := l.Sprite; sp != nil && sp.StateBy.Type != "" {
			if x := v.field(id, sp.StateBy); x >= 0 && x < float64(len(sp.States)) {
				lk.State = sp.States[int(x)]
			}
		}
		out = append(out, lk)
		return true
	})
	return out
}

// decoration reports whether id is drawn for its sprite alone: an entity
// with a sprite and no body.
func (v *Viewer) decoration(id entity.ID) bool {
	l := v.g.Look(id)
	return l != nil && l.Sprite != nil && v.g.Store().Body(id) == nil
}

// spriteOf is sp for the page; nil for none.
func spriteOf(sp *project.Sprite) *view.Sprite {
	if sp == nil {
		return nil
	}
	return &view.Sprite{Image: sp.Image, W: sp.Size.X, H: sp.Size.Y, Offset: sp.Offset, Angle: sp.Angle,
		Columns: sp.Columns, Rows: sp.Rows, Frame: sp.Frame, Animations: sp.Animations, Animation: sp.Animation, FPS: sp.FPS}
}
