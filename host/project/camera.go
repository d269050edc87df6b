package project

import (
	"math"
	"slices"

	"vkm/internal/entity"
)

// Camera is how the reference client's page frames the world, read from
// project.toml's [camera] table: what it centres on and how wide it is
// (ViewWidth, metres across). A behavior may change it while the game
// runs (docs/lua.md, "The camera").
type Camera struct {
	// Mode is "follow" (the own entity, the default), "fixed" (Center) or
	// "fit" (Box, or the whole level when Box is empty).
	Mode string
	// Center is where a fixed camera looks.
	Center entity.Vec2
	// Box is the area a fit camera shows whole: its lower left and upper
	// right corners. Zero is the level: every drawn body.
	Box [2]entity.Vec2
	// MinWidth and MaxWidth bound the width the player may zoom to with
	// the mouse wheel, and the width a fit camera takes (0: no bound).
	MinWidth, MaxWidth float64
}

// CameraModes are the camera's modes.
var CameraModes = []string{"follow", "fixed", "fit"}

// readCamera reads [camera] into p.
func readCamera(root *tomlTable, p *Project) {
	p.Camera = Camera{Mode: "follow"}
	t, ok := root.table("camera")
	if !ok {
		return
	}
	t.only()
	c := &p.Camera
	if m, ok := t.str("mode"); ok {
		if !slices.Contains(CameraModes, m) {
			t.fail("mode", "%q is not a camera mode: use \"follow\" (the own entity), \"fixed\" (center) or \"fit\" (box, or the level)", m)
		}
		c.Mode = m
	}
	center, hasCenter := t.vec2("center", "[x, y]")
	switch {
	case c.Mode == "fixed" && !t.has("center"):
		t.fail("mode", "a fixed camera needs center = [x, y], where it looks")
	case hasCenter && c.Mode != "fixed":
		t.fail("center", "only a fixed camera has a center (mode = \"fixed\")")
	}
	c.Center = center
	if box, ok := t.points("box"); ok {
		switch {
		case c.Mode != "fit":
			t.fail("box", "only a fit camera has a box (mode = \"fit\")")
		case len(box) != 2:
			t.fail("box", "must be two corners, [[minX, minY], [maxX, maxY]]; it has %d points", len(box))
		case !(box[0].X < box[1].X && box[0].Y < box[1].Y):
			t.fail("box", "the first corner must be below and left of the second: [[minX, minY], [maxX, maxY]]")
		default:
			c.Box = [2]entity.Vec2{box[0], box[1]}
		}
	}
	c.MinWidth = readWidth(t, "minWidth")
	c.MaxWidth = readWidth(t, "maxWidth")
	if c.MinWidth > 0 && c.MaxWidth > 0 && c.MinWidth > c.MaxWidth {
		t.fail("maxWidth", "%v is below minWidth (%v)", c.MaxWidth, c.MinWidth)
	}
}

func readWidth(t *tomlTable, key string) float64 {
	w, ok := t.number(key)
	if !ok {
		return 0
	}
	if !(w >= 1 && w <= MaxViewWidth) || math.IsNaN(w) {
		t.fail(key, "%v is not a width from 1 to %d metres", w, MaxViewWidth)
	}
	return w
}
