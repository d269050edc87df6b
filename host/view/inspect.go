package view

import (
	"math"

	"vkm/internal/entity"
)

// The developer's entity inspector: Alt and a click on the game picks the
// entity nearest the pointer, and the page says so,
//
//	{"t":"inspect","id":16777236}    (0: none)
//
// which is handed to Config.OnInspect (SinkConfig.OnInspect); each frame
// then carries what the client knows of it,
//
//	"inspect":{"id":16777236,"lines":[["slot","20#1"],["name","runner"],
//	  ["simulated by","the server (drawn interpolated)"], ...]}
//
// and the side panel lists it.

// Inspect is what the frame says of the inspected entity: its id and a
// list of labelled lines, in order.
type Inspect struct {
	ID    entity.ID
	Lines [][2]string
}

// inspectMsg is Inspect in the frame message.
type inspectMsg struct {
	ID    uint64      `json:"id"`
	Lines [][2]string `json:"lines"`
}

// parseInspect reads an inspect message's id: a whole number that packs
// an entity id, 0 for none. ok is false for anything else.
func parseInspect(raw *rawMessage) (entity.ID, bool) {
	if raw.ID == nil {
		return entity.None, false
	}
	f := *raw.ID
	if math.IsNaN(f) || f < 0 || f != math.Trunc(f) || f >= 1<<53 {
		return entity.None, false
	}
	n := uint64(f)
	if n == 0 {
		return entity.None, true
	}
	return entity.ID{Slot: uint32(n & uint64(entity.MaxSlot)), Gen: uint32(n >> 24)}, true
}
