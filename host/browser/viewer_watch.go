package browser

import "vkm/internal/entity"

// camera is the entity the page frames: the own entity, or for a spectator
// the entity of the player it follows (none: the whole level).
func (v *Viewer) camera() entity.ID {
	if v.c != nil && v.c.Spectator() {
		if id, ok := v.c.Followed(); ok {
			return id
		}
		return entity.None
	}
	return v.g.Own()
}
