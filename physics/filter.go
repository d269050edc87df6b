package physics

import (
	"fmt"

	"vkm/internal/entity"
)

// Filter is a shape's collision filter as entity.Shape holds it: the
// categories it is in, those it collides with, and its group; zero
// category and mask are box2d's defaults (category 1; every category).
type Filter struct {
	Category, Mask uint16
	Group          int16
}

// ShapeFilter returns the filter of shape i of id's body as box2d holds
// it (a default is 1 for the category, 0xFFFF for the mask), and false
// when there is no such shape.
func (w *World) ShapeFilter(id entity.ID, i int) (Filter, bool) {
	r, ok := w.byID[id]
	if !ok {
		return Filter{}, false
	}
	f := fixtureAt(r.b, int32(i))
	if f == nil {
		return Filter{}, false
	}
	return Filter{Category: f.M_filter.CategoryBits, Mask: f.M_filter.MaskBits, Group: f.M_filter.GroupIndex}, true
}

// SetFilter changes the collision filter of shape i of id's body. Pairs
// it no longer collides with stop touching at the next step, and pairs it
// now collides with are looked for then; the body is woken, so a crate
// resting on a floor it no longer collides with falls through it. It
// returns an error starting "physics: " when there is no such shape.
func (w *World) SetFilter(id entity.ID, i int, f Filter) error {
	r, ok := w.byID[id]
	if !ok {
		return fmt.Errorf("physics: %v has no body", id)
	}
	fx := fixtureAt(r.b, int32(i))
	if fx == nil {
		return fmt.Errorf("physics: %v has no shape %d", id, i)
	}
	nf := b2Filter(f.Category, f.Mask, f.Group)
	if nf == fx.M_filter {
		return nil
	}
	fx.SetFilterData(nf) // flags the shape's contacts and looks for new pairs
	w.wake(r.b)
	return nil
}
