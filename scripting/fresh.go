package scripting

import (
	lua "github.com/yuin/gopher-lua"

	"vkm/internal/entity"
	"vkm/replication"
)

// Presentation from replicated causes. A behavior keeps the cause of an
// effect (the tick of its last shot, a count of pickups) in a project
// component, which travels to every end; each end's on_update turns a cause
// it has not shown yet into its own effect. self:fresh is the question that
// needs: has this field gone past every value this end has seen in it? Its
// memory is this end's alone and only ever rises, so a snapshot or a replay
// that takes a predicted value back and brings it again presents nothing a
// second time.

// mark is the highest value fresh has seen in one field of one entity.
type mark struct {
	typ, field int
	high       float64
}

// luaFresh implements self:fresh(component, field): the field's value when
// it is greater than every value fresh has seen in it on this end before,
// nil otherwise. The first call for an entity and field only records the
// value: what happened before this end looked is not news. nil without the
// component.
func (r *Runtime) luaFresh(L *lua.LState) int {
	id, ok := r.target(L)
	if !ok {
		return 0
	}
	typ, name := L.CheckString(2), L.CheckString(3)
	if _, engine := engineFields[typ]; engine {
		L.ArgError(2, typ+" is an engine component; keep what fresh watches in a field of a project component")
	}
	t := r.projectType(L, 2, typ)
	f, codec := r.projectField(L, 3, t, name)
	vals := r.world.Component(id, t)
	if f >= len(vals) {
		return 0
	}
	v := vals[f]
	e := r.entities[id]
	if e == nil {
		r.handle(id) // makes the entry that keeps the marks
		e = r.entities[id]
	}
	for i := range e.marks {
		m := &e.marks[i]
		if m.typ != t || m.field != f {
			continue
		}
		if v <= m.high {
			return 0
		}
		m.high = v
		if codec.Kind == replication.Bool {
			L.Push(lua.LTrue)
		} else {
			L.Push(r.num.box(v))
		}
		return 1
	}
	e.marks = append(e.marks, mark{typ: t, field: f, high: v})
	return 0
}

// ForgetFresh drops what self:fresh has seen in id's fields, so that its
// next call only records again. A client calls it when the server first
// tells it the state of an entity it held already, a scene entity: what
// fresh saw there was the scene file's values, not news, and the
// server's word may carry causes from before this end joined.
func (r *Runtime) ForgetFresh(id entity.ID) {
	if e := r.entities[id]; e != nil {
		e.marks = e.marks[:0]
	}
}
