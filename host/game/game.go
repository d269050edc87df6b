package game

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"slices"
	"sort"
	"time"

	"vkm/host/project"
	"vkm/host/store"
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
	"vkm/replication"
	"vkm/scripting"
	"vkm/wire"
)

// Config says what a Game runs.
type Config struct {
	Project *project.Project
	// Logger receives script errors and behavior log lines; nil discards.
	Logger *slog.Logger
	// Seed seeds math.random in every behavior; every end of a session must
	// use the same one.
	Seed uint64
	// Authority makes the Authority of the end this game runs on, once the
	// Game exists and before any of its scripts run. Nil plays offline: the
	// local player is seated at once, as player 1, through the join handler,
	// exactly as a server seats its first player.
	Authority func(*Game) Authority
	// Hooks is what the end does around each tick (Hooks); nil is none,
	// as offline.
	Hooks Hooks
	// Name is the local player's name offline, as net.players() gives it;
	// the caller makes it fit as a server makes a joining player's
	// (handshake.CleanName). Empty is "Player 1", the name a server gives
	// a player who sends none.
	Name string
	// BudgetClock is the clock the behaviors' calls are budgeted on
	// (scripting.Config.BudgetClock); nil is wall time.
	BudgetClock func() time.Duration
}

// Game is one world: the entity store, its physics, its behaviors and the
// tick that advances them. It is the composition the rest of host drives:
// offline play, a server and a client all tick a Game.
//
// A Game is not safe for concurrent use: one goroutine ticks it.
type Game struct {
	project *project.Project
	logger  *slog.Logger
	store   *store.Store
	phys    *physics.World
	scripts *scripting.Runtime
	schema  *replication.Schema
	clock   *Clock
	dt      float64

	// auth answers who decides what on this end.
	auth      Authority
	sceneFile []byte                      // the entry scene file: slots name entities only in the same world
	hooks     Hooks                       // what the end does around each tick; nil offline
	sceneIDs  []entity.ID                 // what the entry scene built, which every end of a session holds from the start
	looks     map[entity.ID]*project.Look // [entity.look] of the scene's entities that have one
	tick      uint32
	replaying bool
	replayTo  uint32             // during a replay, the tick it ends on
	local     prediction.Command // the local player's command for the tick
	own       entity.ID          // the local player's entity, if it has one
	name      string             // the local player's name offline

	prefabs map[string]*project.Prefab
	// files is the project folder with the last reload's files over it
	// (nil before any reload).
	files   fs.FS
	reloads int
	events  []scripting.Event
	watch   func(name string, id entity.ID, fields map[string]any) // WatchEvents' fn, or nil
	errs    []scripting.ScriptError
	timer   phaseTimer // times each tick's phases when asked (TimePhases)
	// rewind is the physics after each of the last rewindDepth ticks, on
	// an end that replays (nil elsewhere).
	rewind []rewindSlot
	// touches are the touches on_contact was told began and not yet that
	// they ended (presentContacts); contactFn is presentContact, made once.
	touches   map[touch]bool
	contactFn func(physics.Contact)
	// jointNames are the names scenes, prefabs and behaviors gave their
	// joints; bodyEdits counts behaviors' changes to bodies' shapes and
	// types (BodyEdits).
	jointNames map[physics.JointID]string
	bodyEdits  uint64
}

// New loads cfg.Project's entry script and scene into a new world and
// joins the local player through the project's join handler, as player 1,
// exactly as a server would seat its first player. Every prefab under
// PrefabDir is read first, so that a mistake in one stops the game here.
func New(cfg Config) (*Game, error) {
	p := cfg.Project
	sceneData, err := fs.ReadFile(p.FS, p.EntryScene)
	if err != nil {
		return nil, fmt.Errorf("game: entryScene: %w", err)
	}
	scene, err := p.ParseScene(p.Where(p.EntryScene), sceneData)
	if err != nil {
		return nil, err
	}
	g, err := open(cfg, sceneData, scene)
	if err != nil {
		return nil, err
	}
	if g.schema, err = g.scripts.SetupNetwork(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.loadPrefabs(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.populate(scene, cfg.Authority == nil); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// open makes the world of cfg.Project with scene's physics and loads its
// scripts: the entry script runs and vkmRegisterBehaviors registers the
// behaviors. The schema is empty until vkmSetupNetwork runs, and nothing is
// built.
func open(cfg Config, sceneData []byte, scene *project.Scene) (*Game, error) {
	p := cfg.Project
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := &Game{
		project:    p,
		logger:     logger,
		store:      store.NewStore(),
		clock:      NewClock(p.TickRate),
		dt:         1 / float64(p.TickRate),
		prefabs:    map[string]*project.Prefab{},
		schema:     &replication.Schema{},
		touches:    map[touch]bool{},
		jointNames: map[physics.JointID]string{},
		name:       cfg.Name,
		hooks:      cfg.Hooks,
	}
	if g.name == "" {
		g.name = "Player 1"
	}
	g.auth = offline{g}
	if cfg.Authority != nil {
		g.auth = cfg.Authority(g)
	}
	g.sceneFile = sceneData
	g.phys = physics.New(physics.Config{GravityX: scene.GravityX, GravityY: scene.GravityY, Step: g.dt, Quantize: wirePose})

	axes := make([]string, len(p.Axes))
	for i, a := range p.Axes {
		axes[i] = a.Name
	}
	buttons := make([]string, len(p.Buttons))
	for i, b := range p.Buttons {
		buttons[i] = b.Name
	}
	var err error
	g.scripts, err = scripting.New(scripting.Config{
		FS: p.FS, EntryScript: p.EntryScript, World: (*world)(g), Logger: logger, Seed: cfg.Seed,
		Axes: axes, Buttons: buttons, TickRate: p.TickRate, BudgetClock: cfg.BudgetClock,
		Categories: p.Categories,
		OnError:    func(e scripting.ScriptError) { g.errs = append(g.errs, e) },
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// populate builds scene into the world, runs vkmBuildScene and the scene's
// on_start, and, when join is set, seats the local player as player 1.
func (g *Game) populate(scene *project.Scene, join bool) error {
	if err := g.checkRegistered(scene.File, scene.Entities); err != nil {
		return err
	}
	ids, err := store.LoadScene(g.store, scene, g)
	if err != nil {
		return err
	}
	g.sceneIDs = ids
	g.looks = map[entity.ID]*project.Look{}
	for i, id := range ids {
		if l := scene.Entities[i].Look; l != nil && !id.IsNone() {
			g.looks[id] = l
		}
	}
	if err := g.Bring(ids, false); err != nil {
		return locateBring(err, scene.File, "id", scene.Entities, func(i int) entity.ID { return ids[i] })
	}
	bySlot := make(map[uint32]entity.ID, len(ids))
	for i, id := range ids {
		bySlot[scene.Entities[i].ID] = id
	}
	if err := g.makeJoints(scene.File, scene.Joints, entity.Identity, func(slot uint32) entity.ID { return bySlot[slot] }); err != nil {
		return err
	}
	if err := g.scripts.BuildScene(); err != nil {
		return err
	}
	for _, id := range ids {
		if g.store.Alive(id) {
			g.scripts.Start(id)
		}
	}
	if join && g.scripts.HasJoinHandler() {
		own, err := g.Join(1)
		if err != nil {
			return err
		}
		g.own = own
	}
	return nil
}

// Join seats a player through the project's join handler and returns the
// entity it gave them (None: the game declined). A project without a join
// handler declines everyone.
func (g *Game) Join(player uint16) (entity.ID, error) {
	if !g.scripts.HasJoinHandler() {
		return entity.None, nil
	}
	return g.scripts.Join(player)
}

// Leave is a player leaving the game, or dropped from it: the leave
// handler (net.on_leave) runs with their entity while it is still alive,
// and the entity, with everything below it, is then destroyed unless the
// handler returned true to keep it. Without a handler the entity is
// destroyed, as it always was. A handler that fails is reported in err and
// the entity is destroyed, so a broken handler leaves no player's
// character standing. kept reports what became of the entity.
//
// Everything a player's leaving does goes through here, so that a later
// grace period to rejoin can delay this one call.
func (g *Game) Leave(player uint16, id entity.ID) (kept bool, err error) {
	kept, err = g.scripts.Leave(player, id)
	if !kept && g.store.Alive(id) {
		g.Destroy(id)
	}
	return kept, err
}

// Drain tells the game's scripts the server is stopping, secondsLeft
// before it sends every player away: the drain handler (net.on_drain)
// runs, once, so the game can end its round. A handler that fails is
// reported in err.
func (g *Game) Drain(secondsLeft float64) error { return g.scripts.Drain(secondsLeft) }

// Bring gives freshly stored entities their physics bodies and behaviors,
// and a prefab instance's root its prefab's joints (spawned where its
// spawn record says). With start set their on_start runs too, root first.
// An error says which entity, by slot and name, and what of it failed.
func (g *Game) Bring(ids []entity.ID, start bool) error { return g.bring(ids, start, nil) }

// bring is Bring, with the pose a spawn here was asked for (nil: none).
func (g *Game) bring(ids []entity.ID, start bool, pose *entity.Transform) error {
	for _, id := range ids {
		if def := g.store.Body(id); def != nil && def.Type != entity.Decoration {
			rb := entity.Rigidbody{Awake: true}
			if p := g.store.Rigidbody(id); p != nil {
				rb = *p
			}
			if err := g.phys.Add(id, def, g.store.WorldTransform(id), rb); err != nil {
				return &bringError{id: id, name: g.store.Name(id), key: "body", err: err}
			}
		}
		if name, props := g.store.Behavior(id); name != "" {
			if err := g.scripts.Attach(id, name, props); err != nil {
				return &bringError{id: id, name: g.store.Name(id), key: "behavior", err: err}
			}
		}
	}
	for _, id := range ids {
		if !g.store.Built(id) {
			continue
		}
		at, err := g.spawnPose(id, pose)
		if err == nil {
			err = g.instanceJoints(id, at)
		}
		if err != nil {
			return err
		}
	}
	if start {
		for _, id := range ids {
			if g.store.Alive(id) {
				g.scripts.Start(id)
			}
		}
	}
	return nil
}

// Close releases the Lua state.
func (g *Game) Close() {
	if g.scripts != nil {
		g.scripts.Close()
	}
}

// Resolve turns a scene or prefab component table into the values of the
// schema's type, each field quantised as the wire would carry it.
func (g *Game) Resolve(c project.ComponentDef) (int, entity.Values, error) {
	typ := g.schema.Index(c.Type)
	if typ < 0 {
		return 0, nil, fmt.Errorf("component %s is not registered (vkmSetupNetwork registers project components)", c.Type)
	}
	t := g.schema.Types[typ]
	v := make(entity.Values, len(t.Fields))
	for name, raw := range c.Fields {
		f := g.schema.Field(typ, name)
		if f < 0 {
			return 0, nil, fmt.Errorf("component %s has no field %q", c.Type, name)
		}
		var x float64
		switch n := raw.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		case bool:
			if n {
				x = 1
			}
		default:
			return 0, nil, fmt.Errorf("component %s field %s: want a number or a boolean, got %T", c.Type, name, raw)
		}
		v[f] = t.Fields[f].Codec.Quantize(x)
	}
	return typ, v, nil
}

// SetCommand sets the local player's command for the ticks that follow.
func (g *Game) SetCommand(c prediction.Command) { g.local = c }

// Own is the local player's entity (None if the project has no join
// handler or refused the local player).
func (g *Game) Own() entity.ID { return g.own }

// Project is the project this game plays.
func (g *Game) Project() *project.Project { return g.project }

// Physics is the game's physics world, for a client's session, which
// predicts what its character pushes and replays from the server's word.
func (g *Game) Physics() *physics.World { return g.phys }

// SceneIDs are the entities the entry scene built, which every end of a
// session holds from the start.
func (g *Game) SceneIDs() []entity.ID { return g.sceneIDs }

// Look returns how the reference client draws id, from the [entity.look]
// of the scene or prefab entity it was built from; nil for none.
func (g *Game) Look(id entity.ID) *project.Look {
	if l, ok := g.looks[id]; ok {
		return l
	}
	o := g.store.Origin(id)
	if o.Prefab == "" {
		return nil
	}
	if p := g.prefabs[o.Prefab]; p != nil {
		if d := p.Entity(o.UID); d != nil {
			return d.Look
		}
	}
	return nil
}

// ForgetFresh drops what self:fresh has seen in id's fields on this end
// (scripting.Runtime.ForgetFresh).
func (g *Game) ForgetFresh(id entity.ID) { g.scripts.ForgetFresh(id) }

// Players returns every seated player, as net.players() does (see
// docs/lua.md): on a client, the server's list.
func (g *Game) Players() []scripting.PlayerInfo { return g.auth.Players(nil) }

// Store exposes the entity store, for drawing and tests.
func (g *Game) Store() *store.Store { return g.store }

// Schema is the project's replicated component types.
func (g *Game) Schema() *replication.Schema { return g.schema }

// SceneFile is the entry scene file's bytes as the project holds them: the
// world a join compares (handshake.WorldFingerprint), so that slots name
// the same entities on every end.
func (g *Game) SceneFile() []byte { return g.sceneFile }

// HasNetwork reports whether the project defines vkmSetupNetwork, without
// which it plays offline only and a server refuses to serve it.
func (g *Game) HasNetwork() bool { return g.scripts.HasNetwork() }

// SetOwn names the entity this end's player drives.
func (g *Game) SetOwn(id entity.ID) { g.own = id }

// Disconnected reports whether this end's session was lost or refused.
func (g *Game) Disconnected() bool {
	ended, _ := g.auth.Ended()
	return ended
}

// LastError says why this end's session ended, or is empty.
func (g *Game) LastError() string {
	_, why := g.auth.Ended()
	return why
}

// Local is the local player's command for the tick being run: what the
// Input gave it, or what SetCommand set.
func (g *Game) Local() *prediction.Command { return &g.local }

// ScriptErrors returns every script error reported so far.
func (g *Game) ScriptErrors() []scripting.ScriptError { return g.errs }

// TickRate is the project's ticks per second.
func (g *Game) TickRate() int { return g.project.TickRate }

// Clock is the game's fixed-step clock.
func (g *Game) Clock() *Clock { return g.clock }

// Frame advances wall time by elapsed: it runs the ticks now due (see
// Advance), then the per-frame systems (on_update). It returns the ticks
// run.
func (g *Game) Frame(elapsed time.Duration, in Input, afterTick func(*Game)) int {
	n := g.Advance(elapsed, in, afterTick)
	g.scripts.Update(elapsed.Seconds())
	return n
}

// Advance adds elapsed wall time to the clock and runs the ticks now due,
// at most MaxCatchUp, each on the command in gives for it (nil keeps the
// command last set), calling afterTick after each. A server, which draws
// nothing, advances without frames.
func (g *Game) Advance(elapsed time.Duration, in Input, afterTick func(*Game)) int {
	n := g.clock.Advance(elapsed)
	for i := range n {
		switch {
		case in != nil:
			g.local = in.Next()
		case i > 0:
			g.local.Pressed = 0 // a press is an edge: one tick, not every tick of the frame
		}
		g.RunTick()
		if afterTick != nil {
			afterTick(g)
		}
	}
	return n
}

// RunTick runs one fixed tick in the engine's order: behaviors, then the
// character controller, then physics, then on_contact for what the step
// began and ended touching (not in a replay).
func (g *Game) RunTick() {
	g.tick++
	if g.hooks != nil {
		g.hooks.BeforeTick()
	}
	t0 := g.timer.mark()
	g.scripts.FixedUpdate(g.dt, g.replaying)
	if g.hooks != nil {
		g.hooks.IntentsWritten()
	}
	t1 := g.timer.mark()
	g.updateControllers()
	t2 := g.timer.mark()
	if g.auth.Told() {
		// Every body this end does not simulate goes where it was last
		// told it is, for the step about to run.
		g.phys.PlaceAndStep((*world)(g))
	} else {
		g.phys.Step((*world)(g))
	}
	g.timer.done(t0, t1, t2, g.timer.mark(), g.phys.LastStep())
	g.presentContacts()
	g.keepPhysics()
	if g.hooks != nil {
		g.hooks.AfterTick()
	}
}

// Replay runs the ticks from..to again, each on the command cmd gives for
// it, with is_replaying() true: the behaviors of what this end simulates,
// the character controller and physics, nothing that presents. after runs
// after each replayed tick. It stops early at a tick with no command and
// returns how many ran; the tick counter ends where it was.
//
// The physics starts from where it stood after tick from-1, when this end
// kept it (an end its Authority tells where bodies are keeps its last
// rewindDepth ticks), with the components of what this end simulates put
// back into their bodies: so the replayed ticks repeat, bit for bit, what
// the same ticks computed given the same state, joints and contacts
// included.
func (g *Game) Replay(from, to uint32, cmd func(tick uint32) (prediction.Command, bool), after func(*Game)) int {
	if from > to {
		return 0
	}
	now, local := g.tick, g.local
	g.replaying, g.replayTo = true, now
	g.restorePhysics(from - 1)
	g.tick = from - 1
	n := 0
	for t := from; t <= to; t++ {
		c, ok := cmd(t)
		if !ok {
			break
		}
		g.local = c
		g.RunTick()
		after(g)
		n++
	}
	g.replaying = false
	g.tick, g.local = now, local
	return n
}

// updateControllers runs the character controller of every simulated
// entity that has one, a Rigidbody and a body.
func (g *Game) updateControllers() {
	g.phys.UpdateControllers((*world)(g))
}

// DrainEvents hands over the presentation events emitted since the last
// call; the slice is the caller's.
func (g *Game) DrainEvents() []scripting.Event {
	ev := g.events
	g.events = nil
	return ev
}

// WatchEvents calls fn with each presentation event as it is emitted (its
// name, the entity that emitted it and its fields), besides keeping it for
// DrainEvents: a view shows the events that the run's report counts. The
// fields map is the event's own and must not be changed. nil stops
// watching.
func (g *Game) WatchEvents(fn func(name string, id entity.ID, fields map[string]any)) { g.watch = fn }

// ConsumeEvents calls fn with each presentation event emitted since the
// last drain, in order, and drops them, keeping the buffer for the next
// tick's: an end that only counts its events holds none from one tick to
// the next.
func (g *Game) ConsumeEvents(fn func(scripting.Event)) {
	for i := range g.events {
		fn(g.events[i])
		g.events[i] = scripting.Event{}
	}
	g.events = g.events[:0]
}

// Pose implements physics.Bodies.
func (g *world) Pose(id entity.ID) (*entity.Transform, *entity.Rigidbody) {
	return g.store.Transform(id), g.store.Rigidbody(id)
}

// --- scripting.World ---

// world is a Game as its behaviors and its physics see it: the
// scripting.World the Lua bindings call, and the bodies the physics steps.
// It is the same value as the Game; only the methods differ.
type world Game

var _ scripting.World = (*world)(nil)
var _ physics.Controlled = (*world)(nil)

// World is the game as a behavior sees it: what the Lua bindings call.
// Tools and tests use it to act as a behavior would (push a body, cast a
// ray, rewind for a shot).
func (g *Game) World() scripting.World { return (*world)(g) }

// The questions a behavior asks, answered by the Game.
func (g *world) Tick() uint32                             { return (*Game)(g).Tick() }
func (g *world) Simulates(id entity.ID) bool              { return (*Game)(g).Simulates(id) }
func (g *world) IsMine(id entity.ID) bool                 { return (*Game)(g).IsMine(id) }
func (g *world) Command(id entity.ID) *prediction.Command { return (*Game)(g).Command(id) }
func (g *world) IsReplaying() bool                        { return g.replaying }
func (g *world) Disconnected() bool                       { return (*Game)(g).Disconnected() }
func (g *world) Player(id entity.ID) uint16               { return g.auth.Player(id) }
func (g *world) Role() scripting.Role                     { return g.auth.Role() }
func (g *world) LocalPlayer() uint16                      { return g.auth.LocalPlayer() }
func (g *world) Players(dst []scripting.PlayerInfo) []scripting.PlayerInfo {
	return g.auth.Players(dst)
}
func (g *world) LastError() string { return (*Game)(g).LastError() }
func (g *world) Spawn(file string, pose entity.Transform) (entity.ID, error) {
	return (*Game)(g).Spawn(file, pose)
}
func (g *world) Destroy(id entity.ID) { (*Game)(g).Destroy(id) }

func (g *Game) Tick() uint32                                         { return g.tick }
func (g *world) Alive(id entity.ID) bool                             { return g.store.Alive(id) }
func (g *world) Name(id entity.ID) string                            { return g.store.Name(id) }
func (g *world) Parent(id entity.ID) entity.ID                       { return g.store.Parent(id) }
func (g *world) Transform(id entity.ID) *entity.Transform            { return g.store.Transform(id) }
func (g *world) Rigidbody(id entity.ID) *entity.Rigidbody            { return g.store.Rigidbody(id) }
func (g *world) Controller(id entity.ID) *entity.CharacterController { return g.store.Controller(id) }
func (g *world) Component(id entity.ID, typ int) entity.Values       { return g.store.Component(id, typ) }
func (g *world) RemoveComponent(id entity.ID, typ int)               { g.store.RemoveComponent(id, typ) }

func (g *world) AddComponent(id entity.ID, typ int) entity.Values {
	if typ < 0 || typ >= len(g.schema.Types) {
		return nil
	}
	return g.store.AddComponent(id, typ, len(g.schema.Types[typ].Fields))
}

func (g *world) Next(from uint32) entity.ID { return g.store.Next(from) }

func (g *world) Find(name string) entity.ID {
	found := entity.None
	g.store.Each(func(id entity.ID) bool {
		if g.store.Name(id) == name {
			found = id
			return false
		}
		return true
	})
	return found
}

// Spawn builds a prefab from the project folder at pose.
//
// On a server the root gets a NetSpawn, so every client builds the same
// prefab into the same slots; a path or pose a client could not safely be
// told is refused before anything is built. A connected client creates
// nothing: its slots are the server's names, and an entity of its own would
// take a slot the server may give to something else.
func (g *Game) Spawn(file string, pose entity.Transform) (entity.ID, error) {
	shared := g.auth.Spawning() == SpawnShared
	switch {
	case g.auth.Spawning() == SpawnRefused:
		return entity.None, errors.New("a client does not create entities while connected: the server spawns, and every client builds what it is told")
	case shared:
		if pose.Scale == 0 {
			pose.Scale = 1
		}
		if err := replication.CheckSpawnPath(file); err != nil {
			return entity.None, err
		}
		if err := replication.CheckSpawnPose(pose); err != nil {
			return entity.None, err
		}
	}
	p, err := g.Prefab(file)
	if err != nil {
		return entity.None, err
	}
	if shared && p.Parts() && len(p.Entities)-1 > replication.MaxSpawnSlots {
		// A client takes the parts in only at the server's slots.
		return entity.None, fmt.Errorf("game: %s has %d entities besides its root and several bodies: a spawn record names at most %d, so split it into prefabs joined by a script", file, len(p.Entities)-1, replication.MaxSpawnSlots)
	}
	root, slots, err := store.Instantiate(g.store, p, pose, g)
	if err != nil {
		return entity.None, err
	}
	if shared {
		g.store.SetNetSpawn(root, g.spawnRecord(file, pose, root, slots))
	}
	ids := g.store.Members(root)
	if err := g.bring(ids, true, &pose); err != nil {
		g.Destroy(root)
		return entity.None, locateBring(err, p.File, "uid", p.Entities, func(i int) entity.ID { return slots[p.Entities[i].ID] })
	}
	return root, nil
}

// forgetPart drops part, destroyed alone, from its root's spawn record,
// so that a client that builds the instance from now on leaves it out.
func (g *Game) forgetPart(root, part entity.ID) {
	ns := g.store.NetSpawn(root)
	if ns == nil {
		return
	}
	uid := g.store.Origin(part).UID
	left := *ns
	left.Slots = slices.DeleteFunc(slices.Clone(ns.Slots), func(s entity.SpawnSlot) bool { return s.UID == uid })
	g.store.SetNetSpawn(root, &left)
}

// spawnRecord says what a client needs to build the instance: the prefab,
// the pose whole, and the slot every entity below the root took, by uid
// (none when there are more than a NetSpawn carries: the client then builds
// into free slots of its own, which is logged here).
func (g *Game) spawnRecord(file string, pose entity.Transform, root entity.ID, slots map[uint32]entity.ID) *entity.NetSpawn {
	ns := &entity.NetSpawn{Prefab: file, Pose: pose}
	uids := make(uidOrder, 0, len(slots))
	for uid := range slots {
		uids = append(uids, uid)
	}
	sort.Sort(uids)
	for _, uid := range uids {
		if id := slots[uid]; id != root {
			ns.Slots = append(ns.Slots, entity.SpawnSlot{UID: uid, Slot: id.Slot})
		}
	}
	if len(ns.Slots) > replication.MaxSpawnSlots {
		g.logger.Warn("spawned prefab has more entities than a spawn record names; clients build it into slots of their own",
			"prefab", file, "entities", len(ns.Slots)+1, "limit", replication.MaxSpawnSlots)
		ns.Slots = nil
	}
	return ns
}

// Prefab returns the prefab at file in the project folder, as this game
// reads it now (a reload's version once one changed it), parsed once. A
// behavior or component type it names that the scripts do not register
// is an error naming the prefab's file and the entity's line, with the
// registered name nearest to it.
func (g *Game) Prefab(file string) (*project.Prefab, error) {
	p, err := g.parsePrefab(file)
	if err != nil {
		return nil, err
	}
	if err := g.checkRegistered(p.File, p.Entities); err != nil {
		return nil, err
	}
	return p, nil
}

// parsePrefab reads and parses the prefab at file once.
func (g *Game) parsePrefab(file string) (*project.Prefab, error) {
	if p, ok := g.prefabs[file]; ok {
		return p, nil
	}
	if !fs.ValidPath(file) {
		return nil, fmt.Errorf("game: prefab path %q must be relative to the project folder, with no .. in it", file)
	}
	data, err := fs.ReadFile(g.fsys(), file)
	if err != nil {
		return nil, fmt.Errorf("game: prefab: %w", err)
	}
	p, err := g.project.ParsePrefab(g.project.Where(file), data)
	if err != nil {
		return nil, err
	}
	p.Path = file
	g.prefabs[file] = p
	return p, nil
}

// Destroy removes id and its subtree (and a prefab instance's root its
// parts: store.Members): behaviors get on_destroy, bodies leave the
// physics world, and the slots are freed with their generation bumped.
func (g *Game) Destroy(id entity.ID) {
	if !g.store.Alive(id) {
		return
	}
	if root := g.store.PartOf(id); !root.IsNone() {
		g.forgetPart(root, id)
	}
	for _, e := range g.store.Members(id) {
		g.scripts.Detach(e)
		g.forgetJoints(e)
		g.phys.Remove(e)
	}
	g.store.Destroy(id)
}

func (g *world) ApplyImpulse(by, id entity.ID, ix, iy float64) {
	if !g.Simulates(id) {
		if by.IsNone() || !g.Simulates(by) || g.phys.Mass(id) <= 0 || !g.auth.Lease(by, id) {
			return // the end that decides what happens to it does
		}
	}
	rb := g.store.Rigidbody(id)
	m := g.phys.Mass(id)
	if rb == nil || m <= 0 || !finite(ix) || !finite(iy) {
		return
	}
	rb.VX += ix / m
	rb.VY += iy / m
	rb.Awake = true
}

func (g *world) RayCast(x1, y1, x2, y2 float64, ignore entity.ID) (scripting.Hit, bool) {
	h, ok := g.phys.RayCastMoved(x1, y1, x2, y2, ignore, g.auth.Rewound())
	return scripting.Hit{Entity: h.Entity, X: h.X, Y: h.Y, NX: h.NX, NY: h.NY, Fraction: h.Fraction}, ok
}

func (g *world) QueryBox(minX, minY, maxX, maxY float64, fn func(entity.ID) bool) {
	g.phys.QueryAABBMoved(minX, minY, maxX, maxY, g.auth.Rewound(), fn)
}

func (g *world) Touching(id entity.ID, fn func(entity.ID) bool) { g.phys.Touching(id, fn) }

// Simulates is the one predicate: whether this end decides id's state.
// Its Authority answers.
func (g *Game) Simulates(id entity.ID) bool { return g.auth.Simulates(id, g.liveTick()) }

// liveTick is the tick this end is at: during a replay, the tick the replay
// will end on. A replay simulates what is leased now, not what was leased
// at the tick it re-runs: a body whose lease has lapsed is the server's
// again, and re-simulating it would overwrite the server's word with a
// prediction nothing later corrects.
func (g *Game) liveTick() uint32 {
	if g.replaying {
		return g.replayTo
	}
	return g.tick
}

// LiveTick is the tick this end is at, replay or not (see Simulates).
func (g *Game) LiveTick() uint32 { return g.liveTick() }

func (g *Game) IsMine(id entity.ID) bool { return g.auth.IsMine(id) }

// Command returns the command driving id this tick.
func (g *Game) Command(id entity.ID) *prediction.Command { return g.auth.Command(id) }

func (g *Game) IsReplaying() bool { return g.replaying }

// RollTick is the tick that keys id's random rolls: the client tick of the
// command driving its root on a server, so that a player's client, which
// predicted with its own tick numbers, rolled what the server rolls; the
// tick everywhere else.
func (g *world) RollTick(id entity.ID) uint32 {
	if t, ok := g.auth.RollTick(id); ok {
		return t
	}
	return g.tick
}

// Rewind runs fn with the world as the player driving caller saw it when
// they made this tick's command, where this end keeps such a past (lag
// compensation on a server); elsewhere it just runs fn.
func (g *world) Rewind(caller entity.ID, fn func()) { g.auth.Rewind(caller, fn) }

// Root is the root of id's hierarchy (id itself if it has no parent).
func (g *Game) Root(id entity.ID) entity.ID {
	for p := g.store.Parent(id); !p.IsNone(); p = g.store.Parent(id) {
		id = p
	}
	return id
}

func (g *world) Emit(ev scripting.Event) {
	g.events = append(g.events, ev)
	if g.watch != nil {
		g.watch(ev.Name, ev.Entity, ev.Fields)
	}
}

func (g *world) Log(id entity.ID, msg string) {
	g.logger.Info("lua", "entity", id.String(), "name", g.store.Name(id), "msg", msg)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Input gives the local player's command for each tick a frame runs. A
// command is per tick, not per frame: a button's press is an edge, true in
// exactly one tick's command however many ticks a frame runs.
type Input interface {
	Next() prediction.Command
}

// wirePose rounds a simulated body's pose and motion to what a snapshot
// carries, the same on every end (physics.Config.Quantize): a server then
// simulates exactly what it tells its clients, and a client predicting the
// same ticks rounds where the server rounded, so once the two hold the same
// state they go on holding it bit for bit.
func wirePose(t *entity.Transform, rb *entity.Rigidbody) {
	t.X, t.Y = wire.Position.Quantize(t.X), wire.Position.Quantize(t.Y)
	t.Angle = wire.Angle.Quantize(t.Angle)
	rb.VX, rb.VY = wire.Velocity.Quantize(rb.VX), wire.Velocity.Quantize(rb.VY)
	rb.AngularVelocity = wire.AngularVelocity.Quantize(rb.AngularVelocity)
}

// uidOrder sorts a prefab's entity ids with sort.Sort, whose code the
// browser client links already, rather than an instance of slices.Sort of
// its own.
type uidOrder []uint32

func (u uidOrder) Len() int           { return len(u) }
func (u uidOrder) Less(i, j int) bool { return u[i] < u[j] }
func (u uidOrder) Swap(i, j int)      { u[i], u[j] = u[j], u[i] }
