package physics

import "github.com/ByteArena/box2d"

// collide is B2ContactManager.Collide, the same work in the same order:
// each contact flagged for filtering is filtered again, each with an awake
// body whose fat boxes have parted is destroyed, and the others are
// updated (updateContact). It reads fields where box2d calls getters that
// take their receiver by value: for every contact in the world, box2d's
// copied the contact several times, each of its two bodies (a few hundred
// bytes apiece) to ask whether it is awake, and the broad phase and its
// tree to read two boxes.
//
// With clearIsland it also clears every contact's island flag, which the
// solve that follows would do in a walk of its own; nothing between reads
// it.
func (w *World) collide(clearIsland bool) {
	cm := &w.b2.M_contactManager
	tree := &cm.M_broadPhase.M_tree
	for c := cm.M_contactList; c != nil; {
		d := contactData(c)
		next := d.M_next
		if clearIsland {
			d.M_flags &^= box2d.B2Body_Flags.E_islandFlag
		}
		fixtureA, fixtureB := d.M_fixtureA, d.M_fixtureB
		bodyA, bodyB := fixtureA.M_body, fixtureB.M_body

		// Is this contact flagged for filtering?
		if d.M_flags&box2d.B2Contact_Flag.E_filterFlag != 0 {
			if !bodyB.ShouldCollide(bodyA) ||
				cm.M_contactFilter != nil && !cm.M_contactFilter.ShouldCollide(fixtureA, fixtureB) {
				cm.Destroy(c)
				c = next
				continue
			}
			d.M_flags &^= box2d.B2Contact_Flag.E_filterFlag
		}

		// At least one body must be awake, and dynamic or kinematic.
		activeA := isAwake(bodyA) && bodyA.M_type != box2d.B2BodyType.B2_staticBody
		activeB := isAwake(bodyB) && bodyB.M_type != box2d.B2BodyType.B2_staticBody
		if !activeA && !activeB {
			c = next
			continue
		}

		// Contacts whose fat boxes no longer overlap end here.
		idA := fixtureA.M_proxies[d.M_indexA].ProxyId
		idB := fixtureB.M_proxies[d.M_indexB].ProxyId
		if !overlaps(&tree.M_nodes[idA].Aabb, &tree.M_nodes[idB].Aabb) {
			cm.Destroy(c)
			c = next
			continue
		}

		updateContact(c, d, cm.M_contactListener)
		c = next
	}
}

// updateContact is box2d's B2ContactUpdate for c, whose fields are d:
// its manifold computed again where its bodies stand, the warm-starting
// impulses carried over to the points that persist, and listener told of
// a touch beginning or ending, and before the solver of a touch (PreSolve).
// Two polygons' manifold is collidePolygons', box2d's own arithmetic.
func updateContact(c box2d.B2ContactInterface, d *box2d.B2Contact, listener box2d.B2ContactListenerInterface) {
	m := d.M_manifold
	oldManifold := *m

	// Re-enable this contact.
	d.M_flags |= box2d.B2Contact_Flag.E_enabledFlag

	touching := false
	wasTouching := d.M_flags&box2d.B2Contact_Flag.E_touchingFlag != 0

	fixtureA, fixtureB := d.M_fixtureA, d.M_fixtureB
	sensor := fixtureA.M_isSensor || fixtureB.M_isSensor
	bodyA, bodyB := fixtureA.M_body, fixtureB.M_body
	xfA, xfB := bodyA.M_xf, bodyB.M_xf

	if sensor {
		touching = box2d.B2TestOverlapShapes(fixtureA.M_shape, d.M_indexA, fixtureB.M_shape, d.M_indexB, xfA, xfB)
		// Sensors don't generate manifolds.
		m.PointCount = 0
	} else {
		if _, ok := c.(*box2d.B2PolygonContact); ok {
			collidePolygons(m, fixtureA.M_shape.(*box2d.B2PolygonShape), xfA, fixtureB.M_shape.(*box2d.B2PolygonShape), xfB)
		} else {
			c.Evaluate(m, xfA, xfB)
		}
		touching = m.PointCount > 0

		// Match old contact ids to new contact ids and copy the stored
		// impulses to warm start the solver.
		for i := 0; i < m.PointCount; i++ {
			mp2 := &m.Points[i]
			mp2.NormalImpulse = 0.0
			mp2.TangentImpulse = 0.0
			id2 := mp2.Id
			for j := 0; j < oldManifold.PointCount; j++ {
				mp1 := &oldManifold.Points[j]
				if mp1.Id.Key() == id2.Key() {
					mp2.NormalImpulse = mp1.NormalImpulse
					mp2.TangentImpulse = mp1.TangentImpulse
					break
				}
			}
		}

		if touching != wasTouching {
			bodyA.SetAwake(true)
			bodyB.SetAwake(true)
		}
	}

	if touching {
		d.M_flags |= box2d.B2Contact_Flag.E_touchingFlag
	} else {
		d.M_flags &^= box2d.B2Contact_Flag.E_touchingFlag
	}

	if !wasTouching && touching && listener != nil {
		listener.BeginContact(c)
	}
	if wasTouching && !touching && listener != nil {
		listener.EndContact(c)
	}
	if !sensor && touching && listener != nil {
		listener.PreSolve(c, oldManifold)
	}
}
