package physics

import (
	"math"
	"testing"

	"vkm/internal/entity"
)

// drain collects what w.Contacts reports.
func drain(w *World) []Contact {
	var out []Contact
	w.Contacts(func(c Contact) { out = append(out, c) })
	return out
}

// TestContactsBeginAndEnd drops a box through a sensor onto a floor: the
// sensor's begin and end come with the sensor flag, the floor's begin with
// the point, the normal from A toward B and the closing speed, and
// removing the box ends its touch with the floor; a restore records
// nothing, and what nobody drains is bounded.
func TestContactsBeginAndEnd(t *testing.T) {
	w, s := gravityWorld(), newStore()
	addFloor(t, w, s, eid(1))
	sensor := box(2, 0.5)
	sensor.Sensor = true
	add(t, w, s, eid(2), def(entity.Static, sensor), 0, 3)
	add(t, w, s, eid(3), def(entity.Dynamic, box(0.5, 0.5)), 0.2, 5)
	var st State
	w.Save(&st)
	var got []Contact
	for range 128 {
		w.Step(s)
		got = append(got, drain(w)...)
	}
	if len(got) != 3 {
		t.Fatalf("contacts %+v, want the sensor's begin and end and the floor's begin", got)
	}
	in, out, hit := got[0], got[1], got[2]
	if !in.Begin || !in.Sensor || out.Begin || !out.Sensor || !hit.Begin || hit.Sensor {
		t.Errorf("contacts in the wrong order or kind: %+v", got)
	}
	if other := map[entity.ID]bool{hit.A: true, hit.B: true}; !other[eid(1)] || !other[eid(3)] {
		t.Errorf("the floor's contact joins %v and %v", hit.A, hit.B)
	}
	// The normal runs from A to B: from the floor up, or from the box down.
	up := hit.NY
	if hit.A == eid(3) {
		up = -up
	}
	v := math.Sqrt(2 * 10 * (5 - 0.25)) // free fall onto the floor's top
	t.Logf("sensor %+v / %+v; floor %+v; free fall gives %.2f m/s", in, out, hit, v)
	if up < 0.99 || math.Abs(hit.Y) > 0.02 || math.Abs(hit.X-0.2) > 0.3 {
		t.Errorf("floor contact at (%g, %g) with normal (%g, %g) from A, want on y = 0 under the box, up", hit.X, hit.Y, hit.NX, hit.NY)
	}
	if math.Abs(hit.Speed-v) > 0.5 {
		t.Errorf("closing speed %g, want about %g", hit.Speed, v)
	}
	w.Remove(eid(3))
	if ends := drain(w); len(ends) != 1 || ends[0].Begin {
		t.Errorf("removing the resting box reported %+v, want its touch with the floor ended", ends)
	}

	add(t, w, s, eid(3), def(entity.Dynamic, box(0.5, 0.5)), 0.2, 0.26)
	w.Restore(&st)
	if evs := drain(w); len(evs) != 0 {
		t.Errorf("a restore reported %+v", evs)
	}
	w.Step(s) // the new box meets the floor
	w.DropContacts()
	for range 2 * maxContactEvents {
		w.events = append(w.events, Contact{})
	}
	w.record(contactData(w.b2.GetContactList()), true)
	if len(w.events) != 2*maxContactEvents {
		t.Errorf("an undrained world keeps recording past its bound: %d", len(w.events))
	}
	w.DropContacts()
	if len(drain(w)) != 0 {
		t.Error("DropContacts kept contacts")
	}
}
