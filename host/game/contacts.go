package game

import (
	"vkm/internal/entity"
	"vkm/physics"
	"vkm/scripting"
)

// touch is one side of a touch presented to a behavior: the entity whose
// on_contact was told it began, the other, and their shapes.
type touch struct {
	self, other entity.ID
	shape, with int
}

// presentContacts tells the behaviors what began and stopped touching in
// the step just run: on_contact, for each side of each contact whose
// entity this end simulates, in the order physics found them. A replayed
// tick presents nothing: its contacts were presented when it first ran.
//
// Each side's touches are presented as begin, then end, once each: a begin
// is presented only when its touch is not already begun, an end only for a
// touch whose begin was. A replay can change what touches without saying
// so (its contacts are not presented); what it began ends unseen, and what
// it ended is not begun again when it next ends. An end is presented only
// where the entity is still simulated.
func (g *Game) presentContacts() {
	if g.replaying {
		g.phys.DropContacts()
		return
	}
	if g.contactFn == nil {
		g.contactFn = g.presentContact
	}
	g.phys.Contacts(g.contactFn)
}

func (g *Game) presentContact(c physics.Contact) {
	g.presentSide(touch{c.A, c.B, c.ShapeA, c.ShapeB}, c, 1)
	g.presentSide(touch{c.B, c.A, c.ShapeB, c.ShapeA}, c, -1)
}

// presentSide presents c to k.self, its normal turned by sign to run from
// k.self toward k.other.
func (g *Game) presentSide(k touch, c physics.Contact, sign float64) {
	if k.self.IsNone() {
		return
	}
	if c.Begin {
		if g.touches[k] || !g.store.Alive(k.self) || !g.Simulates(k.self) {
			return
		}
		g.touches[k] = true
	} else {
		if !g.touches[k] {
			return
		}
		delete(g.touches, k)
		if !g.store.Alive(k.self) || !g.Simulates(k.self) {
			return
		}
	}
	g.scripts.Contact(k.self, k.other, scripting.ContactInfo{
		Begin: c.Begin, Sensor: c.Sensor, Shape: k.shape, OtherShape: k.with,
		X: c.X, Y: c.Y, NX: sign * c.NX, NY: sign * c.NY, Speed: c.Speed,
	})
}
