package session

import (
	"time"

	"vkm/internal/entity"
	"vkm/transport"
)

// Inspected is what this client knows of one entity, for a developer's
// inspector: who simulates it here, its lease, and how the server's
// snapshots have mentioned it since the inspection began. The server's own
// view (the entity's priority in its snapshots, the bytes it spends on it)
// is not sent to clients, and is not here.
type Inspected struct {
	// Simulates says who decides the entity's motion on this client:
	// "this client (its own character)", "this client (leased)", or "the
	// server (drawn interpolated)".
	Simulates string
	// LeasedUntil is the last tick of its lease, when Simulates says
	// leased.
	LeasedUntil uint32
	// LastUpdate is the tick of the newest snapshot that mentioned it since
	// the inspection began (0: none yet), and Updates how many did.
	LastUpdate uint32
	Updates    uint64
	// UpdatesPerS is Updates over the time since the inspection began.
	UpdatesPerS float64
	// LagTicks is how far behind the interpolation clock it is drawn,
	// for an entity drawn interpolated.
	LagTicks float64
}

// inspection is the entity the client counts snapshot mentions of.
type inspection struct {
	id      entity.ID
	since   transport.Time
	last    uint32
	updates uint64
}

// Inspect returns what this client knows of id, and from now on counts
// the snapshots that mention it; inspecting another entity starts the
// count again. entity.None stops counting.
func (c *Client) Inspect(id entity.ID, now transport.Time) Inspected {
	if c.inspect.id != id {
		c.inspect = inspection{id: id, since: now}
	}
	var in Inspected
	if id.IsNone() {
		return in
	}
	tick := c.game.Tick()
	switch until, leased := c.leases.Until(id, tick); {
	case id == c.game.Own():
		in.Simulates = "this client (its own character)"
	case leased && c.playing:
		in.Simulates, in.LeasedUntil = "this client (leased)", until
	default:
		in.Simulates = "the server (drawn interpolated)"
		if tr := c.interp.tracks[id]; tr != nil {
			in.LagTicks = tr.lag
		}
	}
	in.LastUpdate, in.Updates = c.inspect.last, c.inspect.updates
	if d := time.Duration(now - c.inspect.since); d > 0 {
		in.UpdatesPerS = float64(c.inspect.updates) / d.Seconds()
	}
	return in
}

// sawInspected counts a snapshot's mention of the inspected entity.
func (c *Client) sawInspected(id entity.ID, tick uint32) {
	if id == c.inspect.id && !id.IsNone() {
		c.inspect.last, c.inspect.updates = tick, c.inspect.updates+1
	}
}
