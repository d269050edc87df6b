package store

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"vkm/host/project"
	"vkm/internal/entity"
)

// testSchema resolves components the way the game loop's schema does: by
// type name, fields in the type's order, every value a number.
type testSchema map[string][]string

var arenaSchema = testSchema{"Health": {"hp"}, "Score": {"kills", "deaths"}}

func (s testSchema) Resolve(c project.ComponentDef) (int, entity.Values, error) {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	typ := -1
	for i, n := range sortedStrings(names) {
		if n == c.Type {
			typ = i
		}
	}
	if typ < 0 {
		return 0, nil, fmt.Errorf("no component type %q is registered", c.Type)
	}
	fields := s[c.Type]
	v := make(entity.Values, len(fields))
	for k, x := range c.Fields {
		i := -1
		for j, f := range fields {
			if f == k {
				i = j
			}
		}
		n, ok := x.(float64)
		if i < 0 || !ok {
			return 0, nil, fmt.Errorf("%s has no number field %q", c.Type, k)
		}
		v[i] = n
	}
	return typ, v, nil
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func loadTestScene(t testing.TB) *project.Scene {
	t.Helper()
	sc, err := project.ParseScene("level.toml", readTestdata(t, "project/scenes/level.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func loadTestPrefab(t testing.TB) *project.Prefab {
	t.Helper()
	p, err := project.ParsePrefab("crate.toml", readTestdata(t, "project/prefabs/crate.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadSceneKeepsSlots(t *testing.T) {
	s := NewStore()
	sc := loadTestScene(t)
	ids, err := LoadScene(s, sc, arenaSchema)
	if err != nil {
		t.Fatal(err)
	}
	want := []entity.ID{{Slot: 1, Gen: 1}, {Slot: 7, Gen: 1}, {Slot: 8, Gen: 1}, {Slot: 3, Gen: 1}}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids = %v, want %v (each in its recorded slot, file order)", ids, want)
	}
	floor, crate, marker, walker := ids[0], ids[1], ids[2], ids[3]
	if s.Len() != 4 || s.Name(walker) != "walker" {
		t.Errorf("Len = %d, walker's name %q", s.Len(), s.Name(walker))
	}
	if s.Parent(marker) != crate || !reflect.DeepEqual(s.Children(crate), []entity.ID{marker}) {
		t.Errorf("marker's parent = %v", s.Parent(marker))
	}
	if s.Rigidbody(floor) != nil {
		t.Error("a static body got a Rigidbody")
	}
	for _, id := range []entity.ID{crate, walker} {
		if rb := s.Rigidbody(id); rb == nil || *rb != (entity.Rigidbody{Awake: true}) {
			t.Errorf("%v: Rigidbody = %+v, want an awake one", id, rb)
		}
	}
	if s.Rigidbody(marker) != nil || s.Body(marker) != nil {
		t.Error("the marker got a body")
	}
	if b := s.Body(crate); b == nil || b == sc.Entities[1].Body || !reflect.DeepEqual(b, sc.Entities[1].Body) {
		t.Errorf("crate's body = %+v, want a copy of the scene's", b)
	}
	if c := s.Controller(walker); c == nil || c.JumpSpeed != 14 || c.Speed != 8 {
		t.Errorf("walker's controller = %+v", c)
	}
	if got := *s.Transform(marker); got != (entity.Transform{Y: 1, Scale: 0.5}) {
		t.Errorf("marker's local transform = %+v", got)
	}
	if got := s.WorldTransform(marker); math.Abs(got.X-(2-math.Sin(0.5))) > 1e-12 || math.Abs(got.Y-(3+math.Cos(0.5))) > 1e-12 {
		t.Errorf("marker's world transform = %+v", got)
	}
	name, props := s.Behavior(marker)
	if name != "blink" || !reflect.DeepEqual(props, sc.Entities[2].Props) {
		t.Errorf("marker's behavior = %q %v", name, props)
	}
	props["steps"].([]any)[0] = 99.0
	if sc.Entities[2].Props["steps"].([]any)[0] != 1.0 {
		t.Error("the instance's props share storage with the scene's")
	}
	if got := s.Component(walker, 0); !reflect.DeepEqual(got, entity.Values{100}) {
		t.Errorf("walker's Health = %v", got)
	}
	if got := s.Component(walker, 1); !reflect.DeepEqual(got, entity.Values{0, 0}) {
		t.Errorf("walker's Score = %v", got)
	}
}

func TestLoadSceneLeavesNothingOnError(t *testing.T) {
	sc := loadTestScene(t)
	t.Run("slot taken", func(t *testing.T) {
		s := NewStore()
		taken := mustCreateAt(t, s, 8)
		_, err := LoadScene(s, sc, arenaSchema)
		wantConfigError(t, err, "level.toml", 23, "entity.id", "slot 8 is taken by 8#1")
		if s.Len() != 1 || !s.Alive(taken) {
			t.Errorf("store after a failed load: Len = %d", s.Len())
		}
		if id := s.Create(); id.Slot != 0 {
			t.Errorf("Create after a failed load = %v, want slot 0", id)
		}
	})
	t.Run("resolver error", func(t *testing.T) {
		s := NewStore()
		_, err := LoadScene(s, sc, testSchema{"Health": {"hp"}})
		wantConfigError(t, err, "level.toml", 48, "entity.components.Score", `no component type "Score" is registered`)
		if s.Len() != 0 {
			t.Errorf("store after a failed load holds %v", s.AppendIDs(nil))
		}
	})
	t.Run("no resolver", func(t *testing.T) {
		s := NewStore()
		_, err := LoadScene(s, sc, nil)
		wantConfigError(t, err, "level.toml", 50, "entity.components.Health", "vkmSetupNetwork registers them")
		if s.Len() != 0 {
			t.Errorf("store after a failed load holds %v", s.AppendIDs(nil))
		}
	})
	t.Run("invalid scene built in code", func(t *testing.T) {
		s := NewStore()
		bad := &project.Scene{File: "built", Entities: []project.EntityDef{{ID: 1, Transform: entity.Identity}, {ID: 1, Transform: entity.Identity}}}
		if _, err := LoadScene(s, bad, nil); err == nil || s.Len() != 0 {
			t.Errorf("duplicate slots: error %v, Len %d", err, s.Len())
		}
	})
}

func TestLoadSceneResolverErrorUnwraps(t *testing.T) {
	sentinel := errors.New("boom")
	_, err := LoadScene(NewStore(), loadTestScene(t), failingResolver{sentinel})
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v does not wrap the resolver's", err)
	}
}

type failingResolver struct{ err error }

func (f failingResolver) Resolve(project.ComponentDef) (int, entity.Values, error) {
	return 0, nil, f.err
}

func TestInstantiateIntoFreeSlots(t *testing.T) {
	s := NewStore()
	for _, slot := range []uint32{0, 1, 3} {
		mustCreateAt(t, s, slot)
	}
	p := loadTestPrefab(t)
	pose := entity.Transform{X: 10, Y: 20, Angle: math.Pi / 2, Scale: 1}
	root, slots, err := Instantiate(s, p, pose, arenaSchema)
	if err != nil {
		t.Fatal(err)
	}
	// File order is crate (uid 10), light (20), label (30); slots 0, 1 and 3
	// are taken.
	want := map[uint32]entity.ID{10: {Slot: 2, Gen: 1}, 20: {Slot: 4, Gen: 1}, 30: {Slot: 5, Gen: 1}}
	if !reflect.DeepEqual(slots, want) || root != want[10] {
		t.Fatalf("root %v, slots %v, want %v", root, slots, want)
	}
	if s.Parent(slots[30]) != root || s.Parent(slots[20]) != slots[30] || s.Parent(root) != entity.None {
		t.Error("parents are not mapped by uid")
	}
	// The root's authored transform (x = 1) is composed with the pose.
	if got := *s.Transform(root); !near(got, entity.Transform{X: 10, Y: 21, Angle: math.Pi / 2, Scale: 1}) {
		t.Errorf("root transform = %+v", got)
	}
	if got := *s.Transform(slots[30]); got != (entity.Transform{Y: 1, Scale: 1}) {
		t.Errorf("a child's transform = %+v, want its authored local one", got)
	}
	if got := s.WorldTransform(slots[20]); !near(got, entity.Transform{X: 8.75, Y: 21, Angle: math.Pi / 2, Scale: 1}) {
		t.Errorf("light's world transform = %+v", got)
	}
	if rb := s.Rigidbody(root); rb == nil || !rb.Awake {
		t.Errorf("root's Rigidbody = %+v", rb)
	}
	if got := s.Component(root, 0); !reflect.DeepEqual(got, entity.Values{50}) {
		t.Errorf("root's Health = %v", got)
	}

	// A second copy takes the next free slots and its own props.
	root2, slots2, err := Instantiate(s, p, entity.Transform{X: -3}, arenaSchema)
	if err != nil {
		t.Fatal(err)
	}
	if root2.Slot != 6 || slots2[30].Slot != 8 {
		t.Errorf("second copy at %v, %v", root2, slots2)
	}
	if got := *s.Transform(root2); got != (entity.Transform{X: -2, Scale: 1}) {
		t.Errorf("a pose with Scale 0 gave root transform %+v, want unscaled", got)
	}
	_, props := s.Behavior(root)
	_, props2 := s.Behavior(root2)
	props["hp"] = 0.0
	if props2["hp"] != 3.0 {
		t.Error("two instances share props")
	}
}

func TestInstantiateLeavesNothingOnError(t *testing.T) {
	s := NewStore()
	keep := s.Create()
	p := loadTestPrefab(t)
	if _, _, err := Instantiate(s, p, entity.Identity, testSchema{}); err == nil {
		t.Fatal("no error for an unresolvable component")
	}
	if _, _, err := Instantiate(s, p, entity.Transform{X: math.Inf(1)}, arenaSchema); err == nil {
		t.Fatal("no error for a non-finite pose")
	}
	if s.Len() != 1 || !s.Alive(keep) {
		t.Errorf("store after failed instantiations: %v", s.AppendIDs(nil))
	}
	bad := *p
	bad.Root = 1
	if _, _, err := Instantiate(s, &bad, entity.Identity, arenaSchema); err == nil {
		t.Error("no error for a Root that is not the root")
	}
}

func TestInstantiateIntoTheSlotsASpawnNames(t *testing.T) {
	p, err := project.ParsePrefab("pair.toml", []byte(`
[[entity]]
uid = 10
name = "pair"
[[entity]]
uid = 11
name = "pair-child"
parent = 10
[[entity]]
uid = 12
name = "pair-other"
parent = 10
`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	root, err := s.CreateAt(40)
	if err != nil {
		t.Fatal(err)
	}
	got, slots, err := InstantiateInto(s, p, entity.Identity, nil, map[uint32]entity.ID{10: root}, map[uint32]uint32{11: 41})
	if err != nil {
		t.Fatal(err)
	}
	if got != root || slots[10] != root || slots[11].Slot != 41 || s.Parent(slots[11]) != root {
		t.Fatalf("root %v, slots %v", got, slots)
	}
	if slots[12].Slot != 0 || !s.Instanced(slots[11]) || !s.Instanced(slots[12]) || s.Instanced(root) {
		t.Fatalf("unnamed uid in slot %d; instanced: child %v other %v root %v",
			slots[12].Slot, s.Instanced(slots[11]), s.Instanced(slots[12]), s.Instanced(root))
	}
	// A named slot that is taken here: that entity goes to the lowest free
	// slot instead, and the caller can see where.
	s2 := NewStore()
	root2, _ := s2.CreateAt(40)
	squatter, _ := s2.CreateAt(41)
	_, slots2, err := InstantiateInto(s2, p, entity.Identity, nil, map[uint32]entity.ID{10: root2}, map[uint32]uint32{11: 41})
	if err != nil {
		t.Fatal(err)
	}
	if slots2[11].Slot == 41 || !s2.Alive(squatter) || s2.Parent(slots2[11]) != root2 {
		t.Fatalf("uid 11 went to %v over the squatter in 41", slots2[11])
	}
}

// TestInstancesRecordTheirOrigin: every entity of an instance, the root it
// was built into included, records the prefab's path and its uid, so a
// reload of the file finds it; a prefab with no path records nothing, and
// a freed slot's next occupant starts with none.
func TestInstancesRecordTheirOrigin(t *testing.T) {
	p, err := project.ParsePrefab("pair.toml", []byte(`
[[entity]]
uid = 10
name = "pair"
[[entity]]
uid = 11
name = "pair-child"
parent = 10
`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	bare, _, _ := Instantiate(s, p, entity.Identity, nil)
	if o := s.Origin(bare); o != (Origin{}) {
		t.Fatalf("a prefab with no path gave its root origin %+v", o)
	}
	p.Path = "prefabs/pair.toml"
	root, _ := s.CreateAt(40)
	_, slots, err := InstantiateInto(s, p, entity.Identity, nil, map[uint32]entity.ID{10: root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := s.Origin(root); o != (Origin{Prefab: "prefabs/pair.toml", UID: 10}) {
		t.Fatalf("root origin %+v", o)
	}
	if o := s.Origin(slots[11]); o != (Origin{Prefab: "prefabs/pair.toml", UID: 11}) {
		t.Fatalf("child origin %+v", o)
	}
	s.Destroy(root)
	if again, _ := s.CreateAt(40); s.Origin(again) != (Origin{}) {
		t.Fatalf("the slot's next occupant has origin %+v", s.Origin(again))
	}
}

// TestPartsAreLetGoOfTheHierarchy: a prefab's bodies below its root are
// placed in the world where their parents put them, taken out of the
// hierarchy (a body moves in the world), and still go with the root:
// Members lists them and destroying the root destroys them; a part
// destroyed alone leaves the instance. A part is refused a scaled spawn.
func TestPartsAreLetGoOfTheHierarchy(t *testing.T) {
	p, err := project.ParsePrefab("cart.toml", []byte(`
[[entity]]
uid = 1
name = "cart"
transform = { x = 0.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [2.0, 0.5]
[[entity]]
uid = 2
name = "wheel"
parent = 1
transform = { x = 1.0, y = -0.5 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.3
[[entity]]
uid = 3
name = "hub"
parent = 2
[[entity]]
uid = 4
name = "flag"
parent = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	root, slots, err := Instantiate(s, p, entity.Transform{X: 10, Y: 0, Angle: math.Pi / 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wheel, hub, flag := slots[2], slots[3], slots[4]
	got := *s.Transform(wheel)
	if s.Parent(wheel) != entity.None || math.Abs(got.X-9.5) > 1e-12 || math.Abs(got.Y-1) > 1e-12 || got.Angle != math.Pi/2 {
		t.Fatalf("wheel: parent %v, transform %+v; want a root at (9.5, 1) turned a quarter", s.Parent(wheel), got)
	}
	if s.Parent(hub) != wheel || s.Parent(flag) != root || s.PartOf(wheel) != root || !s.PartOf(flag).IsNone() {
		t.Fatalf("hub's parent %v, flag's %v, wheel part of %v, flag part of %v", s.Parent(hub), s.Parent(flag), s.PartOf(wheel), s.PartOf(flag))
	}
	if m := s.Members(root); len(m) != 4 || m[0] != root {
		t.Fatalf("members %v", m)
	}
	if gone := s.Destroy(root); len(gone) != 4 || s.Len() != 0 {
		t.Fatalf("destroying the root destroyed %v and left %d", gone, s.Len())
	}
	root, slots, _ = Instantiate(s, p, entity.Identity, nil)
	s.Destroy(slots[2])
	if m := s.Members(root); len(m) != 2 {
		t.Fatalf("after the wheel went alone, members %v", m)
	}
	if _, _, err := Instantiate(s, p, entity.Transform{Scale: 2}, nil); err == nil || !strings.Contains(err.Error(), "scale 1") {
		t.Fatalf("a scaled spawn of several bodies: %v", err)
	}
}
