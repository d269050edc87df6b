package game

import (
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
	"vkm/scripting"
)

// Authority is the end of a session a Game runs on, as the rules see it: it
// answers who decides what. Its methods are questions (and Rewind, which
// runs a function against the world a player saw); what an end does around
// each tick is its Hooks. A Game never asks which part it plays; it asks
// its Authority. A Game made with no Authority plays offline, deciding and
// owning everything; the server and client sessions (package session) each
// give their own.
//
// The Game calls it on the goroutine that ticks it.
type Authority interface {
	// Simulates is the one predicate: whether this end decides id's state.
	// live is the tick this end is at; during a replay, the tick the replay
	// ends on, so a replay simulates what is leased now.
	Simulates(id entity.ID, live uint32) bool
	// IsMine reports whether id is this end's own player's entity.
	IsMine(id entity.ID) bool
	// Command returns the command driving id in the tick being run, or nil.
	Command(id entity.ID) *prediction.Command
	// RollTick returns the tick that keys id's random rolls in the tick
	// being run, when it is not that tick (ok false).
	RollTick(id entity.ID) (tick uint32, ok bool)
	// Spawning says how behaviors on this end create entities.
	Spawning() Spawning
	// Lease is asked when a behavior of by pushes id, which this end does
	// not simulate: true takes id on from this tick (a client leases it),
	// false leaves it to the end that decides.
	Lease(by, id entity.ID) bool
	// Told reports whether this end places the bodies it does not simulate
	// where it was last told they are before every physics step.
	Told() bool
	// Rewind calls fn with the world as the player driving caller saw it
	// (lag compensation); Rewound is the poses ray casts and box queries
	// see meanwhile. Where there is nothing to rewind, Rewind just calls fn
	// and Rewound is nil.
	Rewind(caller entity.ID, fn func())
	Rewound() physics.Moved
	// Ended reports whether this end's session is over (or was refused),
	// and why: the world holds still and nothing is simulated.
	Ended() (bool, string)
	// Player returns the number of the player whose commands drive id
	// (the entity the join handler gave them), 0 for any other entity;
	// Players appends every seated player to dst in number order. Both
	// answer the same on every end once the server's word has arrived.
	Player(id entity.ID) uint16
	Players(dst []scripting.PlayerInfo) []scripting.PlayerInfo
	// Role says which end this is; LocalPlayer is its own player's
	// number (0: none).
	Role() scripting.Role
	LocalPlayer() uint16
}

// Hooks is what the end a Game runs on does around each tick, replays
// included, at fixed points of RunTick (see the package documentation for
// the whole order). Offline there are none.
type Hooks interface {
	// BeforeTick runs at the top of the tick, before any behavior: a
	// server takes each player's command for it (and applies a reload
	// scheduled for it), a client puts its relayed characters on their
	// runs.
	BeforeTick()
	// IntentsWritten runs once the behaviors have written the character
	// controllers' intent, before the controllers take it (and clear it):
	// a server keeps what each player's character was told to do, for the
	// clients near it.
	IntentsWritten()
	// AfterTick runs after the tick's physics step.
	AfterTick()
}

// Spawning is how an end creates entities a behavior spawns.
type Spawning uint8

const (
	// SpawnHere builds the prefab into free slots of this end's own.
	SpawnHere Spawning = iota
	// SpawnShared builds it and records the spawn for every client, after
	// checking its path and pose can be told to them (a server).
	SpawnShared
	// SpawnRefused builds nothing: a connected client's slots are the
	// server's names, and an entity of its own would take one the server
	// may give to something else.
	SpawnRefused
)

// offline is the Authority of a game nobody else plays: it decides
// everything, owns everything, and the local player's command drives the
// local player's entity (or, in a project with no join handler, every
// entity that asks).
type offline struct{ g *Game }

var _ Authority = offline{}

func (o offline) Simulates(entity.ID, uint32) bool { return true }
func (o offline) IsMine(entity.ID) bool            { return true }
func (o offline) Command(id entity.ID) *prediction.Command {
	if o.g.own.IsNone() || id == o.g.own {
		return o.g.Local()
	}
	return nil
}
func (o offline) RollTick(entity.ID) (uint32, bool) { return 0, false }
func (o offline) Spawning() Spawning                { return SpawnHere }
func (o offline) Lease(by, id entity.ID) bool       { return false }
func (o offline) Told() bool                        { return false }
func (o offline) Rewind(_ entity.ID, fn func())     { fn() }
func (o offline) Rewound() physics.Moved            { return nil }
func (o offline) Ended() (bool, string)             { return false, "" }
func (o offline) Role() scripting.Role              { return scripting.RoleOffline }

// The local player is player 1 when the join handler gave it an entity;
// otherwise nobody is seated.
func (o offline) Player(id entity.ID) uint16 {
	if !o.g.own.IsNone() && id == o.g.own {
		return 1
	}
	return 0
}
func (o offline) Players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	if o.g.own.IsNone() {
		return dst
	}
	return append(dst, scripting.PlayerInfo{Number: 1, Name: o.g.name, Entity: o.g.own})
}
func (o offline) LocalPlayer() uint16 {
	if o.g.own.IsNone() {
		return 0
	}
	return 1
}
