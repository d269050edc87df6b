package project

import (
	"slices"
	"strings"

	"vkm/internal/entity"
)

// Sprite is an image the reference client draws for an entity instead of
// its shapes, read from [entity.look.sprite]: a PNG from the project
// folder, or one frame of a sprite sheet cut into a grid, animated by named
// states. An entity with a sprite and no body is a decoration.
type Sprite struct {
	// Image is the PNG's slash-separated path inside the project, cleaned.
	Image string
	// Size is how large it is drawn, in metres ([1, 1] when not set);
	// Offset moves it and Angle turns it in the entity's frame.
	Size   entity.Vec2
	Offset entity.Vec2
	Angle  float64
	// Columns and Rows cut the image into frames, numbered from 0 left to
	// right, top to bottom (1 × 1: the whole image).
	Columns, Rows int
	// Frame is the frame shown when no animation plays.
	Frame int
	// Animations are named states, each a list of frames played at FPS
	// frames a second, looping; Animation is the state at first.
	Animations map[string][]int
	Animation  string
	FPS        float64
	// StateBy picks the state from a component field: value i is
	// States[i] (out of range keeps Animation).
	StateBy Ref
	States  []string
	// Line is the line of its image key, for the error when the image is
	// not in the project (the game checks when it loads the file).
	Line int
}

// Limits of [entity.look.sprite].
const (
	MaxSpriteFrames = 1024 // columns × rows
	MaxSpriteSize   = 1024 // metres, each way
	MaxFPS          = 120
)

// readSprite reads [entity.look.sprite].
func readSprite(t *tomlTable) *Sprite {
	t.only()
	sp := &Sprite{Size: entity.Vec2{X: 1, Y: 1}, Columns: 1, Rows: 1, FPS: 8}
	if !t.has("image") {
		t.fail("image", "a sprite needs image, a PNG in the project folder (e.g. \"art/runner.png\")")
		return nil
	}
	sp.Image = readEntryPath(t, "image", ".png", "a PNG image in the project folder, e.g. \"art/runner.png\"")
	sp.Line = t.lineOf("image")
	if v, ok := t.vec2("size", "[width, height]"); ok {
		if !(v.X > 0 && v.Y > 0 && v.X <= MaxSpriteSize && v.Y <= MaxSpriteSize) {
			t.fail("size", "[%v, %v] is not a size: both above 0 and at most %d metres", v.X, v.Y, MaxSpriteSize)
		}
		sp.Size = v
	}
	if v, ok := t.vec2("offset", "[x, y]"); ok {
		sp.Offset = v
	}
	if a, ok := t.number("angle"); ok {
		sp.Angle = a
	}
	if v, ok := t.vec2("frames", "[columns, rows]"); ok {
		c, r := int(v.X), int(v.Y)
		if float64(c) != v.X || float64(r) != v.Y || c < 1 || r < 1 || c*r > MaxSpriteFrames {
			t.fail("frames", "[%v, %v] is not a grid: whole numbers of columns and rows, at least 1 each and at most %d frames", v.X, v.Y, MaxSpriteFrames)
		}
		sp.Columns, sp.Rows = c, r
	}
	n := sp.Columns * sp.Rows
	checkFrame := func(key string, f int64) bool {
		if f < 0 || f >= int64(n) {
			t.fail(key, "frame %d is not in the sheet's %d frames (0..%d)", f, n, n-1)
			return false
		}
		return true
	}
	if f, ok := t.integer("frame"); ok && checkFrame("frame", f) {
		sp.Frame = int(f)
	}
	if f, ok := t.number("fps"); ok {
		if !(f > 0 && f <= MaxFPS) {
			t.fail("fps", "%v is not a rate from above 0 to %d frames a second", f, MaxFPS)
		}
		sp.FPS = f
	}
	if at, ok := t.table("animations"); ok {
		sp.Animations = map[string][]int{}
		for _, name := range sortedKeys(at.m) {
			if !isIdentifier(name) {
				at.fail(name, "%q is not a state's name: letters, digits and _, not starting with a digit", name)
				break
			}
			list, ok := at.m[name].([]any)
			if !ok || len(list) == 0 {
				at.fail(name, "must be a list of frames, e.g. [0, 1, 2]")
				break
			}
			for _, e := range list {
				f, ok := e.(int64)
				if !ok {
					at.fail(name, "must be a list of whole frame numbers, e.g. [0, 1, 2]")
					return sp
				}
				if !checkFrame("animations."+name, f) {
					return sp
				}
				sp.Animations[name] = append(sp.Animations[name], int(f))
			}
		}
	}
	if a, ok := t.str("animation"); ok {
		if _, known := sp.Animations[a]; !known {
			t.fail("animation", "%q is not one of animations (%s)", a, strings.Join(sortedKeys(sp.Animations), ", "))
		}
		sp.Animation = a
	}
	if s, ok := t.str("stateBy"); ok {
		r, err := parseRef(strings.Trim(s, "{}"))
		if err != nil || r.Name {
			t.fail("stateBy", "%q is not a component field: write \"Type.field\", e.g. \"Anim.state\"", s)
		}
		sp.StateBy = r
	}
	states, ok := t.strList("states")
	switch {
	case ok && sp.StateBy.Type == "":
		t.fail("states", "states are picked by stateBy, which this sprite does not set")
	case !ok && sp.StateBy.Type != "":
		t.fail("stateBy", "stateBy picks one of states, which this sprite does not list (e.g. states = [\"idle\", \"run\"])")
	}
	for _, s := range states {
		if _, known := sp.Animations[s]; !known {
			t.fail("states", "%q is not one of animations", s)
			break
		}
	}
	sp.States = states
	return sp
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
