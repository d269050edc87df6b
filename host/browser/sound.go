package browser

import (
	"math"

	"vkm/internal/entity"
)

// A [[sound]] with change plays when a component field changes on an
// entity (docs/project.md, "Sounds"): each frame the Viewer reads the
// field of every entity that has it and, where it differs from the value
// the frame before showed, keeps a "vkm.change" effect at the entity for
// the page to play. Judged on what is drawn, after the ticks and any
// replay of the frame: a replay that comes back to the value shown plays
// nothing, and each change is one effect, numbered as every effect is, so
// the page plays it once.

// fieldsSeen is one change sound's field, by entity, as a frame showed it;
// next is the map the next frame fills, swapped in after it.
type fieldsSeen struct {
	now, next map[entity.ID]float64
}

// changeSounds keeps a "vkm.change" effect for each entity whose field of
// a change sound changed since the last frame.
func (v *Viewer) changeSounds() {
	sounds := v.g.Project().Sounds
	for i, s := range sounds {
		if s.Change.Type == "" {
			continue
		}
		if v.changes == nil {
			v.changes = make([]fieldsSeen, len(sounds))
		}
		fs := &v.changes[i]
		if fs.next == nil {
			fs.now, fs.next = map[entity.ID]float64{}, map[entity.ID]float64{}
		}
		clear(fs.next)
		name := s.Change.String()
		v.g.Store().Each(func(id entity.ID) bool {
			x := v.field(id, s.Change)
			if math.IsNaN(x) {
				return true
			}
			if old, ok := fs.now[id]; ok && old != x {
				v.effect("vkm.change", id, map[string]any{"field": name})
			}
			fs.next[id] = x
			return true
		})
		fs.now, fs.next = fs.next, fs.now
	}
}
