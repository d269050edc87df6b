package scripting

import (
	"fmt"
	"io/fs"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
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
	// Props is how many of them were given props that differ from the
	// ones they had.
	Props int
}

// PropsFunc tells a reload the props a live instance's entity is now
// authored with: those of the behavior named on entity id as its file now
// stands, and true; false keeps the props the instance has. The map is
// kept and must not change afterwards.
type PropsFunc func(id entity.ID, behavior string) (map[string]any, bool)

// Reload runs the project's scripts again, read from fsys (the project
// folder as it now stands), in the same Lua state, without stopping the
// world: the entry script and everything it imports run afresh (the
// engine's prelude is kept), vkmRegisterBehaviors
// registers the classes again, and vkmSetupNetwork builds the schema again
// from nothing. Every live instance is then re-pointed to the new class
// of its behavior, keeping its fields (its state), and its optional
// on_reload(self, old_props) runs. An instance an error had disabled runs
// again: the fix may be in the new code. Props stay as they are; see
// ReloadWithProps.
//
// If anything fails — a syntax error, an error while a script loads or
// registers, vkmSetupNetwork refusing a field, a behavior that entities use
// no longer registered, a lifecycle name bound to something that is not a
// function — nothing changes: the error names the file and line, and the
// old code keeps running with its globals as they were.
//
// Reload must not be called from inside a callback.
func (r *Runtime) Reload(fsys fs.FS) (Reloaded, error) { return r.ReloadWithProps(fsys, nil) }

// ReloadWithProps is Reload that also gives live instances the props their
// entities' files now hold, as props says (nil: none change). Of an
// instance's props, those whose value changed are written over the
// instance's fields of those names, a prop the file no longer has is
// cleared from the instance, and a new one is added; a field whose prop
// did not change keeps whatever the instance holds, so an edit to one prop
// does not reset state the behavior keeps in another. on_reload(self,
// old_props) then runs on every started instance with a table of the props
// it had before (equal to its props when they did not change), so code can
// recompute what it derived from them. New props that would hide a method
// of the new class, or that a Lua value cannot hold, fail the reload as
// anything else does: nothing changes.
func (r *Runtime) ReloadWithProps(fsys fs.FS, props PropsFunc) (Reloaded, error) {
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
	// and take its new props, before anything is committed.
	type repoint struct {
		in       *instance
		b        *behavior
		fn       [numCallbacks]*lua.LFunction
		props    map[string]any
		changes  []propChange
		oldProps *lua.LTable // what on_reload receives
	}
	var moves []repoint
	changed := 0
	for _, in := range r.order {
		if in.dead {
			continue
		}
		nb, ok := r.behaviors[in.b.name]
		if !ok {
			return fail(fmt.Errorf("scripting: behavior %q is attached to %s and the new scripts no longer register it (registered: %v)",
				in.b.name, r.world.Name(in.id), r.BehaviorNames()))
		}
		mv := repoint{in: in, b: nb, props: in.props}
		if props != nil {
			if p, ok := props(in.id, in.b.name); ok {
				mv.props = p
			}
		}
		var err error
		if mv.changes, mv.oldProps, err = r.diffProps(in, nb, mv.props); err != nil {
			return fail(err)
		}
		if len(mv.changes) > 0 {
			changed++
		}
		for cb := range numCallbacks {
			// As Attach resolves: a field of the instance (a prop, as it
			// will be) first, then the new class chain.
			v := in.self.RawGetString(cb.String())
			for _, c := range mv.changes {
				if c.key == cb.String() {
					v = c.new
				}
			}
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
		r.old = append(r.old, codeSwap{in: mv.in, oldB: mv.in.b, oldFn: mv.in.fn, newB: mv.b, newFn: mv.fn, props: mv.changes})
		mv.in.b, mv.in.fn, mv.in.disabled = mv.b, mv.fn, false
		mv.in.self.Metatable = mv.b.meta
		mv.in.props = mv.props
		for _, c := range mv.changes {
			mv.in.self.RawSetString(c.key, c.new)
		}
	}
	tick := uint64(r.world.Tick())
	for _, mv := range moves {
		if mv.in.started && !mv.in.dead && !mv.in.disabled {
			r.run(mv.in, cbReload, tick, mv.oldProps)
		}
	}
	return Reloaded{
		Schema:        schema,
		SchemaChanged: schema.Fingerprint() != saved.schema.Fingerprint(),
		Instances:     len(moves),
		Props:         changed,
	}, nil
}

// propChange is one prop a reload changed on an instance: its value
// before and after (nil: absent), each a table of its own when a table.
type propChange struct {
	key      string
	old, new lua.LValue
}

// diffProps compares in's props with next, as Lua values, and returns the
// props that differ, and a fresh table of in's props as they were for
// on_reload. next must not hide a method of b, the class in will run.
func (r *Runtime) diffProps(in *instance, b *behavior, next map[string]any) ([]propChange, *lua.LTable, error) {
	was, err := propsToLua(r.ls, in.props)
	if err != nil {
		return nil, nil, fmt.Errorf("scripting: %s: %w", r.world.Name(in.id), err)
	}
	arg, _ := propsToLua(r.ls, in.props) // a copy of its own, which on_reload may change
	oldProps := r.ls.CreateTable(0, len(arg))
	for _, f := range arg {
		oldProps.RawSetString(f.key, f.value)
	}
	now, err := propsToLua(r.ls, next)
	if err != nil {
		return nil, nil, fmt.Errorf("scripting: new props of %s: %w", r.world.Name(in.id), err)
	}
	var out []propChange
	before := make(map[string]lua.LValue, len(was))
	for _, f := range was {
		before[f.key] = f.value
	}
	for _, f := range now {
		if r.isMethod(b, f.key) {
			return nil, nil, fmt.Errorf("scripting: %s: prop %q would hide the method %s of behavior %q (rename the prop)",
				r.world.Name(in.id), f.key, f.key, b.name)
		}
		old, had := before[f.key]
		delete(before, f.key)
		if !had {
			old = lua.LNil
		}
		if !had || !sameValue(old, f.value) {
			out = append(out, propChange{key: f.key, old: old, new: f.value})
		}
	}
	for _, f := range was { // in sorted order, as propsToLua gives them
		if _, gone := before[f.key]; gone {
			out = append(out, propChange{key: f.key, old: f.value, new: lua.LNil})
		}
	}
	return out, oldProps, nil
}

// sameValue reports whether two prop values, as propsToLua builds them,
// hold the same data: numbers, strings and booleans by value, tables key
// by key.
func sameValue(a, b lua.LValue) bool {
	ta, ok := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok || !ok2 {
		return a == b
	}
	n, same := 0, true
	ta.ForEach(func(k, v lua.LValue) {
		n++
		if same && !sameValue(v, tb.RawGet(k)) {
			same = false
		}
	})
	if !same {
		return false
	}
	m := 0
	tb.ForEach(func(lua.LValue, lua.LValue) { m++ })
	return n == m
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

// codeSwap is one instance's code, and the props the reload changed,
// before and after the last reload.
type codeSwap struct {
	in           *instance
	oldB, newB   *behavior
	oldFn, newFn [numCallbacks]*lua.LFunction
	props        []propChange
}

// UseOldCode switches every instance the last Reload re-pointed back to
// the code it ran before it (true) or on to its new code (false), and with
// it each prop the reload changed: its field is set to the prop's value
// before the reload (true) or after it (false), as the reload itself set
// it. A client that replays ticks from before the tick a reload took
// effect at runs them on the code and props that ran them then, as the
// server did, and the switch back, at the reload's tick, does again what
// the reload did there; everything else runs the new code. Instances made
// since the reload have only new code. With no reload behind it, it does
// nothing.
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
		for _, c := range s.props {
			if old {
				s.in.self.RawSetString(c.key, c.old)
			} else {
				s.in.self.RawSetString(c.key, c.new)
			}
		}
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
