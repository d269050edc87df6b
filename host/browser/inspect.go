package browser

import (
	"fmt"
	"sync"

	"vkm/host/view"
	"vkm/internal/entity"
)

// The developer's entity inspector (view's inspect.go): the page picks an
// entity, and each frame says what this client knows of it: its slot and
// name, its components as this client holds them, who simulates it here,
// its lease, and how often the server's snapshots mention it; and what
// the server alone knows (its priority, the bytes its snapshots spend on
// it, when they last held it), which a dev server reports to a dev client.

// picked holds the entity the page picked until the loop reads it: the
// page's messages come on its connection's goroutine.
type picked struct {
	mu sync.Mutex
	id entity.ID
}

// set is view.Config.OnInspect.
func (p *picked) set(id entity.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.id = id
}

func (p *picked) get() entity.ID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.id
}

// inspect returns the frame's inspector for the picked entity, nil for
// none or one that is gone.
func (v *Viewer) inspect() *view.Inspect {
	if v.picked == nil {
		return nil
	}
	id := v.picked.get()
	g := v.g
	if id.IsNone() || !g.Store().Alive(id) {
		if v.c != nil && v.now != nil {
			v.c.Inspect(entity.None, v.now())
		}
		return nil
	}
	in := &view.Inspect{ID: id}
	line := func(label, value string) { in.Lines = append(in.Lines, [2]string{label, value}) }
	line("slot", fmt.Sprintf("%d#%d", id.Slot, id.Gen))
	if name := g.Store().Name(id); name != "" {
		line("name", name)
	}
	for _, p := range g.Players() {
		if p.Entity == id {
			line("player", fmt.Sprintf("%d (%s)", p.Number, p.Name))
		}
	}
	schema := g.Schema()
	g.Store().EachComponent(id, func(typ int, vals entity.Values) {
		if typ >= len(schema.Types) {
			return
		}
		t := schema.Types[typ]
		for i, f := range t.Fields {
			if i < len(vals) {
				line(t.Name+"."+f.Name, formatHUD(vals[i]))
			}
		}
	})
	if t := g.Store().Transform(id); t != nil {
		line("pose", fmt.Sprintf("%.2f, %.2f, %.2f rad", t.X, t.Y, t.Angle))
	}
	if v.c == nil {
		line("simulated by", "this game (offline)")
		return in
	}
	st := v.c.Inspect(id, v.now())
	line("simulated by", st.Simulates)
	if st.LeasedUntil != 0 {
		line("leased until tick", fmt.Sprint(st.LeasedUntil))
	}
	if st.LagTicks != 0 {
		line("drawn behind the clock", fmt.Sprintf("%.1f ticks", st.LagTicks))
	}
	last := "none since picked"
	if st.Updates > 0 {
		last = fmt.Sprintf("server tick %d", st.LastUpdate)
	}
	line("last update", last)
	line("updates", fmt.Sprintf("%.1f a second since picked", st.UpdatesPerS))
	switch r := st.Server; {
	case st.ServerKnown:
		// The server's own view, which a dev server reports to its dev
		// clients (session.InspectEvery).
		prio := "written each round it has news"
		if r.Priority > 0 {
			prio = fmt.Sprintf("%d rounds waiting with news", r.Priority)
		}
		line("priority", prio)
		line("bytes a second", fmt.Sprintf("%d in this client's snapshots", r.BytesPerS))
		written := "not since picked"
		if r.LastWritten != 0 {
			written = fmt.Sprintf("server tick %d (%d entries since picked)", r.LastWritten, r.Entries)
		}
		line("last written", written)
	case st.Asked:
		line("priority, bytes a second", "asked the server")
	default:
		line("priority, bytes a second", "the server's: a dev server tells a client that joined with --dev")
	}
	return in
}
