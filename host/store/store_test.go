package store

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
)

func mustCreateAt(t testing.TB, s *Store, slot uint32) entity.ID {
	t.Helper()
	id, err := s.CreateAt(slot)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustSetParent(t testing.TB, s *Store, child, parent entity.ID) {
	t.Helper()
	if err := s.SetParent(child, parent); err != nil {
		t.Fatal(err)
	}
}

func TestStoreCreatePicksLowestFreeSlot(t *testing.T) {
	var s Store // the zero Store is ready to use
	for want := uint32(0); want < 3; want++ {
		if id := s.Create(); id != (entity.ID{Slot: want, Gen: 1}) {
			t.Fatalf("Create = %v, want %d#1", id, want)
		}
	}
	mustCreateAt(t, &s, 4)
	if id := s.Create(); id.Slot != 3 {
		t.Errorf("Create = %v, want slot 3 (4 is taken)", id)
	}
	if id := s.Create(); id.Slot != 5 {
		t.Errorf("Create = %v, want slot 5", id)
	}
	s.Destroy(entity.ID{Slot: 1, Gen: 1})
	if id := s.Create(); id != (entity.ID{Slot: 1, Gen: 2}) {
		t.Errorf("Create after destroying slot 1 = %v, want 1#2", id)
	}
	if s.Len() != 6 {
		t.Errorf("Len = %d, want 6", s.Len())
	}
}

func TestStoreCreateSkipsFullPages(t *testing.T) {
	s := NewStore()
	for range 3*storePageSize + 5 {
		s.Create()
	}
	s.Destroy(s.At(storePageSize + 7))
	if id := s.Create(); id.Slot != storePageSize+7 {
		t.Errorf("Create = %v, want the freed slot %d", id, storePageSize+7)
	}
	if id := s.Create(); id.Slot != 3*storePageSize+5 {
		t.Errorf("Create = %v, want slot %d", id, 3*storePageSize+5)
	}
}

func TestStoreCreateAt(t *testing.T) {
	s := NewStore()
	id := mustCreateAt(t, s, 1000)
	if id != (entity.ID{Slot: 1000, Gen: 1}) || !s.Alive(id) || s.At(1000) != id {
		t.Errorf("CreateAt(1000) = %v", id)
	}
	if _, err := s.CreateAt(1000); err == nil {
		t.Error("CreateAt of a taken slot succeeded")
	}
	if _, err := s.CreateAt(entity.MaxSlot + 1); err == nil {
		t.Error("CreateAt above MaxSlot succeeded")
	}
	top := mustCreateAt(t, s, entity.MaxSlot)
	if s.Len() != 2 || s.At(entity.MaxSlot) != top {
		t.Errorf("Len = %d, At(MaxSlot) = %v", s.Len(), s.At(entity.MaxSlot))
	}
	if *s.Transform(id) != entity.Identity {
		t.Errorf("new entity's transform = %+v, want Identity", *s.Transform(id))
	}
	if s.Create().Slot != 0 {
		t.Error("Create did not take slot 0")
	}
}

func TestStoreDestroyRemovesSubtreeAndBumpsGeneration(t *testing.T) {
	s := NewStore()
	root := mustCreateAt(t, s, 2)
	a := mustCreateAt(t, s, 9)
	b := mustCreateAt(t, s, 5)
	aa := mustCreateAt(t, s, 1)
	other := mustCreateAt(t, s, 3)
	mustSetParent(t, s, a, root)
	mustSetParent(t, s, b, root)
	mustSetParent(t, s, aa, a)
	parent := mustCreateAt(t, s, 0)
	mustSetParent(t, s, root, parent)

	want := []entity.ID{root, b, a, aa} // root first, children in slot order
	if got := s.Subtree(root); !reflect.DeepEqual(got, want) {
		t.Errorf("Subtree = %v, want %v", got, want)
	}
	if got := s.Destroy(root); !reflect.DeepEqual(got, want) {
		t.Errorf("Destroy = %v, want %v", got, want)
	}
	for _, id := range want {
		if s.Alive(id) {
			t.Errorf("%v alive after its subtree was destroyed", id)
		}
	}
	if !s.Alive(other) || !s.Alive(parent) || s.Len() != 2 {
		t.Errorf("Destroy reached beyond the subtree: Len = %d", s.Len())
	}
	if c := s.Children(parent); len(c) != 0 {
		t.Errorf("parent's children after Destroy = %v, want none", c)
	}
	if s.Destroy(root) != nil {
		t.Error("destroying a dead entity returned IDs")
	}

	again := mustCreateAt(t, s, 2)
	if again.Gen != root.Gen+1 {
		t.Errorf("new occupant of slot 2 = %v, want generation %d", again, root.Gen+1)
	}
	if s.Alive(root) || s.Transform(root) != nil || s.Name(root) != "" {
		t.Error("the old ID reaches the slot's new occupant")
	}
	if s.SetName(root, "x") || s.SetParent(root, entity.None) == nil || s.AddComponent(root, 0, 1) != nil {
		t.Error("a setter accepted a dead ID")
	}
}

func TestStoreGenerationsSkipZero(t *testing.T) {
	s := NewStore()
	mustCreateAt(t, s, 7)
	s.entry(7).gen = maxGen // as if the slot had been reused maxGen times
	s.Destroy(entity.ID{Slot: 7, Gen: maxGen})
	next := mustCreateAt(t, s, 7)
	if next.Gen != 1 {
		t.Errorf("generation after maxGen = %d, want 1", next.Gen)
	}
	if got := entity.Unpack(next.Pack()); got != next {
		t.Errorf("Pack round trip = %v, want %v", got, next)
	}
	if s.Alive(entity.ID{Slot: 5}) || s.Alive(entity.None) {
		t.Error("a generation-0 ID is alive")
	}
}

func TestStoreSetParentRefusesCycles(t *testing.T) {
	s := NewStore()
	a, b, c := s.Create(), s.Create(), s.Create()
	mustSetParent(t, s, b, a)
	mustSetParent(t, s, c, b)
	for _, tt := range []struct{ child, parent entity.ID }{{a, c}, {a, b}, {a, a}} {
		if err := s.SetParent(tt.child, tt.parent); err == nil {
			t.Errorf("SetParent(%v, %v) made a cycle", tt.child, tt.parent)
		}
	}
	dead := s.Create()
	s.Destroy(dead)
	if s.SetParent(c, dead) == nil || s.SetParent(dead, a) == nil {
		t.Error("SetParent accepted a dead entity")
	}
	if s.Parent(c) != b {
		t.Errorf("a refused SetParent changed the parent to %v", s.Parent(c))
	}
	// Moving c to a and back to the root keeps children lists right.
	mustSetParent(t, s, c, a)
	if got := s.Children(a); !reflect.DeepEqual(got, []entity.ID{b, c}) || len(s.Children(b)) != 0 {
		t.Errorf("children of a = %v, of b = %v", got, s.Children(b))
	}
	mustSetParent(t, s, c, entity.None)
	if s.Parent(c) != entity.None || !reflect.DeepEqual(s.Children(a), []entity.ID{b}) {
		t.Errorf("after detaching: parent %v, children of a %v", s.Parent(c), s.Children(a))
	}
}

func TestStoreChildrenInSlotOrder(t *testing.T) {
	s := NewStore()
	p := mustCreateAt(t, s, 50)
	var kids []entity.ID
	for _, slot := range []uint32{30, 10, 40, 20} {
		k := mustCreateAt(t, s, slot)
		mustSetParent(t, s, k, p)
		kids = append(kids, k)
	}
	slices.SortFunc(kids, func(a, b entity.ID) int { return int(a.Slot) - int(b.Slot) })
	if got := s.Children(p); !reflect.DeepEqual(got, kids) {
		t.Errorf("Children = %v, want %v", got, kids)
	}
}

func TestStoreEachInSlotOrder(t *testing.T) {
	s := NewStore()
	var want []entity.ID
	for _, slot := range []uint32{entity.MaxSlot, 300, 5, 70000} {
		mustCreateAt(t, s, slot)
	}
	for _, slot := range []uint32{5, 300, 70000, entity.MaxSlot} {
		want = append(want, s.At(slot))
	}
	if got := s.AppendIDs(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("AppendIDs = %v, want %v", got, want)
	}
	var walked []entity.ID
	for id := s.Next(0); !id.IsNone(); id = s.Next(id.Slot + 1) {
		walked = append(walked, id)
	}
	if !reflect.DeepEqual(walked, want) {
		t.Errorf("walking with Next = %v, want %v", walked, want)
	}
	if got := s.Next(301); got != s.At(70000) {
		t.Errorf("Next(301) = %v, want the entity in slot 70000", got)
	}
	if got := s.Next(entity.MaxSlot + 1); !got.IsNone() {
		t.Errorf("Next past the largest slot = %v, want None", got)
	}
	n := 0
	s.Each(func(entity.ID) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Each went on after fn returned false (%d calls)", n)
	}
	// Destroying from inside Each is allowed.
	s.Each(func(id entity.ID) bool { s.Destroy(id); return true })
	if s.Len() != 0 {
		t.Errorf("Len = %d after destroying everything", s.Len())
	}
}

func TestStoreComponents(t *testing.T) {
	s := NewStore()
	id := s.Create()
	if s.Rigidbody(id) != nil || s.Controller(id) != nil || s.Body(id) != nil || s.Component(id, 0) != nil {
		t.Fatal("a new entity has components")
	}
	s.SetRigidbody(id, &entity.Rigidbody{VX: 1, Awake: true})
	s.Rigidbody(id).VY = 2
	if got := *s.Rigidbody(id); got != (entity.Rigidbody{VX: 1, VY: 2, Awake: true}) {
		t.Errorf("Rigidbody = %+v", got)
	}
	s.SetRigidbody(id, nil)
	if s.Rigidbody(id) != nil {
		t.Error("SetRigidbody(nil) did not remove it")
	}
	s.SetController(id, &entity.CharacterController{Speed: 3})
	if c := s.Controller(id); c == nil || c.Speed != 3 {
		t.Errorf("Controller = %+v", c)
	}
	body := &entity.BodyDef{Type: entity.Dynamic}
	s.SetBody(id, body)
	if s.Body(id) != body {
		t.Error("Body did not return what SetBody set")
	}
	s.SetBehavior(id, "walker", map[string]any{"speed": 3.0})
	if name, props := s.Behavior(id); name != "walker" || props["speed"] != 3.0 {
		t.Errorf("Behavior = %q, %v", name, props)
	}
	s.SetName(id, "hero")
	if s.Name(id) != "hero" {
		t.Errorf("Name = %q", s.Name(id))
	}

	v := s.AddComponent(id, 3, 2)
	v[1] = 7
	if got := s.Component(id, 3); !reflect.DeepEqual(got, entity.Values{0, 7}) {
		t.Errorf("Component = %v", got)
	}
	if got := s.AddComponent(id, 3, 2); got[1] != 7 {
		t.Error("AddComponent of a present component with the same count reset it")
	}
	if got := s.AddComponent(id, 3, 3); !reflect.DeepEqual(got, entity.Values{0, 0, 0}) {
		t.Errorf("AddComponent with a new count = %v, want zeros", got)
	}
	s.AddComponent(id, 1, 1)
	var types []int
	s.EachComponent(id, func(typ int, _ entity.Values) { types = append(types, typ) })
	if !reflect.DeepEqual(types, []int{1, 3}) {
		t.Errorf("EachComponent types = %v", types)
	}
	s.RemoveComponent(id, 3)
	if s.Component(id, 3) != nil || s.Component(id, 1) == nil || s.Component(id, -1) != nil || s.AddComponent(id, -1, 1) != nil {
		t.Error("RemoveComponent or a bad type index misbehaved")
	}

	s.Destroy(id)
	again := s.Create()
	if again.Slot != id.Slot || s.Rigidbody(again) != nil || s.Controller(again) != nil || s.Body(again) != nil ||
		s.Name(again) != "" || s.Component(again, 1) != nil {
		t.Error("a slot's new occupant inherited components")
	}
	if name, props := s.Behavior(again); name != "" || props != nil {
		t.Error("a slot's new occupant inherited a behavior")
	}
}

func near(a, b entity.Transform) bool {
	const eps = 1e-12
	return math.Abs(a.X-b.X) < eps && math.Abs(a.Y-b.Y) < eps && math.Abs(a.Angle-b.Angle) < eps && math.Abs(a.Scale-b.Scale) < eps
}

func TestCompose(t *testing.T) {
	for _, tt := range []struct {
		parent, local, want entity.Transform
	}{
		{entity.Identity, entity.Transform{X: 1, Y: 2, Angle: 0.3, Scale: 2}, entity.Transform{X: 1, Y: 2, Angle: 0.3, Scale: 2}},
		{entity.Transform{X: 10, Y: 0, Scale: 1}, entity.Transform{X: 1, Y: 2, Scale: 1}, entity.Transform{X: 11, Y: 2, Scale: 1}},
		// A quarter turn maps local +x to parent +y and local +y to -x.
		{entity.Transform{Angle: math.Pi / 2, Scale: 1}, entity.Transform{X: 1, Scale: 1}, entity.Transform{Y: 1, Angle: math.Pi / 2, Scale: 1}},
		{entity.Transform{X: 5, Y: 5, Angle: math.Pi / 2, Scale: 2}, entity.Transform{X: 1, Y: 1, Angle: 0.5, Scale: 0.5},
			entity.Transform{X: 3, Y: 7, Angle: math.Pi/2 + 0.5, Scale: 1}},
	} {
		if got := Compose(tt.parent, tt.local); !near(got, tt.want) {
			t.Errorf("Compose(%+v, %+v) = %+v, want %+v", tt.parent, tt.local, got, tt.want)
		}
	}
}

func TestStoreWorldTransform(t *testing.T) {
	s := NewStore()
	a, b, c := s.Create(), s.Create(), s.Create()
	*s.Transform(a) = entity.Transform{X: 5, Y: 5, Angle: math.Pi / 2, Scale: 2}
	*s.Transform(b) = entity.Transform{X: 1, Y: 1, Angle: math.Pi / 2, Scale: 0.5}
	*s.Transform(c) = entity.Transform{X: 2, Scale: 1}
	mustSetParent(t, s, b, a)
	mustSetParent(t, s, c, b)
	// b in the world: (5,5) + 2·rot90(1,1) = (3,7), angle π, scale 1;
	// c: (3,7) + 1·rot180(2,0) = (1,7).
	want := entity.Transform{X: 1, Y: 7, Angle: math.Pi, Scale: 1}
	if got := s.WorldTransform(c); !near(got, want) {
		t.Errorf("WorldTransform = %+v, want %+v", got, want)
	}
	if got := s.WorldTransform(a); got != *s.Transform(a) {
		t.Errorf("a root's world transform = %+v, want its own", got)
	}
	if got := s.WorldTransform(entity.ID{Slot: 99, Gen: 1}); got != entity.Identity {
		t.Errorf("WorldTransform of a dead ID = %+v", got)
	}
}

// BenchmarkStoreTick walks every entity the way a tick does: look up its
// transform and rigidbody and move it. It should not allocate.
func BenchmarkStoreTick(b *testing.B) {
	s := NewStore()
	for range 1000 {
		id := s.Create()
		s.SetRigidbody(id, &entity.Rigidbody{VX: 1, Awake: true})
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Each(func(id entity.ID) bool {
			if rb := s.Rigidbody(id); rb != nil {
				s.Transform(id).X += rb.VX / 64
			}
			return true
		})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/entity")
}

// BenchmarkInstantiate spawns and destroys a three-entity prefab, as a
// pickup spawner does.
func BenchmarkInstantiate(b *testing.B) {
	p, err := project.ParsePrefab("crate.toml", readTestdata(b, "project/prefabs/crate.toml"))
	if err != nil {
		b.Fatal(err)
	}
	s := NewStore()
	b.ReportAllocs()
	for b.Loop() {
		root, _, err := Instantiate(s, p, entity.Identity, arenaSchema)
		if err != nil {
			b.Fatal(err)
		}
		s.Destroy(root)
	}
}
