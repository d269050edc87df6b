package record

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session"
)

// PlayConfig says how a Player plays a recording.
type PlayConfig struct {
	// Project, if set, plays the match on this project rather than on
	// the files the recording holds: the same inputs on changed scripts,
	// to see whether (and from which tick) the change changes the match.
	Project *project.Project
	// Logger receives the replayed scripts' log lines; nil discards.
	Logger *slog.Logger
}

// Player plays a recording again, offline and exactly: a server with no
// network (session.Replayer) is handed the recorded inputs in order, and
// every recorded world hash is compared with the replay's at its tick.
//
// A world holds Lua state, which cannot be saved and restored; so a jump
// (PlayTo) runs every tick from the start, without presenting anything,
// and a jump back starts a new Player. Replaying is many times faster than
// the match was (BENCHMARKS.md).
type Player struct {
	rec     *Recording
	dec     *Decoder
	r       *session.Replayer
	pending *Event // an event read ahead: the next tick's
	ended   bool
	err     error // a decoding error: nothing plays past it

	// Checked counts the hashes compared and found equal.
	Checked int
	// LastGood is the last tick whose hash was found equal (0: none).
	LastGood uint32
	// Ticks counts the ticks run.
	Ticks uint32
	// End is the recording's end event's text ("" when it has none: the
	// file was cut short).
	End string
}

// Mismatch is a replay that differs from the match it plays: the first
// recorded world hash, or join outcome, that the replay does not repeat.
type Mismatch struct {
	// Tick is the tick the difference showed at; LastGood the last tick
	// whose hash was equal (the difference began after it).
	Tick, LastGood uint32
	// Want and Got are the recorded and replayed hashes, for a hash.
	Want, Got uint64
	// Why says what differs.
	Why string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("record: the replay differs from the match at tick %d (equal up to tick %d): %s", m.Tick, m.LastGood, m.Why)
}

// NewPlayer makes the world rec's match started from: its project (the
// recording's own files unless cfg.Project is set), at tick 0, nobody
// seated.
func NewPlayer(rec *Recording, cfg PlayConfig) (*Player, error) {
	p := cfg.Project
	if p == nil {
		var err error
		if p, err = project.LoadZip(rec.Header.Archive); err != nil {
			return nil, fmt.Errorf("record: the recording's project: %w", err)
		}
	}
	if p.TickRate != rec.Header.TickRate {
		return nil, fmt.Errorf("record: the project runs at %d Hz and the match ran at %d Hz", p.TickRate, rec.Header.TickRate)
	}
	r, err := session.NewReplayer(session.ServerConfig{Project: p, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	return &Player{rec: rec, dec: NewDecoder(rec), r: r}, nil
}

// Close releases the replay's world.
func (p *Player) Close() { p.r.Close() }

// Game is the world being replayed.
func (p *Player) Game() *game.Game { return p.r.Game() }

// Tick is the last tick run.
func (p *Player) Tick() uint32 { return p.r.Game().Tick() }

// Step runs the recording's events up to and including its next tick and
// the hash written after it. It returns io.EOF once the recording has no
// tick left, a *Mismatch when the replay differs from the match (the
// replay can go on), and any other error when the recording cannot be
// played further.
func (p *Player) Step() error {
	if p.err != nil {
		return p.err
	}
	ran := false
	var mismatch error
	for {
		ev := p.pending
		p.pending = nil
		if ev == nil {
			if p.ended {
				break
			}
			var err error
			ev, err = p.dec.Next()
			if err == io.EOF {
				p.ended = true
				break
			}
			if err != nil {
				p.err = err
				if ran {
					return mismatch
				}
				return err
			}
		}
		if ran && ev.Kind != KindHash && ev.Kind != KindEnd {
			// What comes next happened after this tick: it waits for
			// the next Step.
			p.pending = ev
			break
		}
		if err := p.apply(ev); err != nil {
			var m *Mismatch
			if !errors.As(err, &m) {
				p.err = err
				return err
			}
			if mismatch == nil {
				mismatch = err
			}
		}
		if ev.Kind == KindTick {
			ran = true
		}
	}
	if !ran {
		return io.EOF
	}
	return mismatch
}

// apply hands the replay one event.
func (p *Player) apply(ev *Event) error {
	r := p.r
	switch ev.Kind {
	case KindJoin:
		id, err := r.Join(ev.Player, ev.Text)
		got := JoinSeated
		switch {
		case err != nil:
			got = JoinFailed
		case id.IsNone():
			got = JoinDeclined
		}
		if got != ev.Outcome || got == JoinSeated && id != ev.Entity {
			why := fmt.Sprintf("player %d's join gave %s (%v), the match's %s (%v)", ev.Player, outcomeName(got), id, outcomeName(ev.Outcome), ev.Entity)
			if got == JoinSeated && ev.Outcome != JoinSeated {
				r.Leave(ev.Player) // the recording commands only the players it seated
			}
			return &Mismatch{Tick: p.Tick(), LastGood: p.LastGood, Why: why}
		}
	case KindLeave:
		r.Leave(ev.Player)
	case KindDrain:
		r.Drain(ev.Seconds)
	case KindMessage:
		if err := r.Message(ev.Player, ev.Number, ev.Body); err != nil {
			return fmt.Errorf("record: tick %d: player %d's message %d: %w", p.Tick(), ev.Player, ev.Number, err)
		}
	case KindChat:
		r.Chat(ev.Player, ev.Text)
	case KindRoundTrip:
		r.RoundTrip(ev.Player, ev.RTT)
	case KindTick:
		for _, rt := range ev.RoundTrips {
			r.RoundTrip(rt.Player, rt.RTT)
		}
		if err := r.Tick(ev.Reload, ev.Commands); err != nil {
			return fmt.Errorf("record: tick %d: %w", ev.Tick, err)
		}
		p.Ticks++
	case KindHash:
		if got := WorldHash(p.r.Game()); got != ev.Hash {
			return &Mismatch{Tick: ev.Tick, LastGood: p.LastGood, Want: ev.Hash, Got: got,
				Why: fmt.Sprintf("world hash %016x, the match's %016x", got, ev.Hash)}
		}
		p.Checked++
		p.LastGood = ev.Tick
	case KindEnd:
		p.End = ev.Text
	}
	return nil
}

func outcomeName(o JoinOutcome) string {
	switch o {
	case JoinSeated:
		return "a seat"
	case JoinDeclined:
		return "a refusal"
	}
	return "an error"
}

// PlayTo runs ticks until tick (or the recording's end), checking the
// hashes on the way. It returns the first Mismatch, having gone on to
// tick, or io.EOF when the recording ends before tick.
func (p *Player) PlayTo(tick uint32) error {
	var first error
	for p.Tick() < tick {
		err := p.Step()
		var m *Mismatch
		switch {
		case err == nil:
		case errors.As(err, &m):
			if first == nil {
				first = err
			}
		default:
			if first != nil && err == io.EOF {
				return first
			}
			return err
		}
	}
	return first
}

// Report is what a whole replay found.
type Report struct {
	// Ticks were run; Checked hashes were compared equal.
	Ticks   uint32
	Checked int
	// Mismatch is the first difference (nil: none).
	Mismatch *Mismatch
	// Torn says the file was cut short: it played to its last whole
	// record. End is its end record's text.
	Torn bool
	End  string
	// Err is why the replay stopped before the recording's end.
	Err error
}

// Play plays rec whole (PlayTo the end) and reports what it found.
func Play(rec *Recording, cfg PlayConfig) (*Report, error) {
	pl, err := NewPlayer(rec, cfg)
	if err != nil {
		return nil, err
	}
	defer pl.Close()
	rep := &Report{Torn: rec.Torn}
	for {
		err := pl.Step()
		if err == io.EOF {
			break
		}
		var m *Mismatch
		if errors.As(err, &m) {
			if rep.Mismatch == nil {
				rep.Mismatch = m
			}
			continue
		}
		if err != nil {
			rep.Err = err
			break
		}
	}
	rep.Ticks, rep.Checked, rep.End = pl.Ticks, pl.Checked, pl.End
	return rep, nil
}
