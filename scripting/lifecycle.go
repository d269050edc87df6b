package scripting

import (
	"fmt"
	"sort"

	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
)

// Attach makes a new instance of behavior for entity id, with props copied
// in as fields (float64 and other numbers, string, bool, and nested []any
// or map[string]any; map keys are copied in sorted order so pairs() visits
// them alike on every end; the map is kept, unchanged, for a reload to
// compare with). The instance's metatable is {__index = class}.
// on_start is not called: Start does that, or the first FixedUpdate or
// Update that reaches the instance. The first behavior attached to an entity
// is also its handle, so self == vkm.find(self:name()). An instance attached
// during a FixedUpdate or Update pass is not run in that pass.
func (r *Runtime) Attach(id entity.ID, behaviorName string, props map[string]any) error {
	b, ok := r.behaviors[behaviorName]
	switch {
	case r.closed:
		return fmt.Errorf("scripting: runtime is closed")
	case !ok:
		return fmt.Errorf("scripting: unknown behavior %q (registered: %v)", behaviorName, r.BehaviorNames())
	case id.IsNone() || !r.world.Alive(id):
		return fmt.Errorf("scripting: attach %q: entity %v is not alive", behaviorName, id)
	}
	e := r.entities[id]
	if e == nil {
		e = &entry{}
	}
	for _, in := range e.instances {
		if in.b == b {
			return fmt.Errorf("scripting: behavior %q is already attached to entity %v", behaviorName, id)
		}
	}
	fields, err := propsToLua(r.ls, props)
	if err != nil {
		return fmt.Errorf("scripting: attach %q to %v: %w", behaviorName, id, err)
	}
	for _, f := range fields {
		if r.isMethod(b, f.key) {
			return fmt.Errorf("scripting: attach %q to %v: prop %q would hide the method %s (rename the prop)", behaviorName, id, f.key, f.key)
		}
	}
	in := &instance{id: id, b: b, props: props}
	if err := in.resolve(fields); err != nil {
		return err
	}
	in.self = e.handle
	if in.self == nil || len(e.instances) > 0 {
		in.self = newSmallTable(r.ls)
	}
	for _, f := range fields {
		in.self.RawSetString(f.key, f.value)
	}
	in.self.RawSetString(entityKey, lua.LNumber(id.Pack()))
	in.self.Metatable = b.meta
	if e.handle == nil {
		e.handle = in.self
	}
	e.instances = append(e.instances, in)
	r.entities[id] = e
	if r.passing > 0 {
		r.pending = append(r.pending, in)
	} else {
		r.insert(in)
	}
	return nil
}

// isMethod reports whether name is a function of b's class or of the engine
// API, which a prop of that name would hide on the instance.
func (r *Runtime) isMethod(b *behavior, name string) bool {
	_, own := b.class.RawGetString(name).(*lua.LFunction)
	_, api := r.api.RawGetString(name).(*lua.LFunction)
	return own || api
}

// insert puts in into order after every instance of a lower or equal slot.
func (r *Runtime) insert(in *instance) {
	i := sort.Search(len(r.order), func(i int) bool { return r.order[i].id.Slot > in.id.Slot })
	r.order = append(r.order, nil)
	copy(r.order[i+1:], r.order[i:])
	r.order[i] = in
}

// Start calls on_start on each behavior of id that has not started yet.
func (r *Runtime) Start(id entity.ID) {
	e := r.entities[id]
	if e == nil || r.closed {
		return
	}
	for _, in := range e.instances {
		r.start(in)
	}
}

func (r *Runtime) start(in *instance) {
	if in.started || in.dead || in.disabled {
		return
	}
	in.started = true
	r.run(in, cbStart, uint64(r.world.Tick()), nil)
}

// Detach calls on_destroy on each started, still enabled behavior of id and
// forgets them and the entity's handle. The host calls it for every entity
// it destroys (a subtree's too), before the entity leaves the store, so
// on_destroy can still read its position and emit an event. Calling it
// again, or for an entity with no behaviors, does nothing. It is safe during
// a callback: the detached instances are skipped for the rest of the pass.
// An instance whose entity dies without Detach is dropped, without
// on_destroy, at the next pass that reaches it.
func (r *Runtime) Detach(id entity.ID) {
	e := r.entities[id]
	if e == nil || r.closed {
		return
	}
	delete(r.entities, id)
	for _, in := range e.instances {
		if in.dead {
			continue
		}
		in.dead = true
		r.dead++
		if in.started && !in.disabled && in.fn[cbDestroy] != nil {
			r.run(in, cbDestroy, uint64(r.world.Tick()), nil)
		}
	}
	// The dead instances leave order at the next pass's settle, so
	// destroying many entities between ticks costs one sweep, not one each.
}

// FixedUpdate calls on_fixed_update(self, dt) on every enabled instance in
// slot order (several behaviors of one entity in attach order). With
// onlySimulated (a replay pass) it skips entities World.Simulates says this
// end does not simulate. An instance not yet started is started first.
// Instances attached during the pass are not run in it.
func (r *Runtime) FixedUpdate(dt float64, onlySimulated bool) {
	if r.closed {
		return
	}
	if !r.world.IsReplaying() {
		r.deliverMessages()
	}
	r.pass(cbFixedUpdate, uint64(r.world.Tick()), dt, onlySimulated)
}

// Update calls on_update(self, dt) on every enabled instance, once per drawn
// frame, for presentation: cameras, effects, interpolation of what is shown.
func (r *Runtime) Update(dt float64) {
	if r.closed {
		return
	}
	r.frame++
	r.presenting = true
	r.pass(cbUpdate, uint64(r.world.Tick())^r.frame<<32, dt, false)
	r.presenting = false
}

func (r *Runtime) pass(cb callback, key uint64, dt float64, onlySimulated bool) {
	r.settle()
	// Boxed once for the whole pass, and kept while dt stays the same (a
	// fixed tick's always does): boxing it was a pass's one allocation.
	if r.dtArg == nil || r.dtVal != dt {
		r.dtArg, r.dtVal = lua.LNumber(dt), dt
	}
	arg := r.dtArg
	r.passing++
	n := len(r.order) // instances attached during the pass wait in pending
	for i := 0; i < n; i++ {
		in := r.order[i]
		if in.dead || in.disabled {
			continue
		}
		if !r.world.Alive(in.id) {
			r.forget(in) // the host destroyed it without Detach
			continue
		}
		if onlySimulated && !r.world.Simulates(in.id) {
			continue
		}
		if !in.started {
			r.start(in)
		}
		if !in.dead && !in.disabled {
			k := key
			if cb == cbFixedUpdate {
				k = uint64(r.world.RollTick(in.id))
			}
			r.run(in, cb, k, arg)
		}
	}
	r.passing--
	r.settle()
}

// forget drops an instance whose entity is gone, without on_destroy (there
// is nothing left for it to read), and the entity's entry once it has no
// live instance.
func (r *Runtime) forget(in *instance) {
	in.dead = true
	r.dead++
	e := r.entities[in.id]
	if e == nil {
		return
	}
	for _, other := range e.instances {
		if !other.dead {
			return
		}
	}
	delete(r.entities, in.id)
}

// settle, between passes, drops dead instances from order and files the
// instances attached during the pass.
func (r *Runtime) settle() {
	if r.passing > 0 {
		return
	}
	if r.dead > 0 {
		r.order = deleteDead(r.order)
		r.dead = 0
	}
	if len(r.pending) > 0 {
		for _, in := range r.pending {
			if !in.dead {
				r.insert(in)
			}
		}
		clear(r.pending)
		r.pending = r.pending[:0]
	}
}

func deleteDead(order []*instance) []*instance {
	kept := order[:0]
	for _, in := range order {
		if !in.dead {
			kept = append(kept, in)
		}
	}
	clear(order[len(kept):])
	return kept
}

// callbackKeys keys math.random per lifecycle method (see random.go).
var callbackKeys = [numCallbacks]uint64{keyStart, keyFixedUpdate, keyUpdate, keyDestroy, keyReload, keyContact}

// run calls one lifecycle method of in, protected and under the call budget
// (a nested call, made from inside another callback, shares the outer
// call's budget), with math.random keyed by the method, key (the tick) and
// the entity's slot. It builds nothing per call: the function, self and dt
// are pushed as they are. A failure is reported and disables in.
func (r *Runtime) run(in *instance, cb callback, key uint64, arg lua.LValue) {
	r.call(in, cb, key, arg, nil)
}

// call is run with up to two arguments after self (nil: none).
func (r *Runtime) call(in *instance, cb callback, key uint64, arg, arg2 lua.LValue) {
	fn := in.fn[cb]
	if fn == nil {
		return
	}
	L := r.ls
	prev, prevSelf, saved := r.current, r.currentSelf, r.rng
	r.current, r.currentSelf = in.id, in.self
	r.rng.rekey(r.cfg.Seed, callbackKeys[cb], key, uint64(in.id.Slot))
	r.dog.enter(r.cfg.CallBudget)
	L.Push(fn)
	L.Push(in.self)
	nargs := 1
	if arg != nil {
		L.Push(arg)
		nargs = 2
	}
	if arg2 != nil {
		L.Push(arg2)
		nargs = 3
	}
	err := L.PCall(nargs, 0, nil)
	stopped := r.dog.leave()
	r.current, r.currentSelf = prev, prevSelf
	if r.dog.depth > 0 {
		r.rng = saved // a nested call leaves the outer call's stream as it was
	}
	if err != nil {
		r.report(in, cb, err, stopped)
	}
}

// ContactInfo is what on_contact is told of a touch, from the side of the
// entity it runs for.
type ContactInfo struct {
	// Begin is true when the shapes began to touch, false when they
	// stopped.
	Begin bool
	// Sensor is true when either shape is a sensor.
	Sensor bool
	// Shape and OtherShape are the places of the touching shapes in the
	// entity's and the other's lists of shapes, from 0.
	Shape, OtherShape int
	// At a begin: where they touch, the unit normal from the entity
	// toward the other, and how fast the two were closing along it (m/s);
	// zero at an end.
	X, Y, NX, NY, Speed float64
}

// Contact calls on_contact(self, other, info) on each enabled behavior of
// id that has one, in attach order: the host's report that one of id's
// shapes began or stopped touching one of other's. info is a new table
// {begin, sensor, shape, other_shape, x, y, nx, ny, speed}, shapes counted
// from 1 as Lua counts. The host calls it after a tick's physics step, on
// an end that simulates id, and never during a replay. A behavior not yet
// started is started first; other may be dead (a contact that ended because
// other was destroyed).
func (r *Runtime) Contact(id, other entity.ID, info ContactInfo) {
	e := r.entities[id]
	if e == nil || r.closed || !r.world.Alive(id) {
		return
	}
	var t *lua.LTable
	for _, in := range e.instances {
		if in.dead || in.disabled || in.fn[cbContact] == nil {
			continue
		}
		if !in.started {
			r.start(in)
			if in.dead || in.disabled {
				continue
			}
		}
		if t == nil {
			t = r.contactTable(info)
		}
		r.call(in, cbContact, uint64(r.world.Tick()), r.handle(other), t)
	}
}

// contactTable builds on_contact's info table.
func (r *Runtime) contactTable(info ContactInfo) *lua.LTable {
	t := r.ls.CreateTable(0, 9)
	t.RawSetString("begin", lua.LBool(info.Begin))
	t.RawSetString("sensor", lua.LBool(info.Sensor))
	t.RawSetString("shape", lua.LNumber(info.Shape+1))
	t.RawSetString("other_shape", lua.LNumber(info.OtherShape+1))
	t.RawSetString("x", lua.LNumber(info.X))
	t.RawSetString("y", lua.LNumber(info.Y))
	t.RawSetString("nx", lua.LNumber(info.NX))
	t.RawSetString("ny", lua.LNumber(info.NY))
	t.RawSetString("speed", lua.LNumber(info.Speed))
	return t
}
