package project

import "strings"

// MaxColors bounds [entity.look] colors.
const MaxColors = 16

// readLookFields reads the keys of [entity.look] that tie the look to
// component fields: colorBy with colors, and visibleBy.
func readLookFields(t *tomlTable, l *Look) {
	field := func(key string) Ref {
		s, ok := t.str(key)
		if !ok {
			return Ref{}
		}
		r, err := parseRef(strings.Trim(s, "{}"))
		if err != nil || r.Name {
			t.fail(key, "%q is not a component field: write \"Type.field\", e.g. \"Team.side\"", s)
			return Ref{}
		}
		return r
	}
	l.ColorBy = field("colorBy")
	l.VisibleBy = field("visibleBy")
	colors, ok := t.strList("colors")
	switch {
	case ok && l.ColorBy.Type == "":
		t.fail("colors", "colors are picked by colorBy, which this look does not set")
	case !ok && l.ColorBy.Type != "":
		t.fail("colorBy", "colorBy picks one of colors, which this look does not list (e.g. colors = [\"#e44\", \"#48f\"])")
	case len(colors) > MaxColors:
		t.fail("colors", "%d colours; a look lists at most %d", len(colors), MaxColors)
	}
	for _, c := range colors {
		if !isHexColor(c) {
			t.fail("colors", "%q is not a colour: write it as CSS hex, e.g. \"#3fb6ff\"", c)
			return
		}
	}
	l.Colors = colors
}
