package store

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"vkm/host/project"
	"vkm/internal/entity"
)

// What the project parsers accept loads into a Store: a scene into an
// empty one, a prefab as many times as it is instantiated. The parsers'
// own fuzz targets (package project) check what they refuse.

// addFileSeeds adds the test project's and the example game's files
// matching glob, and each of srcs, to f's corpus.
func addFileSeeds(f *testing.F, glob string, srcs ...string) {
	for _, dir := range []string{"../project/testdata/project", "../../projects/arena"} {
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range srcs {
		f.Add([]byte(s))
	}
}

func FuzzLoadScene(f *testing.F) {
	addFileSeeds(f, "scenes/*.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := project.ParseScene("scene.toml", data)
		if err != nil {
			return
		}
		s := NewStore()
		ids, err := LoadScene(s, sc, anySchema{})
		if err != nil {
			t.Fatalf("a parsed scene does not load into an empty store: %v", err)
		}
		if s.Len() != len(sc.Entities) {
			t.Fatalf("loaded %d entities of %d", s.Len(), len(sc.Entities))
		}
		for _, id := range ids {
			w := s.WorldTransform(id)
			if !(math.Abs(w.X) <= 1e300) || !(math.Abs(w.Y) <= 1e300) || !(w.Scale > 0) {
				t.Fatalf("world transform of %v = %+v", id, w)
			}
			s.Destroy(id)
		}
		if s.Len() != 0 {
			t.Fatalf("%d entities left after destroying all", s.Len())
		}
	})
}

func FuzzInstantiatePrefab(f *testing.F) {
	addFileSeeds(f, "prefabs/*.toml",
		"[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 1\n[[entity]]\nuid = 3\nparent = 2\n",
		"[[entity]]\nuid = 1\nparent = 2\n[[entity]]\nuid = 2\nparent = 1\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := project.ParsePrefab("prefab.toml", data)
		if err != nil {
			return
		}
		s := NewStore()
		s.Create()
		for range 2 {
			root, slots, err := Instantiate(s, p, entity.Transform{X: 1, Y: 2, Angle: 3}, anySchema{})
			if err != nil {
				t.Fatalf("a parsed prefab does not instantiate: %v", err)
			}
			if len(slots) != len(p.Entities) || slots[p.Entities[p.Root].ID] != root || s.Parent(root) != entity.None {
				t.Fatalf("root %v, slots %v", root, slots)
			}
		}
		if s.Len() != 1+2*len(p.Entities) {
			t.Fatalf("Len = %d after two copies of %d entities", s.Len(), len(p.Entities))
		}
	})
}

// anySchema resolves every component: type by name in first-seen order,
// one zero value per field.
type anySchema map[string]int

func (a anySchema) Resolve(c project.ComponentDef) (int, entity.Values, error) {
	typ, ok := a[c.Type]
	if !ok {
		typ = len(a)
		a[c.Type] = typ
	}
	return typ, make(entity.Values, len(c.Fields)), nil
}
