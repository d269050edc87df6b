// Package scripting runs a project's Lua behaviors on gopher-lua: the
// sandbox, the behavior registry and lifecycle, the Lua API a behavior calls
// on itself and on other entities, and vkmSetupNetwork's schema registration
// (DESIGN.md, "Packages" and "The one predicate"; docs/lua.md for the API).
//
// The same runtime serves a server, a client (including its replay passes)
// and offline play: everything outside Lua is reached through the World the
// host implements, and every source of difference between ends — the
// random generator, the order behaviors run in, the order a table's keys are
// visited — is fixed, so equal inputs give equal results on every end.
//
// Nothing here starts a goroutine, and no lua.LValue crosses the package's
// API. A Runtime is not safe for concurrent use: the host drives it from the
// one goroutine that runs its match.
package scripting

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
)

// Tuning defaults.
const (
	// DefaultCallBudget is how long one call into Lua (one callback of one
	// entity) may run before it is stopped as a runaway: far above any
	// honest behavior (microseconds), far below a stall anyone would accept.
	DefaultCallBudget = 50 * time.Millisecond
	// DefaultSetupBudget is the budget of the calls that may legitimately do
	// a lot at once: loading scripts, vkmRegisterBehaviors, vkmSetupNetwork,
	// vkmBuildScene (which builds the scene's prefabs) and the join handler.
	DefaultSetupBudget = time.Second
)

// Config says what a Runtime runs and what it may reach.
type Config struct {
	// FS is the project folder; every script is read through it. Required.
	FS fs.FS
	// EntryScript is the entry script's path inside FS, e.g.
	// "scripts/main.lua". Required.
	EntryScript string
	// World is what behaviors act on. Required.
	World World
	// Logger receives script errors. Nil means discard.
	Logger *slog.Logger
	// CallBudget bounds each callback; 0 means DefaultCallBudget.
	CallBudget time.Duration
	// SetupBudget bounds loading, registration, vkmSetupNetwork,
	// vkmBuildScene and join calls; 0 means DefaultSetupBudget.
	SetupBudget time.Duration
	// BudgetClock, when set, is a second clock a call must also have
	// spent its budget on before it is stopped (any monotonic reading;
	// only differences count); nil: the wall alone decides. A host that
	// runs every call on one locked thread gives that thread's CPU clock,
	// so a call that waited for a core on a busy machine is not stopped
	// as a runaway for time it did not run. It is read only at a long
	// call's first check and once the wall says the budget is spent.
	BudgetClock func() time.Duration
	// Seed keys math.random. Every end must use the same seed: each call
	// into Lua draws from a stream keyed by (Seed, callback, tick, entity
	// slot), so an entity's rolls at a tick are the same on the server, on
	// every client and in every replay of that tick.
	Seed uint64
	// TickRate is the project's ticks a second: vkm.after, vkm.seconds,
	// self:cooldown and self:remaining convert seconds with it. 0 means
	// DefaultTickRate.
	TickRate int
	// Axes and Buttons are the project's input action names in command slot
	// order; self:command() reports them by name. At most
	// prediction.MaxAxes and prediction.MaxButtons, unique and non-empty.
	Axes, Buttons []string
	// OnError, if set, is called once for each callback error, after which
	// the failing behavior is disabled for that entity.
	OnError func(ScriptError)
	// Categories are the project's collision category names (project.toml's
	// [collision] categories) in bit order after "default", which is
	// always bit 0: self:set_filter and self:add_shape take them by name.
	Categories []string
}

// Runtime is one Lua state running a project's behaviors. Create it with
// New and release it with Close. It is not safe for concurrent use.
type Runtime struct {
	// dtArg is the last pass's dt as Lua holds it, and dtVal its value.
	dtArg lua.LValue
	dtVal float64

	cfg   Config
	ls    *lua.LState
	world World
	log   *slog.Logger
	dog   *watchdog
	rng   splitmix
	num   numbers

	api        *lua.LTable // the engine's methods: the last fallback of every class
	apiMeta    *lua.LTable // {__index = api}, given to classes without a metatable
	apiNames   []string    // api's keys, sorted: what copyAPI copies
	handleMeta *lua.LTable // metatable of handles of entities with no behavior
	netTable   *lua.LTable
	// voiceDefault is net.voice_hears as installed (voice.go).
	voiceDefault *lua.LFunction
	sceneTable   *lua.LTable
	// killcam is the killcam a script asked this end's view for, until
	// the view takes it (killcam.go).
	killcam *Killcam
	cmd     commandTable

	behaviors  map[string]*behavior
	entities   map[entity.ID]*entry
	order      []*instance // in slot order; dead ones are compacted between passes
	pending    []*instance // attached during a pass
	passing    int
	presenting bool // inside an Update pass: world writes are refused
	dead       int
	sweepAt    int
	scratch    []entity.ID
	collectFn  func(entity.ID) bool // r.collect, made once (see collector)

	imports map[string]lua.LValue
	loading map[string]bool

	schema   *replication.Schema
	types    map[string]int
	fields   []map[string]int
	building *replication.Schema // non-nil while vkmSetupNetwork runs
	newJoin  *lua.LFunction
	join     *lua.LFunction
	newLeave *lua.LFunction
	leave    *lua.LFunction
	newDrain *lua.LFunction
	drain    *lua.LFunction
	drained  bool         // the drain handler has run
	players  []PlayerInfo // net.players' scratch
	msg      messaging    // messages' handlers and queues (messages.go)

	// old is what the last reload replaced, kept for replays of the
	// ticks before it; usingOld says it is switched in.
	old      []codeSwap
	usingOld bool

	// jointMethods and jointMeta are the methods and metatable of joint
	// handles; joints holds each joint's one handle, swept of joints that
	// are gone when it has doubled (jointSweepAt).
	jointMethods *lua.LTable
	jointMeta    *lua.LTable
	joints       map[uint32]*lua.LTable
	jointSweepAt int

	current entity.ID // the entity whose callback is running
	// currentSelf is the running callback's self, whose entity is
	// current: target knows it without reading its entity field.
	currentSelf *lua.LTable
	frame       uint64
	errors      int
	closed      bool
}

// New creates the Lua state, sandboxes it, runs the prelude and the entry
// script, and calls the entry script's vkmRegisterBehaviors(r) if it defines
// one. A syntax or run-time error in a script comes back as a *ScriptError
// naming file:line.
func New(cfg Config) (*Runtime, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	r := &Runtime{
		cfg:       cfg,
		world:     cfg.World,
		log:       cfg.Logger,
		dog:       newWatchdog(cfg.BudgetClock),
		behaviors: map[string]*behavior{},
		entities:  map[entity.ID]*entry{},
		joints:    map[uint32]*lua.LTable{},
		imports:   map[string]lua.LValue{},
		loading:   map[string]bool{},
		schema:    &replication.Schema{},
		types:     map[string]int{},
		sweepAt:   64,
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.num.init()
	r.ls = newSandbox()
	r.ls.SetContext(r.dog)
	plainLoop(r.ls) // the checkpoints look at the watchdog (checkpoints.go)
	r.installGlobals()
	r.installAPI()
	if err := r.loadScripts(); err != nil {
		r.ls.Close()
		return nil, err
	}
	return r, nil
}

func checkConfig(cfg *Config) error {
	switch {
	case cfg.FS == nil:
		return errors.New("scripting: Config.FS is nil")
	case cfg.World == nil:
		return errors.New("scripting: Config.World is nil")
	case cfg.EntryScript == "":
		return errors.New("scripting: Config.EntryScript is empty")
	case len(cfg.Axes) > prediction.MaxAxes:
		return fmt.Errorf("scripting: %d axes, at most %d", len(cfg.Axes), prediction.MaxAxes)
	case len(cfg.Buttons) > prediction.MaxButtons:
		return fmt.Errorf("scripting: %d buttons, at most %d", len(cfg.Buttons), prediction.MaxButtons)
	}
	if cfg.CallBudget <= 0 {
		cfg.CallBudget = DefaultCallBudget
	}
	if cfg.SetupBudget <= 0 {
		cfg.SetupBudget = DefaultSetupBudget
	}
	if cfg.TickRate <= 0 {
		cfg.TickRate = DefaultTickRate
	}
	for _, names := range [][]string{cfg.Axes, cfg.Buttons} {
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || seen[n] {
				return fmt.Errorf("scripting: input action name %q is empty or repeated", n)
			}
			seen[n] = true
		}
	}
	return nil
}

// loadScripts runs the prelude, the entry script and vkmRegisterBehaviors.
func (r *Runtime) loadScripts() error {
	if err := r.runPrelude(); err != nil {
		return err
	}
	return r.runEntry()
}

// global returns the global function name, if the scripts defined one. It
// reads the globals table raw, so a script's metatable on _G cannot raise
// outside a protected call.
func (r *Runtime) global(name string) (*lua.LFunction, bool) {
	fn, ok := r.ls.G.Global.RawGetString(name).(*lua.LFunction)
	return fn, ok
}

// Close releases the Lua state. The Runtime must not be used afterwards,
// except that further calls to Close do nothing.
func (r *Runtime) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.ls.Close()
}

// HasBehavior reports whether vkmRegisterBehaviors registered name.
func (r *Runtime) HasBehavior(name string) bool {
	_, ok := r.behaviors[name]
	return ok
}

// BehaviorNames returns the registered behavior names, sorted.
func (r *Runtime) BehaviorNames() []string {
	names := make([]string, 0, len(r.behaviors))
	for n := range r.behaviors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Errors returns how many callback errors have been reported (each one
// disabled a behavior on an entity).
func (r *Runtime) Errors() int { return r.errors }

// callSetup makes a protected call with the setup budget and turns a
// failure into a *ScriptError naming the entry point (what) and file:line.
// The call's nret results are left on the stack for the caller.
func (r *Runtime) callSetup(what string, kind uint64, fn *lua.LFunction, nret int, args ...lua.LValue) error {
	if r.closed {
		return errors.New("scripting: runtime is closed")
	}
	prev, prevSelf := r.current, r.currentSelf
	r.current, r.currentSelf = entity.None, nil
	r.rng.rekey(r.cfg.Seed, kind, uint64(r.world.Tick()), 0)
	r.dog.enter(r.cfg.SetupBudget)
	r.ls.Push(fn)
	for _, a := range args {
		r.ls.Push(a)
	}
	err := r.ls.PCall(len(args), nret, nil)
	stopped := r.dog.leave()
	r.current, r.currentSelf = prev, prevSelf
	if err == nil {
		return nil
	}
	se := &ScriptError{Callback: what, Runaway: stopped}
	se.describe(err)
	return se
}

// report records a callback failure once: it disables the behavior for the
// entity, counts it, logs it and passes it to Config.OnError.
func (r *Runtime) report(in *instance, cb callback, err error, stopped bool) {
	in.disabled = true
	r.errors++
	se := ScriptError{
		Entity:     in.id,
		EntityName: r.world.Name(in.id),
		Behavior:   in.b.name,
		Callback:   cb.String(),
		Runaway:    stopped,
	}
	se.describe(err)
	r.log.Error("script error; behavior disabled for this entity",
		"slot", in.id.Slot, "entity", se.EntityName, "behavior", se.Behavior,
		"callback", se.Callback, "where", se.Where, "message", se.Message)
	if r.cfg.OnError != nil {
		r.cfg.OnError(se)
	}
}
