package replication

import "vkm/internal/entity"

// A spectator's connection has no own entity: it watches a player's, or the
// whole level. SetFocus names the entity it watches, and its snapshots then
// look from there as a player's look from their own (see Reach): near
// what it follows every round, the rest one round in Every. The focus is
// not the own entity: the header does not name it, and it is written in
// slot order with the rest.

// SetFocus sets the entity a connection with no own entity looks from;
// entity.None (or an entity not in the round) looks at the whole level
// every round.
func (p *Peer) SetFocus(id entity.ID) { p.focus = id }

// Focus returns what SetFocus set.
func (p *Peer) Focus() entity.ID { return p.focus }

// center returns where this Write's snapshot looks from: the own entity at
// ownAt when it is placed, else the focus when it is in the round and
// placed. placed is false when it looks from nowhere (everything is near).
func (p *Peer) center(r *Round, ownAt int) (x, y float32, placed bool) {
	at := ownAt
	if at < 0 && !p.focus.IsNone() {
		at = r.index(p.focus)
	}
	if at < 0 || !r.ents[at].placed {
		return 0, 0, false
	}
	return r.ents[at].x, r.ents[at].y, true
}
