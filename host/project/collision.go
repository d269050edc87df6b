package project

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"vkm/internal/entity"
)

// Collision categories. A shape is in one or more categories and collides
// with those its mask names; the names are the project's, declared once in
// project.toml's [collision] categories, and stand for box2d's category
// bits: DefaultCategory is bit 0, every shape's category unless it names
// others, and each declared name takes the next bit in order.
const (
	// DefaultCategory is the category of a shape that names none. A mask
	// may name it.
	DefaultCategory = "default"
	// MaxCategories is how many names [collision] categories may declare:
	// box2d has 16 category bits, and DefaultCategory takes one.
	MaxCategories = 15
)

// Categories are a project's declared collision category names, in the
// order they take bits 1, 2, ... (DefaultCategory is bit 0 and is not in
// the list). The zero Categories declares none: shapes may then name only
// DefaultCategory.
type Categories []string

// Names returns every category name in bit order, DefaultCategory first.
func (c Categories) Names() []string { return append([]string{DefaultCategory}, c...) }

// Bit returns the category bit of name, and false for a name that is not
// a category.
func (c Categories) Bit(name string) (uint16, bool) {
	if name == DefaultCategory {
		return 1, true
	}
	if i := slices.Index(c, name); i >= 0 {
		return 1 << (i + 1), true
	}
	return 0, false
}

// Bits returns the bits of names together, or an error saying which name
// is not a category, with the nearest that is.
func (c Categories) Bits(names []string) (uint16, error) {
	var out uint16
	for _, n := range names {
		b, ok := c.Bit(n)
		if !ok {
			return 0, c.unknown(n)
		}
		out |= b
	}
	return out, nil
}

// unknown is the error for a name that is not a category.
func (c Categories) unknown(n string) error {
	hint := ""
	if s := closestKey(n, c.Names()); s != "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	if len(c) == 0 {
		return fmt.Errorf("%q is not a collision category: %sdeclare it in project.toml, [collision] categories = [%q], or leave the shape in the default category", n, hint, n)
	}
	return fmt.Errorf("%q is not a collision category: %sthe categories are %s (declared in project.toml's [collision] categories)", n, hint, strings.Join(c.Names(), ", "))
}

// NamesOf returns the names of the categories in bits, in bit order; a bit
// with no name is written as its number ("bit 9").
func (c Categories) NamesOf(b uint16) []string {
	var out []string
	for b != 0 {
		i := bits.TrailingZeros16(b)
		b &^= 1 << i
		switch {
		case i == 0:
			out = append(out, DefaultCategory)
		case i <= len(c):
			out = append(out, c[i-1])
		default:
			out = append(out, fmt.Sprintf("bit %d", i))
		}
	}
	return out
}

// readCollision reads project.toml's [collision] table.
func readCollision(root *tomlTable, p *Project) {
	ct, ok := root.table("collision")
	if !ok {
		return
	}
	ct.only()
	names, ok := ct.strList("categories")
	if !ok {
		return
	}
	if len(names) > MaxCategories {
		ct.fail("categories", "declares %d categories; box2d has room for %d besides %q", len(names), MaxCategories, DefaultCategory)
		return
	}
	for i, n := range names {
		switch {
		case !isIdentifier(n):
			ct.fail(indexPath("categories", i), "%q is not a name: letters, digits and _, not starting with a digit", n)
			return
		case n == DefaultCategory:
			ct.fail(indexPath("categories", i), "%q is every shape's category unless it names others, and is there without being declared", n)
			return
		case slices.Contains(names[:i], n):
			ct.fail(indexPath("categories", i), "%q is declared twice", n)
			return
		}
	}
	p.Categories = names
}

// readFilter reads a shape's category, mask, group and oneWay.
func readFilter(t *tomlTable, sh *entity.Shape) {
	cats := t.doc.categories
	if names, ok := t.nameList("category"); ok {
		if len(names) == 0 {
			t.fail("category", "names no category; leave category out for the default one")
		} else if b, err := cats.Bits(names); err != nil {
			t.fail("category", "%v", err)
		} else {
			sh.Category = b
		}
	}
	if names, ok := t.nameList("mask"); ok {
		if len(names) == 0 {
			t.fail("mask", "names no category, so the shape would collide with nothing: make it a sensor, or name the categories it collides with")
		} else if b, err := cats.Bits(names); err != nil {
			t.fail("mask", "%v", err)
		} else {
			sh.Mask = b
		}
	}
	if g, ok := t.integer("group"); ok {
		if g < math.MinInt16 || g > math.MaxInt16 {
			t.fail("group", "%d is out of range (%d..%d)", g, math.MinInt16, math.MaxInt16)
		} else {
			sh.Group = int16(g)
		}
	}
	sh.OneWay, _ = t.boolean("oneWay")
}

// nameList reads a string or a list of strings.
func (t *tomlTable) nameList(key string) ([]string, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	if s, ok := v.(string); ok {
		return []string{s}, true
	}
	if _, ok := v.([]any); !ok {
		t.fail(key, "must be a category's name or a list of them, not %s", describeTOML(v))
		return nil, false
	}
	return t.strList(key)
}
