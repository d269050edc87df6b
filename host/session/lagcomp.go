package session

import (
	"math"

	"vkm/host/game"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
)

// lagComp is a server's lag compensation: the recent poses of every
// player's root entity, the tick each player's command of this tick was
// drawn at, and, during a net.rewind call, the poses the players stand at.
type lagComp struct {
	history prediction.PoseHistory
	// drawnAt is, per player entity, the server tick its client was
	// drawing when it made the command this tick runs.
	drawnAt map[entity.ID]float64
	// moved holds the players' past poses for the length of a rewind
	// (nil outside one); saved is their present, put back after it.
	moved physics.Moved
	saved map[entity.ID]entity.Transform
	// off makes net.rewind a plain call, to compare a shot with and
	// without it.
	off bool
	// lookBehind is how many ticks the last rewind went back from the
	// tick being run, to the tick at.
	lookBehind, at float64
}

func newLagComp() *lagComp {
	return &lagComp{drawnAt: map[entity.ID]float64{}, saved: map[entity.ID]entity.Transform{}}
}

// record keeps where every driven player stands at the end of the tick.
func (l *lagComp) record(g *game.Game, driven map[entity.ID]*prediction.Command) {
	for id := range driven {
		if t := g.Store().Transform(id); t != nil {
			l.history.Record(g.Tick(), id, *t)
		}
	}
}

// forget drops a player who left.
func (l *lagComp) forget(id entity.ID) {
	l.history.Forget(id)
	delete(l.drawnAt, id)
}

// rewind runs fn with every other driven player's root entity back where
// the client driving caller (or its root) drew it when it made this tick's
// command: their Transforms read as then, and ray casts and box queries
// find their bodies there (rewound). Everything is put back when fn
// returns or raises. A nested call and a caller no player drives run fn as
// it is.
func (l *lagComp) rewind(g *game.Game, driven map[entity.ID]*prediction.Command, caller entity.ID, fn func()) {
	if l.off || l.moved != nil {
		fn()
		return
	}
	root := g.Root(caller)
	at, ok := l.drawnAt[root]
	if !ok {
		fn()
		return
	}
	if oldest, newest, ok := l.history.Span(root); ok {
		// Where the history ends, so does the claim.
		at = math.Max(float64(oldest), math.Min(float64(newest), at))
	}
	l.lookBehind, l.at = float64(g.Tick())-at, at
	moved := physics.Moved{}
	for id := range driven {
		if id == root {
			continue
		}
		t := g.Store().Transform(id)
		past, ok := l.history.At(id, at)
		if t == nil || !ok {
			continue
		}
		l.saved[id] = *t
		*t = past
		moved[id] = past
	}
	l.moved = moved
	defer func() {
		for id, t := range l.saved {
			if p := g.Store().Transform(id); p != nil {
				*p = t
			}
			delete(l.saved, id)
		}
		l.moved = nil
	}()
	fn()
}

// rewound is the poses queries see: the players' past during a rewind,
// nothing otherwise.
func (l *lagComp) rewound() physics.Moved { return l.moved }
