package scripting

import (
	"fmt"
	"log/slog"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"vkm/internal/entity"
	"vkm/prediction"
)

// fakeWorld is a small in-memory World: entities by slot, a few prefabs
// (name → behavior), and the four answers set by the test.
type fakeWorld struct {
	tick      uint32
	lastError string      // non-empty: the session was lost
	rewinds   []entity.ID // callers of net.rewind, in order
	ents      []*fakeEnt  // by slot; slot 0 unused
	rt        *Runtime    // Destroy detaches, as the host does
	prefabs   map[string]string

	simulates func(entity.ID) bool
	mine      func(entity.ID) bool
	command   *prediction.Command
	commands  map[entity.ID]*prediction.Command // by entity, before command
	replaying bool
	hit       *Hit

	roll map[entity.ID]uint32 // RollTick where it is not tick

	events  []Event
	logs    []string
	impulse [2]float64

	role    Role
	local   uint16
	players []PlayerInfo
}

type fakeEnt struct {
	id     entity.ID
	name   string
	parent entity.ID
	tr     entity.Transform
	rb     *entity.Rigidbody
	cc     *entity.CharacterController
	comps  map[int]entity.Values
}

var _ World = (*fakeWorld)(nil)

func newFakeWorld() *fakeWorld {
	return &fakeWorld{ents: []*fakeEnt{nil}, prefabs: map[string]string{}}
}

// add creates a live entity with a transform and a dynamic body.
func (w *fakeWorld) add(name string) entity.ID {
	id := entity.ID{Slot: uint32(len(w.ents)), Gen: 1}
	w.ents = append(w.ents, &fakeEnt{
		id: id, name: name, tr: entity.Identity,
		rb: &entity.Rigidbody{}, comps: map[int]entity.Values{},
	})
	return id
}

func (w *fakeWorld) ent(id entity.ID) *fakeEnt {
	if id.IsNone() || int(id.Slot) >= len(w.ents) {
		return nil
	}
	if e := w.ents[id.Slot]; e != nil && e.id == id {
		return e
	}
	return nil
}

func (w *fakeWorld) Tick() uint32 { return w.tick }
func (w *fakeWorld) RollTick(id entity.ID) uint32 {
	if t, ok := w.roll[id]; ok {
		return t
	}
	return w.tick
}
func (w *fakeWorld) Disconnected() bool      { return w.lastError != "" }
func (w *fakeWorld) LastError() string       { return w.lastError }
func (w *fakeWorld) Alive(id entity.ID) bool { return w.ent(id) != nil }
func (w *fakeWorld) Name(id entity.ID) string {
	if e := w.ent(id); e != nil {
		return e.name
	}
	return ""
}
func (w *fakeWorld) Parent(id entity.ID) entity.ID {
	if e := w.ent(id); e != nil {
		return e.parent
	}
	return entity.None
}
func (w *fakeWorld) Find(name string) entity.ID {
	for _, e := range w.ents {
		if e != nil && e.name == name {
			return e.id
		}
	}
	return entity.None
}
func (w *fakeWorld) Next(from uint32) entity.ID {
	for slot := int(from); slot < len(w.ents); slot++ {
		if e := w.ents[slot]; e != nil {
			return e.id
		}
	}
	return entity.None
}
func (w *fakeWorld) Transform(id entity.ID) *entity.Transform {
	if e := w.ent(id); e != nil {
		return &e.tr
	}
	return nil
}
func (w *fakeWorld) Rigidbody(id entity.ID) *entity.Rigidbody {
	if e := w.ent(id); e != nil {
		return e.rb
	}
	return nil
}
func (w *fakeWorld) Controller(id entity.ID) *entity.CharacterController {
	if e := w.ent(id); e != nil {
		return e.cc
	}
	return nil
}
func (w *fakeWorld) Component(id entity.ID, typ int) entity.Values {
	if e := w.ent(id); e != nil {
		return e.comps[typ]
	}
	return nil
}
func (w *fakeWorld) AddComponent(id entity.ID, typ int) entity.Values {
	e := w.ent(id)
	if e == nil {
		return nil
	}
	if v, ok := e.comps[typ]; ok {
		return v
	}
	n := len(w.rt.Schema().Types[typ].Fields)
	e.comps[typ] = make(entity.Values, n)
	return e.comps[typ]
}
func (w *fakeWorld) RemoveComponent(id entity.ID, typ int) {
	if e := w.ent(id); e != nil {
		delete(e.comps, typ)
	}
}
func (w *fakeWorld) Spawn(p string, pose entity.Transform) (entity.ID, error) {
	b, ok := w.prefabs[p]
	if !ok {
		return entity.None, fmt.Errorf("no prefab %s", p)
	}
	id := w.add(strings.TrimSuffix(path.Base(p), ".toml"))
	w.ents[id.Slot].tr = pose
	if b != "" {
		if err := w.rt.Attach(id, b, nil); err != nil {
			return entity.None, err
		}
		w.rt.Start(id)
	}
	return id, nil
}
func (w *fakeWorld) Destroy(id entity.ID) {
	if w.ent(id) == nil {
		return
	}
	w.rt.Detach(id)
	w.ents[id.Slot] = nil
}
func (w *fakeWorld) ApplyImpulse(by, id entity.ID, ix, iy float64) {
	w.impulse = [2]float64{ix, iy}
}
func (w *fakeWorld) RayCast(x1, y1, x2, y2 float64, ignore entity.ID) (Hit, bool) {
	if w.hit == nil {
		return Hit{}, false
	}
	return *w.hit, true
}
func (w *fakeWorld) QueryBox(minX, minY, maxX, maxY float64, fn func(entity.ID) bool) {
	for _, e := range w.ents {
		if e != nil && e.tr.X >= minX && e.tr.X <= maxX && e.tr.Y >= minY && e.tr.Y <= maxY && !fn(e.id) {
			return
		}
	}
}
func (w *fakeWorld) Touching(id entity.ID, fn func(entity.ID) bool) {
	for _, e := range w.ents {
		if e != nil && e.id != id && !fn(e.id) {
			return
		}
	}
}
func (w *fakeWorld) Simulates(id entity.ID) bool {
	return w.simulates == nil || w.simulates(id)
}
func (w *fakeWorld) IsMine(id entity.ID) bool {
	return w.mine == nil || w.mine(id)
}
func (w *fakeWorld) Command(id entity.ID) *prediction.Command {
	if c, ok := w.commands[id]; ok {
		return c
	}
	return w.command
}
func (w *fakeWorld) IsReplaying() bool { return w.replaying }
func (w *fakeWorld) Rewind(caller entity.ID, fn func()) {
	w.rewinds = append(w.rewinds, caller)
	fn()
}
func (w *fakeWorld) Player(id entity.ID) uint16 {
	for _, p := range w.players {
		if p.Entity == id {
			return p.Number
		}
	}
	return 0
}
func (w *fakeWorld) Players(dst []PlayerInfo) []PlayerInfo { return append(dst, w.players...) }
func (w *fakeWorld) Role() Role                            { return w.role }
func (w *fakeWorld) LocalPlayer() uint16                   { return w.local }
func (w *fakeWorld) Emit(ev Event)                         { w.events = append(w.events, ev) }
func (w *fakeWorld) Log(id entity.ID, msg string) {
	w.logs = append(w.logs, fmt.Sprintf("%d:%s", id.Slot, msg))
}

// eventsNamed returns the fields of the events called name, in order.
func (w *fakeWorld) eventsNamed(name string) []map[string]any {
	var out []map[string]any
	for _, ev := range w.events {
		if ev.Name == name {
			out = append(out, ev.Fields)
		}
	}
	return out
}

// newTest builds a runtime over a fake world from the entry script src
// (scripts/main.lua) and any other files.
func newTest(t testing.TB, src string, other ...string) (*Runtime, *fakeWorld) {
	t.Helper()
	r, w, err := tryNew(t, Config{}, src, other...)
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}

func tryNew(t testing.TB, cfg Config, src string, other ...string) (*Runtime, *fakeWorld, error) {
	t.Helper()
	fsys := fstest.MapFS{"scripts/main.lua": {Data: []byte(src)}}
	for i := 0; i+1 < len(other); i += 2 {
		fsys[other[i]] = &fstest.MapFile{Data: []byte(other[i+1])}
	}
	w := newFakeWorld()
	cfg.FS, cfg.World, cfg.EntryScript = fsys, w, "scripts/main.lua"
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	if cfg.Axes == nil {
		cfg.Axes, cfg.Buttons = []string{"move", "aim_x"}, []string{"jump", "fire"}
	}
	r, err := New(cfg)
	if err != nil {
		return nil, w, err
	}
	w.rt = r
	t.Cleanup(r.Close)
	return r, w, nil
}

// lineOf returns the 1-based line of src containing marker.
func lineOf(t testing.TB, src, marker string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("marker %q not in script", marker)
	return 0
}

func attach(t testing.TB, r *Runtime, id entity.ID, behavior string) {
	t.Helper()
	if err := r.Attach(id, behavior, nil); err != nil {
		t.Fatal(err)
	}
}

// The fake world has no physics beyond the components: the bindings of
// forces, shapes and joints are tested against the real one, in host/game.
func (w *fakeWorld) Body(entity.ID) (BodyInfo, bool)                       { return BodyInfo{}, false }
func (w *fakeWorld) Push(_, _ entity.ID, _ Push)                           {}
func (w *fakeWorld) SetBodyType(entity.ID, entity.BodyType) error          { return nil }
func (w *fakeWorld) SetEnabled(entity.ID, bool)                            {}
func (w *fakeWorld) SetDamping(entity.ID, float64, float64, float64) error { return nil }
func (w *fakeWorld) Shape(entity.ID, int) (entity.Shape, bool)             { return entity.Shape{}, false }
func (w *fakeWorld) AddShape(entity.ID, entity.Shape) (int, error)         { return 0, nil }
func (w *fakeWorld) RemoveShape(entity.ID, int) error                      { return nil }
func (w *fakeWorld) SetShapeFilter(entity.ID, int, uint16, uint16, int16) error {
	return nil
}
func (w *fakeWorld) MakeJoint(_, _ entity.ID, _ *entity.JointSpec, _ string) (uint32, error) {
	return 0, nil
}
func (w *fakeWorld) RemoveJoint(uint32)                     {}
func (w *fakeWorld) Joint(uint32) (JointInfo, bool)         { return JointInfo{}, false }
func (w *fakeWorld) SetJoint(uint32, entity.JointDef) error { return nil }
func (w *fakeWorld) JointsOf(entity.ID, func(uint32) bool)  {}
