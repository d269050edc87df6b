package project

import (
	"slices"
	"testing"
)

const collisionProject = minimalProject + `
[collision]
categories = ["player", "bullet", "crate"]
`

// TestCollisionCategories reads [collision] and turns names into bits and
// back: "default" is bit 0 without being declared, each name the next bit.
func TestCollisionCategories(t *testing.T) {
	p, err := ParseProject("p/project.toml", []byte(collisionProject))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Categories, Categories{"player", "bullet", "crate"}) {
		t.Fatalf("Categories = %v", p.Categories)
	}
	if b, err := p.Categories.Bits([]string{"default", "crate"}); err != nil || b != 1|1<<3 {
		t.Errorf("Bits(default, crate) = %b, %v; want 1001", b, err)
	}
	if got := p.Categories.NamesOf(1<<1 | 1<<2 | 1<<9); !slices.Equal(got, []string{"player", "bullet", "bit 9"}) {
		t.Errorf("NamesOf = %v", got)
	}
	if _, err := p.Categories.Bits([]string{"bulet"}); err == nil || err.Error() != `"bulet" is not a collision category: did you mean "bullet"? the categories are default, player, bullet, crate (declared in project.toml's [collision] categories)` {
		t.Errorf("Bits(bulet): %v", err)
	}
}

// TestCollisionCategoryErrors refuses each bad [collision] with the key
// and line.
func TestCollisionCategoryErrors(t *testing.T) {
	for _, tc := range []struct {
		body, key string
		frag      string
	}{
		{`categories = ["a b"]`, "collision.categories", "not a name"},
		{`categories = ["default"]`, "collision.categories", "without being declared"},
		{`categories = ["x", "y", "x"]`, "collision.categories", "declared twice"},
		{`categories = ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p"]`, "collision.categories", "declares 16 categories"},
		{`categories = "player"`, "collision.categories", "list of strings"},
		{`mask = ["player"]`, "collision.mask", "unknown key"},
	} {
		_, err := ParseProject("p/project.toml", []byte(minimalProject+"[collision]\n"+tc.body+"\n"))
		wantConfigError(t, err, "p/project.toml", 5, tc.key, tc.frag)
	}
}

// TestShapeFilters reads category, mask, group and oneWay from a scene of
// a project that declares categories, and refuses names it does not.
func TestShapeFilters(t *testing.T) {
	p, err := ParseProject("p/project.toml", []byte(collisionProject))
	if err != nil {
		t.Fatal(err)
	}
	const scene = `[[entity]]
id = 1
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.1
category = "bullet"
mask = ["default", "crate"]
group = -2
[[entity.body.shape]]
box = [1.0, 1.0]
category = ["player", "crate"]
oneWay = true
`
	sc, err := p.ParseScene("s.toml", []byte(scene))
	if err != nil {
		t.Fatal(err)
	}
	sh := sc.Entities[0].Body.Shapes
	if sh[0].Category != 1<<2 || sh[0].Mask != 1|1<<3 || sh[0].Group != -2 || sh[0].OneWay {
		t.Errorf("bullet shape %+v", sh[0])
	}
	if sh[1].Category != 1<<1|1<<3 || sh[1].Mask != 0 || sh[1].Group != 0 || !sh[1].OneWay {
		t.Errorf("second shape %+v", sh[1])
	}
	if _, err := ParseScene("s.toml", []byte(scene)); err == nil {
		t.Error("a scene naming categories parsed without its project's")
	} else {
		wantConfigError(t, err, "s.toml", 7, "entity.body.shape.category", `"bullet" is not a collision category`, "[collision] categories")
	}
	for _, tc := range []struct {
		line, key, frag string
	}{
		{`category = "bulet"`, "entity.body.shape.category", `did you mean "bullet"?`},
		{`mask = []`, "entity.body.shape.mask", "collide with nothing"},
		{`category = []`, "entity.body.shape.category", "names no category"},
		{`mask = 3`, "entity.body.shape.mask", "a category's name or a list of them"},
		{`group = 40000`, "entity.body.shape.group", "out of range"},
		{"sensor = true\noneWay = true", "entity.body.shape.oneWay", "a sensor stops nothing"},
	} {
		src := "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1.0, 1.0]\n" + tc.line + "\n"
		_, err := p.ParseScene("s.toml", []byte(src))
		line := 7
		if tc.key == "entity.body.shape.oneWay" {
			line = 8
		}
		wantConfigError(t, err, "s.toml", line, tc.key, tc.frag)
	}
}

// TestExtendedProjectKeepsItsCategories: a project that extends another
// and says nothing of [collision] has the other's categories; one that
// declares its own has those.
func TestExtendedProjectKeepsItsCategories(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"base/project.toml":      collisionProject,
		"base/scenes/arena.toml": "",
		"base/scripts/main.lua":  "",
		"same/project.toml":      "extends = \"../base\"\n",
		"other/project.toml":     "extends = \"../base\"\n[collision]\ncategories = [\"ghost\"]\n",
	})
	for name, want := range map[string]Categories{"same": {"player", "bullet", "crate"}, "other": {"ghost"}} {
		p, err := LoadProject(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Categories, want) {
			t.Errorf("%s: categories %v, want %v", name, p.Categories, want)
		}
	}
}
