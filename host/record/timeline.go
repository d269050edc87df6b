package record

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
	"unsafe"

	"vkm/internal/entity"
)

// A Timeline is a recording as a viewer scrubs it: play, pause, step a
// tick, jump, change speed, follow a player or look freely.
//
// The match is simulated once, forward, by a Player, as far as the viewer
// has asked to see; every tick it runs is kept as what a viewer draws of
// it (a Frame: every entity's pose, the players, the world's hash). A
// keyframe holds the whole frame every KeyEvery ticks, and each tick in
// between only what moved since the tick before. A jump to a tick already
// simulated restores the keyframe at or before it and applies at most
// KeyEvery-1 ticks of changes: it runs no simulation at all. A jump past
// what was simulated runs the ticks from there on, never from zero.
//
// Why keyframes of the drawn world and not of the simulation: a world is
// its physics (physics.State saves that exactly), its entity store and its
// Lua state, and a Lua state (behaviors' own fields, closures, module
// upvalues) cannot be saved and put back. A recording's inputs are fixed,
// so the simulation never needs to run a tick twice to show it again: the
// frames it drew the first time are the world at that tick, and the hash
// kept with each is the world's own (WorldHash), so a frame reached by a
// jump is checked against the one reached by playing.
type Timeline struct {
	pl   *Player
	rate int
	// every is the keyframe interval in ticks.
	every uint32

	// keys[i] is the whole frame at tick i*every; changes[t] what moved
	// at tick t (changes[0] is empty); hashes[t] the world's hash at t.
	keys    [][]Pose
	changes []change
	hashes  []uint64
	// looks describes every entity ever seen, by id.
	looks map[entity.ID]*Look
	// rosters are the players as they changed, in tick order.
	rosters []rosterAt
	// cur is the frame at the frontier, kept to find what moved.
	cur     []Pose
	scratch []Pose
	// ended: the recording has no tick past the frontier.
	ended bool
	// Mismatch is the first difference from the match the simulation
	// found (nil: none so far).
	Mismatch *Mismatch
	// Applied is how many ticks of changes the last Frame applied on top
	// of its keyframe: what a jump cost, bounded by KeyEvery-1.
	Applied int

	// The viewer's place: at is the tick shown; playing, speed and carry
	// (a fraction of a tick owed) drive Advance; follows and free say
	// what the camera looks at.
	at      uint32
	playing bool
	speed   float64
	carry   float64
	follows uint16
	free    bool
}

// Pose is one entity's place in a Frame. Positions are float32: a frame
// is for drawing, and the world's exact state is in its hash.
type Pose struct {
	ID       entity.ID
	X, Y, A  float32
	Parented bool // placed by its parent: drawn where the world puts it
}

// Look is what an entity is drawn as: its name, the player it belongs to
// (0: none) and its body's shapes (none: a point).
type Look struct {
	Name   string
	Player uint16
	Static bool
	Shapes []entity.Shape
}

// Frame is the world at one tick as a viewer draws it.
type Frame struct {
	Tick    uint32
	Hash    uint64
	Poses   []Pose
	Players []Seated
}

// Seated is one player of a Frame: their number, name and entity.
type Seated struct {
	Number uint16
	Name   string
	Entity entity.ID
}

type change struct {
	moved []Pose
	gone  []entity.ID
}

type rosterAt struct {
	tick    uint32
	players []Seated
}

// TimelineConfig says how a Timeline plays a recording.
type TimelineConfig struct {
	PlayConfig
	// KeyEvery is the keyframe interval in ticks; 0 is DefaultKeySeconds
	// of the match's ticks.
	KeyEvery uint32
}

// DefaultKeySeconds is the keyframe interval when a TimelineConfig does
// not say: a jump applies at most this long a stretch of changes.
const DefaultKeySeconds = 10

// MaxSpeed bounds a Timeline's speed: 16 times the match's pace plays a
// ten-minute match in under a minute, and the simulation runs faster than
// that (BENCHMARKS.md).
const MaxSpeed = 16

// NewTimeline starts a timeline of rec at tick 0, paused, at speed 1,
// following no one.
func NewTimeline(rec *Recording, cfg TimelineConfig) (*Timeline, error) {
	pl, err := NewPlayer(rec, cfg.PlayConfig)
	if err != nil {
		return nil, err
	}
	tl := &Timeline{pl: pl, rate: rec.Header.TickRate, every: cfg.KeyEvery, looks: map[entity.ID]*Look{}, speed: 1}
	if tl.every == 0 {
		tl.every = uint32(DefaultKeySeconds * tl.rate)
	}
	tl.changes = append(tl.changes, change{})
	tl.capture()
	return tl, nil
}

// Close releases the simulation.
func (tl *Timeline) Close() { tl.pl.Close() }

// TickRate is the match's ticks a second.
func (tl *Timeline) TickRate() int { return tl.rate }

// KeyEvery is the keyframe interval in ticks.
func (tl *Timeline) KeyEvery() uint32 { return tl.every }

// Simulated is the last tick the simulation has run: the frontier.
func (tl *Timeline) Simulated() uint32 { return uint32(len(tl.hashes) - 1) }

// Ran counts the ticks the simulation has run, all told.
func (tl *Timeline) Ran() uint32 { return tl.pl.Ticks }

// Ended reports whether the simulation reached the recording's end: then
// Simulated is its last tick.
func (tl *Timeline) Ended() bool { return tl.ended }

// Look returns how id is drawn, nil for an entity never seen.
func (tl *Timeline) Look(id entity.ID) *Look { return tl.looks[id] }

// capture keeps the world at the simulation's tick: a keyframe on the
// interval, and what moved since the tick before.
func (tl *Timeline) capture() {
	g := tl.pl.Game()
	st := g.Store()
	var players []Seated
	owner := map[entity.ID]uint16{}
	for _, p := range g.Players() {
		owner[p.Entity] = p.Number
		players = append(players, Seated{Number: p.Number, Name: p.Name, Entity: p.Entity})
	}
	if n := len(tl.rosters); n == 0 || !slices.Equal(tl.rosters[n-1].players, players) {
		tl.rosters = append(tl.rosters, rosterAt{tick: g.Tick(), players: players})
	}
	now := tl.scratch[:0]
	st.Each(func(id entity.ID) bool {
		body := st.Body(id)
		if body == nil && owner[id] == 0 {
			return true
		}
		t := st.WorldTransform(id)
		now = append(now, Pose{ID: id, X: float32(t.X), Y: float32(t.Y), A: float32(t.Angle), Parented: !st.Parent(id).IsNone()})
		if l := tl.looks[id]; l == nil || l.Player != owner[id] {
			l := &Look{Name: st.Name(id), Player: owner[id]}
			if body != nil {
				l.Static = body.Type == entity.Static
				l.Shapes = slices.Clone(body.Shapes)
				for i := range l.Shapes {
					l.Shapes[i].Points = slices.Clone(l.Shapes[i].Points)
				}
			}
			tl.looks[id] = l
		}
		return true
	})
	tick := g.Tick()
	if tick > 0 {
		tl.changes = append(tl.changes, diff(tl.cur, now))
	}
	if tick%tl.every == 0 {
		tl.keys = append(tl.keys, slices.Clone(now))
	}
	tl.hashes = append(tl.hashes, WorldHash(g))
	tl.scratch, tl.cur = tl.cur[:0], now
}

// diff returns what moved, came or went from before to now, both in slot
// order.
func diff(before, now []Pose) change {
	var c change
	i := 0
	for _, p := range now {
		for i < len(before) && before[i].ID.Slot < p.ID.Slot {
			c.gone = append(c.gone, before[i].ID)
			i++
		}
		if i < len(before) && before[i].ID.Slot == p.ID.Slot {
			if before[i] == p {
				i++
				continue
			}
			if before[i].ID != p.ID {
				c.gone = append(c.gone, before[i].ID)
			}
			i++
		}
		c.moved = append(c.moved, p)
	}
	for ; i < len(before); i++ {
		c.gone = append(c.gone, before[i].ID)
	}
	return c
}

// simulate runs the simulation on to tick, or to the recording's end.
func (tl *Timeline) simulate(tick uint32) error {
	for !tl.ended && tl.Simulated() < tick {
		err := tl.pl.Step()
		var m *Mismatch
		switch {
		case err == io.EOF:
			tl.ended = true
			return nil
		case errors.As(err, &m):
			if tl.Mismatch == nil {
				tl.Mismatch = m
			}
		case err != nil:
			tl.ended = true
			return err
		}
		tl.capture()
	}
	return nil
}

// Frame returns the world at tick as a viewer draws it, simulating on to
// it when it lies past the frontier; a tick past the recording's end gives
// its last. What was simulated already is rebuilt from the keyframe at or
// before tick and the changes since (Applied counts them).
func (tl *Timeline) Frame(tick uint32) (*Frame, error) {
	if err := tl.simulate(tick); err != nil && tl.Simulated() < tick {
		return nil, err
	}
	tick = min(tick, tl.Simulated())
	k := tick / tl.every
	poses := slices.Clone(tl.keys[k])
	tl.Applied = 0
	for t := k*tl.every + 1; t <= tick; t++ {
		poses = apply(poses, &tl.changes[t])
		tl.Applied++
	}
	f := &Frame{Tick: tick, Hash: tl.hashes[tick], Poses: poses}
	for _, r := range tl.rosters {
		if r.tick > tick {
			break
		}
		f.Players = r.players
	}
	return f, nil
}

// apply puts one tick's changes on poses, in slot order.
func apply(poses []Pose, c *change) []Pose {
	if len(c.gone) > 0 {
		poses = slices.DeleteFunc(poses, func(p Pose) bool { return slices.Contains(c.gone, p.ID) })
	}
	for _, m := range c.moved {
		i, found := slices.BinarySearchFunc(poses, m.ID.Slot, func(p Pose, slot uint32) int { return int(p.ID.Slot) - int(slot) })
		if found {
			poses[i] = m
		} else {
			poses = slices.Insert(poses, i, m)
		}
	}
	return poses
}

// The viewer's controls.

// At is the tick the viewer shows.
func (tl *Timeline) At() uint32 { return tl.at }

// Playing reports whether the timeline plays (Advance moves it).
func (tl *Timeline) Playing() bool { return tl.playing }

// Speed is the pace of play, 1 the match's own.
func (tl *Timeline) Speed() float64 { return tl.speed }

// Play starts playing from where the viewer is.
func (tl *Timeline) Play() { tl.playing = true }

// Pause stops playing; the viewer stays at the tick it shows.
func (tl *Timeline) Pause() { tl.playing, tl.carry = false, 0 }

// Step pauses and moves one tick on (not past the end).
func (tl *Timeline) Step() error {
	tl.Pause()
	return tl.Jump(tl.at + 1)
}

// Jump moves the viewer to tick (the recording's last tick when it lies
// past the end), simulating on to it when it lies past the frontier.
func (tl *Timeline) Jump(tick uint32) error {
	if err := tl.simulate(tick); err != nil && tl.Simulated() < tick {
		return err
	}
	tl.at, tl.carry = min(tick, tl.Simulated()), 0
	return nil
}

// SetSpeed sets the pace of play: above 0, at most MaxSpeed.
func (tl *Timeline) SetSpeed(s float64) error {
	if !(s > 0 && s <= MaxSpeed) {
		return fmt.Errorf("record: speed %v is outside (0, %d]", s, MaxSpeed)
	}
	tl.speed = s
	return nil
}

// Advance moves a playing timeline on by elapsed wall time at its speed;
// at the recording's end it pauses there.
func (tl *Timeline) Advance(elapsed time.Duration) error {
	if !tl.playing {
		return nil
	}
	tl.carry += elapsed.Seconds() * float64(tl.rate) * tl.speed
	n := math.Floor(tl.carry)
	tl.carry -= n
	if n < 1 {
		return nil
	}
	err := tl.Jump(tl.at + uint32(min(n, 1<<20)))
	if tl.ended && tl.at >= tl.Simulated() {
		tl.playing = false
	}
	return err
}

// Follow puts the camera on player's entity (0: no one, the whole level).
func (tl *Timeline) Follow(player uint16) { tl.follows, tl.free = player, false }

// FreeCamera lets the viewer move the camera themselves.
func (tl *Timeline) FreeCamera() { tl.free = true }

// Follows is the player the camera follows (0: none) and whether the
// camera is free instead.
func (tl *Timeline) Follows() (player uint16, free bool) { return tl.follows, tl.free }

// Kept is about how many bytes the timeline keeps of its frames: the
// keyframes' and the changes' poses, and the hashes.
func (tl *Timeline) Kept() int {
	const pose, id, hash = int(unsafe.Sizeof(Pose{})), int(unsafe.Sizeof(entity.ID{})), 8
	n := len(tl.hashes) * hash
	for _, k := range tl.keys {
		n += len(k) * pose
	}
	for _, c := range tl.changes {
		n += len(c.moved)*pose + len(c.gone)*id
	}
	return n
}
