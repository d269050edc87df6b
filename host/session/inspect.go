package session

import (
	"math"
	"time"

	"vkm/host/session/netmsg"
	"vkm/internal/entity"
	"vkm/transport"
)

// Inspected is what this client knows of one entity, for a developer's
// inspector: who simulates it here, its lease, and how the server's
// snapshots have mentioned it since the inspection began; and, from a dev
// server to a client that joined with --dev, the server's own view of it
// (its priority in this client's snapshots, the bytes they spend on it),
// which the server reports over the reliable channel (netmsg.KindInspect)
// InspectEvery while it is inspected.
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
	// Server is the server's newest report of it, when ServerKnown: a
	// dev client of a dev server has one InspectEvery after it asked.
	// Asked says the client asked (it joined with --dev).
	Server      netmsg.InspectReport
	ServerKnown bool
	Asked       bool
}

// InspectEvery is how often a dev server reports an inspected entity to
// the dev client inspecting it, and the span its bytes a second are
// taken over.
const InspectEvery = 250 * time.Millisecond

// inspection is the entity the client counts snapshot mentions of, and
// the server's newest report of it.
type inspection struct {
	id      entity.ID
	since   transport.Time
	last    uint32
	updates uint64
	asked   bool
	report  netmsg.InspectReport
	known   bool
}

// Inspect returns what this client knows of id, and from now on counts
// the snapshots that mention it; inspecting another entity starts the
// count again. entity.None stops counting.
func (c *Client) Inspect(id entity.ID, now transport.Time) Inspected {
	if c.inspect.id != id {
		had := c.inspect.asked || !c.inspect.id.IsNone()
		c.inspect = inspection{id: id, since: now}
		// A dev client asks the server for its view; stopping is said
		// too, so that a server stops reporting.
		if c.dev && (!id.IsNone() || had) {
			c.inspect.asked = c.rel.Send(netmsg.InspectAsk{ID: id}.Append(nil)) == nil && !id.IsNone()
		}
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
	in.Asked, in.Server, in.ServerKnown = c.inspect.asked, c.inspect.report, c.inspect.known
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

// takeInspectReport keeps the server's report of the inspected entity; one
// of another entity (asked for before) is dropped.
func (c *Client) takeInspectReport(msg []byte) {
	r, err := netmsg.ParseInspectReport(msg)
	if err != nil {
		c.log.Debug("unreadable inspector report", "err", err)
		return
	}
	if r.ID == c.inspect.id && c.inspect.asked {
		c.inspect.report, c.inspect.known = r, true
	}
}

// The server's side: a seat's inspection.

// seatInspection is the entity a dev client inspects, and what the
// seat's Peer had written of it at the last report.
type seatInspection struct {
	id     entity.ID
	at     transport.Time // the last report's, or the ask's
	bits   uint64
	asking bool
}

// takeInspect takes a client's ask. Only a dev client of a dev server is
// answered: the inspector is the developer's.
func (s *Server) takeInspect(st *seat, msg []byte) {
	a, err := netmsg.ParseInspectAsk(msg)
	if err != nil || !st.dev || s.dev == nil {
		return
	}
	st.inspect = seatInspection{id: a.ID, at: s.now, asking: !a.ID.IsNone()}
	if st.peer != nil {
		st.peer.Watch(a.ID)
	}
}

// reportInspect sends st's client the report of the entity it inspects,
// once InspectEvery, after the round's snapshot was written.
func (s *Server) reportInspect(st *seat, now transport.Time) {
	in := &st.inspect
	if !in.asking || st.peer == nil || time.Duration(now-in.at) < InspectEvery {
		return
	}
	w := st.peer.Watched()
	secs := time.Duration(now - in.at).Seconds()
	rate := float64(w.Bits-in.bits) / 8 / secs
	in.at, in.bits = now, w.Bits
	r := netmsg.InspectReport{
		ID:          in.id,
		Priority:    w.Priority,
		BytesPerS:   uint32(min(math.Round(rate), math.MaxUint32)),
		LastWritten: w.LastTick,
		Entries:     uint32(min(w.Entries, math.MaxUint32)),
	}
	if st.rel.PendingMessages() > 8 {
		return // a stalled link is not fed more of these
	}
	s.sendMessage(st, r.Append(nil))
}
