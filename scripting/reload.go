package scripting

import (
	"fmt"
	"io/fs"

	lua "github.com/yuin/gopher-lua"

	"vkm/replication"
)

// Reloaded says what a successful Reload did.
type Reloaded struct {
	// Schema is the schema vkmSetupNetwork built this time, from nothing;
	// SchemaChanged says whether it differs from the one before (by
	// fingerprint), in which case every connection's baseline is stale.
	Schema        *replication.Schema
	SchemaChanged bool
	// Instances is how many live behavior instances now run the new code.
	Instances int
}

// Reload runs the project's scripts again, read from fsys (the project
// folder as it now stands), in the same Lua state, without stopping the
// world: the entry script and everything it imports run afresh (the
// engine's prelude is kept), vkmRegisterBehaviors
// registers the classes again, and vkmSetupNetwork builds the schema again
// from nothing. Every live instance is then re-pointed to the new class
// of its behavior, keeping its fields (its state), and its optional
// on_reload(self) runs. An instance an error had disabled runs again: the
// fix may be in the new code.
//
// If anything fails — a syntax error, an error while a script loads or
// registers, vkmSetupNetwork refusing a field, a behavior that entities use
// no longer registered, a lifecycle name bound to something that is not a
// function — nothing changes: the error names the file and line, and the
// old code keeps running with its globals as they were.
//
// Reload must not be called from inside a callback.
func (r *Runtime) Reload(fsys fs.FS) (Reloaded, error) {
	if r.closed {
		return Reloaded{}, fmt.Errorf("scripting: runtime is closed")
	}
	if r.passing > 0 || r.dog.depth > 0 {
		return Reloaded{}, fmt.Errorf("scripting: reload from inside a callback")
	}
	r.settle()
	saved := r.saveForReload()
	r.cfg.FS = fsys
	r.behaviors = map[string]*behavior{}
	r.imports = map[string]lua.LValue{}
	fail := func(err error) (Reloaded, error) {
		r.restoreAfterReload(saved)
		return Reloaded{}, err
	}
	if err := r.runEntry(); err != nil {
		return fail(err)
	}
	// Every instance must find its behavior, and its lifecycle methods,
	// before anything is committed.
	type repoint struct {
		in *instance
		b  *behavior
		fn [numCallbacks]*lua.LFunction
	}
	var moves []repoint
	for _, in := range r.order {
		if in.dead {
			continue
		}
		nb, ok := r.behaviors[in.b.name]
		if !ok {
			return fail(fmt.Errorf("scripting: behavior %q is attached to %s and the new scripts no longer register it (registered: %v)",
				in.b.name, r.world.Name(in.id), r.BehaviorNames()))
		}
		mv := repoint{in: in, b: nb}
		for cb := range numCallbacks {
			// As Attach resolves: a field of the instance (a prop) first,
			// then the new class chain.
			v := in.self.RawGetString(cb.String())
			if v == lua.LNil {
				v = lookup(nb.class, cb.String())
			}
			switch v := v.(type) {
			case *lua.LFunction:
				mv.fn[cb] = v
			case *lua.LNilType:
			default:
				return fail(fmt.Errorf("scripting: behavior %q: %s is a %s, want a function", nb.name, cb, v.Type()))
			}
		}
		moves = append(moves, mv)
	}
	schema, err := r.SetupNetwork()
	if err != nil {
		return fail(err)
	}
	r.UseOldCode(false)
	r.old = r.old[:0]
	for _, mv := range moves {
		r.old = append(r.old, codeSwap{in: mv.in, oldB: mv.in.b, oldFn: mv.in.fn, newB: mv.b, newFn: mv.fn})
		mv.in.b, mv.in.fn, mv.in.disabled = mv.b, mv.fn, false
		mv.in.self.Metatable = mv.b.meta
	}
	tick := uint64(r.world.Tick())
	for _, mv := range moves {
		if mv.in.started && !mv.in.dead && !mv.in.disabled {
			r.run(mv.in, cbReload, tick, nil)
		}
	}
	return Reloaded{
		Schema:        schema,
		SchemaChanged: schema.Fingerprint() != saved.schema.Fingerprint(),
		Instances:     len(moves),
	}, nil
}

// runEntry runs the entry script and vkmRegisterBehaviors.
func (r *Runtime) runEntry() error {
	entry, err := cleanScriptPath(r.cfg.EntryScript)
	if err != nil {
		return err
	}
	fn, serr := r.loadChunk(entry)
	if serr != nil {
		return serr
	}
	r.loading[entry] = true
	err = r.callSetup("", keyLoad, fn, 0)
	delete(r.loading, entry)
	if err != nil {
		return err
	}
	r.imports[entry] = lua.LTrue
	reg, ok := r.global("vkmRegisterBehaviors")
	if !ok {
		return nil
	}
	return r.callSetup("vkmRegisterBehaviors", keyLoad, reg, 0, r.newRegistry())
}

// reloadSaved is what a failed reload puts back.
type reloadSaved struct {
	fs        fs.FS
	behaviors map[string]*behavior
	imports   map[string]lua.LValue
	globals   map[lua.LValue]lua.LValue
	schema    *replication.Schema
}

func (r *Runtime) saveForReload() reloadSaved {
	s := reloadSaved{fs: r.cfg.FS, behaviors: r.behaviors, imports: r.imports, schema: r.schema,
		globals: map[lua.LValue]lua.LValue{}}
	g := r.ls.G.Global
	for k, v := g.Next(lua.LNil); k != lua.LNil; k, v = g.Next(k) {
		s.globals[k] = v
	}
	return s
}

// restoreAfterReload puts the globals, classes, imports and folder back
// as they were before a failed reload. The schema was never replaced: a
// failed vkmSetupNetwork leaves it.
func (r *Runtime) restoreAfterReload(s reloadSaved) {
	r.cfg.FS, r.behaviors, r.imports = s.fs, s.behaviors, s.imports
	clear(r.loading)
	g := r.ls.G.Global
	var added []lua.LValue
	for k, _ := g.Next(lua.LNil); k != lua.LNil; k, _ = g.Next(k) {
		if _, ok := s.globals[k]; !ok {
			added = append(added, k)
		}
	}
	for _, k := range added {
		g.RawSet(k, lua.LNil)
	}
	for k, v := range s.globals {
		g.RawSet(k, v)
	}
}

// CheckSyntax compiles source as the script name without running it, so a
// dev server can refuse a save with a syntax error, naming its line,
// before sending it anywhere. It changes nothing.
func (r *Runtime) CheckSyntax(name string, source []byte) error {
	if r.closed {
		return fmt.Errorf("scripting: runtime is closed")
	}
	if _, serr := r.compile(source, name); serr != nil {
		return serr
	}
	return nil
}

// codeSwap is one instance's code before and after the last reload.
type codeSwap struct {
	in           *instance
	oldB, newB   *behavior
	oldFn, newFn [numCallbacks]*lua.LFunction
}

// UseOldCode switches every instance the last Reload re-pointed back to
// the code it ran before it (true) or on to its new code (false). A client
// that replays ticks from before the tick a reload took effect at runs
// them on the code that ran them then, as the server did; everything else
// runs the new code. Instances made since the reload have only new code.
// With no reload behind it, it does nothing.
func (r *Runtime) UseOldCode(old bool) {
	if old == r.usingOld {
		return
	}
	r.usingOld = old
	for _, s := range r.old {
		if old {
			s.in.b, s.in.fn = s.oldB, s.oldFn
		} else {
			s.in.b, s.in.fn = s.newB, s.newFn
		}
		s.in.self.Metatable = s.in.b.meta
	}
}

// ForgetOldCode drops the code the last reload replaced, once no replay
// can reach back before it.
func (r *Runtime) ForgetOldCode() {
	r.UseOldCode(false)
	clear(r.old)
	r.old = r.old[:0]
}

// CheckSource compiles source as the script name without a Runtime and
// without running it, for a tool that checks every script of a project,
// including those the entry script does not load. A syntax error comes back
// as a *ScriptError naming the line.
func CheckSource(name string, source []byte) error {
	r := &Runtime{ls: lua.NewState(lua.Options{SkipOpenLibs: true})}
	defer r.ls.Close()
	if _, serr := r.compile(source, name); serr != nil {
		return serr
	}
	return nil
}
