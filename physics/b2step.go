package physics

import (
	"math"
	"slices"

	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// stepB2 is box2d's B2World.Step, run here rather than by box2d: the same
// work in the same order on the same values, so to the same bits (the
// tests step a world both ways and compare every body), but with its
// scratch kept between steps. box2d's own makes, every step, an island
// sized to the whole world and a stack of as many bodies, a contact solver
// for each island, two bounding boxes for each fixture of each body that
// moved, a node and a boxed integer for each push of its broad-phase
// query, and a query record for each time of impact it computes: nearly
// every allocation a server tick made. What is left is box2d's own within
// a time-of-impact event (a contact solver for its small island) and the
// contacts it makes.
//
// The profile timers box2d keeps (B2World.M_profile) are not kept. Parts
// of box2d's step that take their receivers by value, copying a contact,
// a body or the broad phase at every call, run here too, reading fields
// (collide, the contact solver's set-up and iterations in solver.go).
func (w *World) stepB2(dt float64, velocityIterations, positionIterations int) {
	world := w.b2
	if world.M_flags&box2d.B2World_Flags.E_newFixture != 0 {
		w.findNewContacts()
		world.M_flags &^= box2d.B2World_Flags.E_newFixture
	}
	world.M_flags |= box2d.B2World_Flags.E_locked

	step := box2d.MakeB2TimeStep()
	step.Dt = dt
	step.VelocityIterations = velocityIterations
	step.PositionIterations = positionIterations
	if dt > 0.0 {
		step.Inv_dt = 1.0 / dt
	} else {
		step.Inv_dt = 0.0
	}
	step.DtRatio = world.M_inv_dt0 * dt
	step.WarmStarting = world.M_warmStarting

	// The solve clears every contact's island flag; collide's walk does it
	// for it.
	solving := world.M_stepComplete && step.Dt > 0.0
	w.collide(solving)
	w.counts = StepCounts{Contacts: world.M_contactManager.M_contactCount}
	if solving {
		w.solve(step)
	}
	if world.M_continuousPhysics && step.Dt > 0.0 {
		w.solveTOI(step)
	}
	if step.Dt > 0.0 {
		world.M_inv_dt0 = step.Inv_dt
	}
	if world.M_flags&box2d.B2World_Flags.E_clearForces != 0 {
		world.ClearForces()
	}
	world.M_flags &^= box2d.B2World_Flags.E_locked
}

// solve is B2World.Solve: build each awake island by a depth-first search
// over touching contacts and joints, solve it, then bring the broad phase
// up to date and find the new pairs. The contacts' island flags must have
// been cleared (collide).
func (w *World) solve(step box2d.B2TimeStep) {
	world := w.b2
	island := w.islandFor(world.M_bodyCount, world.M_contactManager.M_contactCount, world.M_jointCount)
	// No listener for the island: its only call is PostSolve, which the
	// World's listener does nothing with, and box2d's report of it
	// allocates an impulse record for every contact of every island.
	island.M_listener = nil

	for b := world.M_bodyList; b != nil; b = b.M_next {
		b.M_flags &^= box2d.B2Body_Flags.E_islandFlag
	}
	// The contacts' island flags were cleared by collide.
	for j := world.M_jointList; j != nil; j = j.GetNext() {
		j.SetIslandFlag(false)
	}

	stack := w.islandStack[:0]
	for seed := world.M_bodyList; seed != nil; seed = seed.M_next {
		if seed.M_flags&box2d.B2Body_Flags.E_islandFlag != 0 {
			continue
		}
		if !isAwake(seed) || seed.M_flags&box2d.B2Body_Flags.E_activeFlag == 0 {
			continue
		}
		if seed.M_type == box2d.B2BodyType.B2_staticBody {
			continue
		}

		if seed.M_contactList == nil && seed.M_jointList == nil {
			// An island of the seed alone, solved without building it.
			seed.M_flags |= box2d.B2Body_Flags.E_islandFlag | box2d.B2Body_Flags.E_awakeFlag
			seed.M_islandIndex = 0
			w.counts.Islands++
			w.counts.IslandBodies++
			w.solveLone(seed, step, world.M_gravity, world.M_allowSleep)
			continue
		}

		island.Clear()
		stack = append(stack[:0], seed)
		seed.M_flags |= box2d.B2Body_Flags.E_islandFlag
		for len(stack) > 0 {
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			island.AddBody(b)
			// Awake, without its sleep timer reset.
			b.M_flags |= box2d.B2Body_Flags.E_awakeFlag
			// Islands do not grow across static bodies.
			if b.M_type == box2d.B2BodyType.B2_staticBody {
				continue
			}
			for ce := b.M_contactList; ce != nil; ce = ce.Next {
				contact := ce.Contact
				d := contactData(contact)
				if d.M_flags&box2d.B2Body_Flags.E_islandFlag != 0 {
					continue
				}
				solid := box2d.B2Contact_Flag.E_enabledFlag | box2d.B2Contact_Flag.E_touchingFlag
				if d.M_flags&solid != solid {
					continue
				}
				if d.M_fixtureA.M_isSensor || d.M_fixtureB.M_isSensor {
					continue
				}
				island.AddContact(contact)
				d.M_flags |= box2d.B2Body_Flags.E_islandFlag
				other := ce.Other
				if other.M_flags&box2d.B2Body_Flags.E_islandFlag != 0 {
					continue
				}
				stack = append(stack, other)
				other.M_flags |= box2d.B2Body_Flags.E_islandFlag
			}
			for je := b.M_jointList; je != nil; je = je.Next {
				if je.Joint.GetIslandFlag() {
					continue
				}
				other := je.Other
				if other.M_flags&box2d.B2Body_Flags.E_activeFlag == 0 {
					continue
				}
				island.Add(je.Joint)
				je.Joint.SetIslandFlag(true)
				if other.M_flags&box2d.B2Body_Flags.E_islandFlag != 0 {
					continue
				}
				stack = append(stack, other)
				other.M_flags |= box2d.B2Body_Flags.E_islandFlag
			}
		}

		w.counts.Islands++
		w.counts.IslandBodies += island.M_bodyCount
		w.counts.IslandContacts += island.M_contactCount
		w.solveIsland(island, step, world.M_gravity, world.M_allowSleep)

		// Static bodies may take part in other islands.
		for i := 0; i < island.M_bodyCount; i++ {
			if b := island.M_bodies[i]; b.M_type == box2d.B2BodyType.B2_staticBody {
				b.M_flags &^= box2d.B2Body_Flags.E_islandFlag
			}
		}
	}
	clear(stack[:cap(stack)])
	w.islandStack = stack[:0]
	w.releaseIsland()

	for b := world.M_bodyList; b != nil; b = b.M_next {
		// A body in no island did not move.
		if b.M_flags&box2d.B2Body_Flags.E_islandFlag == 0 {
			continue
		}
		if b.M_type == box2d.B2BodyType.B2_staticBody {
			continue
		}
		w.synchronizeFixtures(b)
	}
	w.findNewContacts()
}

// islandFor returns the World's island, cleared, with room for the given
// numbers of bodies, contacts and joints.
func (w *World) islandFor(bodies, contacts, joints int) *box2d.B2Island {
	is := &w.b2island
	if bodies > is.M_bodyCapacity {
		n := max(bodies, 2*is.M_bodyCapacity)
		is.M_bodies = make([]*box2d.B2Body, n)
		is.M_positions = make([]box2d.B2Position, n)
		is.M_velocities = make([]box2d.B2Velocity, n)
		is.M_bodyCapacity = n
	}
	if contacts > is.M_contactCapacity {
		n := max(contacts, 2*is.M_contactCapacity)
		is.M_contacts = make([]box2d.B2ContactInterface, n)
		is.M_contactCapacity = n
	}
	if joints > is.M_jointCapacity {
		n := max(joints, 2*is.M_jointCapacity)
		is.M_joints = make([]box2d.B2JointInterface, n)
		is.M_jointCapacity = n
	}
	is.Clear()
	return is
}

// releaseIsland drops the island's hold on the bodies, contacts and joints
// of the last step, so the scratch keeps nothing alive.
func (w *World) releaseIsland() {
	is := &w.b2island
	clear(is.M_bodies)
	clear(is.M_contacts)
	clear(is.M_joints)
	is.M_listener = nil
	is.Clear()
}

// solveIsland is B2Island.Solve with the World's contact solver.
func (w *World) solveIsland(island *box2d.B2Island, step box2d.B2TimeStep, gravity box2d.B2Vec2, allowSleep bool) {
	h := step.Dt

	// An island of one body with no contact and no joint (a kinematic
	// body on its path, a body alone in the air): the contact solver's
	// set-up, warm start and iterations over no constraints change
	// nothing, and the position iterations end at the first, whose check
	// of no contacts passes (box2d's minimum separation starts at 0). So
	// they are not run; what the island does to its body is the same.
	lone := island.M_contactCount == 0 && island.M_jointCount == 0

	// Where each body stood, read only for an island with joints.
	from := w.islandFrom[:0]
	defer func() { w.islandFrom = from[:0] }()
	// Integrate velocities and apply damping; initialise the body state.
	for i := 0; i < island.M_bodyCount; i++ {
		b := island.M_bodies[i]
		if island.M_jointCount > 0 {
			from = append(from, stood{b.M_xf.P.X, b.M_xf.P.Y, b.M_sweep.A})
		}
		c := b.M_sweep.C
		a := b.M_sweep.A
		v, av := integrated(b, h, gravity)

		// Positions for continuous collision.
		b.M_sweep.C0 = b.M_sweep.C
		b.M_sweep.A0 = b.M_sweep.A

		island.M_positions[i].C = c
		island.M_positions[i].A = a
		island.M_velocities[i].V = v
		island.M_velocities[i].W = av
	}

	solverData := box2d.MakeB2SolverData()
	solverData.Step = step
	solverData.Positions = island.M_positions
	solverData.Velocities = island.M_velocities

	var solver *box2d.B2ContactSolver
	if !lone {
		solver = w.contactSolver(step, island)
		initializeVelocities(solver, &w.turns)
		if step.WarmStarting {
			warmStart(solver)
		}
		for i := 0; i < island.M_jointCount; i++ {
			island.M_joints[i].InitVelocityConstraints(solverData)
		}

		for range step.VelocityIterations {
			for j := 0; j < island.M_jointCount; j++ {
				island.M_joints[j].SolveVelocityConstraints(solverData)
			}
			solveVelocities(solver)
		}
		solver.StoreImpulses()
	}

	// Integrate positions.
	for i := 0; i < island.M_bodyCount; i++ {
		c := island.M_positions[i].C
		a := island.M_positions[i].A
		v := island.M_velocities[i].V
		av := island.M_velocities[i].W

		c, a, v, av = advanced(c, a, v, av, h)

		island.M_positions[i].C = c
		island.M_positions[i].A = a
		island.M_velocities[i].V = v
		island.M_velocities[i].W = av
	}

	positionSolved := lone && step.PositionIterations > 0
	for i := 0; i < step.PositionIterations && !lone; i++ {
		contactsOkay := solvePositions(solver, &w.turns)
		jointsOkay := true
		for j := 0; j < island.M_jointCount; j++ {
			jointOkay := island.M_joints[j].SolvePositionConstraints(solverData)
			jointsOkay = jointsOkay && jointOkay
		}
		if contactsOkay && jointsOkay {
			positionSolved = true // the position errors are small
			break
		}
	}

	for i := 0; i < island.M_bodyCount; i++ {
		body := island.M_bodies[i]
		body.M_sweep.C = island.M_positions[i].C
		body.M_sweep.A = island.M_positions[i].A
		body.M_linearVelocity = island.M_velocities[i].V
		body.M_angularVelocity = island.M_velocities[i].W
		synchronizeTransform(body, &w.turns)
	}

	if island.M_listener != nil && solver != nil {
		island.Report(solver.M_velocityConstraints)
	}

	if allowSleep {
		minSleepTime := box2d.B2_maxFloat
		linTolSqr := box2d.B2_linearSleepTolerance * box2d.B2_linearSleepTolerance
		angTolSqr := box2d.B2_angularSleepTolerance * box2d.B2_angularSleepTolerance
		// A jointed island that stood still on the wire (see stoodStill)
		// may sleep though its joints stay stretched past box2d's slop.
		still := island.M_jointCount > 0
		for i := 0; i < island.M_bodyCount; i++ {
			b := island.M_bodies[i]
			if b.M_type == box2d.B2BodyType.B2_staticBody {
				continue
			}
			stood := island.M_jointCount > 0 && w.stoodStill(b, from[i], h)
			still = still && stood
			if b.M_flags&box2d.B2Body_Flags.E_autoSleepFlag == 0 ||
				(b.M_angularVelocity*b.M_angularVelocity > angTolSqr || box2d.B2Vec2Dot(b.M_linearVelocity, b.M_linearVelocity) > linTolSqr) &&
					!(stood && b.M_jointList != nil && b.M_type == box2d.B2BodyType.B2_dynamicBody) {
				b.M_sleepTime = 0.0
				minSleepTime = 0.0
			} else {
				b.M_sleepTime += h
				minSleepTime = math.Min(minSleepTime, b.M_sleepTime)
			}
		}
		if minSleepTime >= box2d.B2_timeToSleep && (positionSolved || still) {
			for i := 0; i < island.M_bodyCount; i++ {
				island.M_bodies[i].SetAwake(false)
			}
		}
	}
}

// integrated returns b's velocities after a step of h: for a dynamic body,
// gravity and its forces added and the damping applied, by the Padé
// approximation box2d uses, in box2d's order; any other body's as they are.
func integrated(b *box2d.B2Body, h float64, gravity box2d.B2Vec2) (box2d.B2Vec2, float64) {
	v := b.M_linearVelocity
	av := b.M_angularVelocity
	if b.M_type == box2d.B2BodyType.B2_dynamicBody {
		v.OperatorPlusInplace(
			box2d.B2Vec2MulScalar(
				h,
				box2d.B2Vec2Add(
					box2d.B2Vec2MulScalar(b.M_gravityScale, gravity),
					box2d.B2Vec2MulScalar(b.M_invMass, b.M_force),
				),
			),
		)
		av += h * b.M_invI * b.M_torque
		v.OperatorScalarMulInplace(1.0 / (1.0 + h*b.M_linearDamping))
		av *= 1.0 / (1.0 + h*b.M_angularDamping)
	}
	return v, av
}

// advanced returns a body's centre c and angle a moved a step of h at v
// and av, and v and av as they moved it: held to box2d's largest
// translation and rotation a step, in box2d's arithmetic and order.
func advanced(c box2d.B2Vec2, a float64, v box2d.B2Vec2, av, h float64) (box2d.B2Vec2, float64, box2d.B2Vec2, float64) {
	translation := box2d.B2Vec2MulScalar(h, v)
	if box2d.B2Vec2Dot(translation, translation) > box2d.B2_maxTranslationSquared {
		ratio := box2d.B2_maxTranslation / translation.Length()
		v.OperatorScalarMulInplace(ratio)
	}
	rotation := h * av
	if rotation*rotation > box2d.B2_maxRotationSquared {
		ratio := box2d.B2_maxRotation / math.Abs(rotation)
		av *= ratio
	}
	c.OperatorPlusInplace(box2d.B2Vec2MulScalar(h, v))
	a += h * av
	return c, a, v, av
}

// solveLone is solveIsland for an island of b alone, with no contact and
// no joint, worked on b's fields rather than through the island's arrays:
// the same arithmetic in the same order. b is not static.
func (w *World) solveLone(b *box2d.B2Body, step box2d.B2TimeStep, gravity box2d.B2Vec2, allowSleep bool) {
	h := step.Dt
	c := b.M_sweep.C
	a := b.M_sweep.A
	v, av := integrated(b, h, gravity)

	// Positions for continuous collision.
	b.M_sweep.C0 = b.M_sweep.C
	b.M_sweep.A0 = b.M_sweep.A

	// Integrate the position.
	c, a, v, av = advanced(c, a, v, av, h)

	// No contact to solve: the first position iteration passes.
	positionSolved := step.PositionIterations > 0

	b.M_sweep.C = c
	b.M_sweep.A = a
	b.M_linearVelocity = v
	b.M_angularVelocity = av
	synchronizeTransform(b, &w.turns)

	if allowSleep {
		minSleepTime := box2d.B2_maxFloat
		linTolSqr := box2d.B2_linearSleepTolerance * box2d.B2_linearSleepTolerance
		angTolSqr := box2d.B2_angularSleepTolerance * box2d.B2_angularSleepTolerance
		if b.M_flags&box2d.B2Body_Flags.E_autoSleepFlag == 0 ||
			b.M_angularVelocity*b.M_angularVelocity > angTolSqr || box2d.B2Vec2Dot(b.M_linearVelocity, b.M_linearVelocity) > linTolSqr {
			b.M_sleepTime = 0.0
			minSleepTime = 0.0
		} else {
			b.M_sleepTime += h
			minSleepTime = math.Min(minSleepTime, b.M_sleepTime)
		}
		if minSleepTime >= box2d.B2_timeToSleep && positionSolved {
			b.SetAwake(false)
		}
	}
}

// Jointed structures at rest. A long chain's solver does not cancel
// gravity in the iterations a step gives it, and rounding the velocity it
// leaves to the wire's centimetre a second each step keeps the rest of it,
// while the joints' position solver holds every body where it was; and a
// structure pulled taut (a rope bridge hung straight) keeps its joints
// stretched past box2d's slop, which box2d takes as not yet solved. Either
// kept it awake, and sent to every client, standing still. So a jointed
// body also rests in a step that moved it, as the wire rounds it, by no
// more than box2d's sleep tolerances allow in a step, whatever velocity
// the solver leaves it; and an island with joints whose bodies all stood
// so may sleep unsolved. The rule reads only where each body stood and
// where the step left it, so every end that steps the same world puts it
// to sleep on the same tick. A body without a joint is box2d's alone.

// stoodStill reports whether the step moved b from where it stood (from),
// rounded as the wire rounds it (Config.Quantize), by no more than box2d's
// sleep tolerances allow in a step of h.
func (w *World) stoodStill(b *box2d.B2Body, from stood, h float64) bool {
	t := entity.Transform{X: b.M_xf.P.X, Y: b.M_xf.P.Y, Angle: b.M_sweep.A, Scale: 1}
	if w.cfg.Quantize != nil {
		var rb entity.Rigidbody
		w.cfg.Quantize(&t, &rb)
	}
	dx, dy, da := t.X-from.x, t.Y-from.y, t.Angle-from.angle
	lin, ang := box2d.B2_linearSleepTolerance*h, box2d.B2_angularSleepTolerance*h
	return dx*dx+dy*dy <= lin*lin && da*da <= ang*ang
}

// stood is where a body stood: its origin and angle.
type stood struct{ x, y, angle float64 }

// contactSolver is box2d.MakeB2ContactSolver for island's contacts, built
// in the World's solver and its constraint arrays.
func (w *World) contactSolver(step box2d.B2TimeStep, island *box2d.B2Island) *box2d.B2ContactSolver {
	s := &w.solver
	n := island.M_contactCount
	if n > cap(s.M_positionConstraints) {
		m := max(n, 2*cap(s.M_positionConstraints))
		s.M_positionConstraints = make([]box2d.B2ContactPositionConstraint, m)
		s.M_velocityConstraints = make([]box2d.B2ContactVelocityConstraint, m)
	}
	s.M_step = step
	s.M_count = n
	s.M_positionConstraints = s.M_positionConstraints[:n]
	s.M_velocityConstraints = s.M_velocityConstraints[:n]
	s.M_positions = island.M_positions
	s.M_velocities = island.M_velocities
	s.M_contacts = island.M_contacts

	for i := 0; i < n; i++ {
		// The contact's fields, not its getters, which copy it.
		contact := contactData(s.M_contacts[i])
		fixtureA := contact.M_fixtureA
		fixtureB := contact.M_fixtureB
		radiusA := fixtureA.M_shape.GetRadius()
		radiusB := fixtureB.M_shape.GetRadius()
		bodyA := fixtureA.M_body
		bodyB := fixtureB.M_body
		manifold := contact.M_manifold
		pointCount := manifold.PointCount

		vc := &s.M_velocityConstraints[i]
		*vc = box2d.B2ContactVelocityConstraint{}
		vc.Friction = contact.M_friction
		vc.Restitution = contact.M_restitution
		vc.TangentSpeed = contact.M_tangentSpeed
		vc.IndexA = bodyA.M_islandIndex
		vc.IndexB = bodyB.M_islandIndex
		vc.InvMassA = bodyA.M_invMass
		vc.InvMassB = bodyB.M_invMass
		vc.InvIA = bodyA.M_invI
		vc.InvIB = bodyB.M_invI
		vc.ContactIndex = i
		vc.PointCount = pointCount
		vc.K.SetZero()
		vc.NormalMass.SetZero()

		pc := &s.M_positionConstraints[i]
		*pc = box2d.B2ContactPositionConstraint{}
		pc.IndexA = bodyA.M_islandIndex
		pc.IndexB = bodyB.M_islandIndex
		pc.InvMassA = bodyA.M_invMass
		pc.InvMassB = bodyB.M_invMass
		pc.LocalCenterA = bodyA.M_sweep.LocalCenter
		pc.LocalCenterB = bodyB.M_sweep.LocalCenter
		pc.InvIA = bodyA.M_invI
		pc.InvIB = bodyB.M_invI
		pc.LocalNormal = manifold.LocalNormal
		pc.LocalPoint = manifold.LocalPoint
		pc.PointCount = pointCount
		pc.RadiusA = radiusA
		pc.RadiusB = radiusB
		pc.Type = manifold.Type

		for j := 0; j < pointCount; j++ {
			cp := &manifold.Points[j]
			vcp := &vc.Points[j]
			if s.M_step.WarmStarting {
				vcp.NormalImpulse = s.M_step.DtRatio * cp.NormalImpulse
				vcp.TangentImpulse = s.M_step.DtRatio * cp.TangentImpulse
			} else {
				vcp.NormalImpulse = 0.0
				vcp.TangentImpulse = 0.0
			}
			vcp.RA.SetZero()
			vcp.RB.SetZero()
			vcp.NormalMass = 0.0
			vcp.TangentMass = 0.0
			vcp.VelocityBias = 0.0
			pc.LocalPoints[j] = cp.LocalPoint
		}
	}
	return s
}

// synchronizeFixtures is B2Body.SynchronizeFixtures: each proxy of b's
// fixtures is given the box that covers its sweep over the step, in the
// World's two boxes rather than two made for each proxy.
func (w *World) synchronizeFixtures(b *box2d.B2Body) {
	xf1 := box2d.MakeB2Transform()
	xf1.Q = w.turns.of(b.M_sweep.A0)
	xf1.P = box2d.B2Vec2Sub(b.M_sweep.C0, box2d.B2RotVec2Mul(xf1.Q, b.M_sweep.LocalCenter))
	xf2 := b.M_xf
	bp := &b.M_world.M_contactManager.M_broadPhase
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		for i := 0; i < f.M_proxyCount; i++ {
			proxy := &f.M_proxies[i]
			w.aabb, w.aabb2 = box2d.MakeB2AABB(), box2d.MakeB2AABB()
			shapeAABB(&w.aabb, f.M_shape, xf1, proxy.ChildIndex)
			shapeAABB(&w.aabb2, f.M_shape, xf2, proxy.ChildIndex)
			combineAABB(&proxy.Aabb, w.aabb, w.aabb2)
			moveProxy(bp, proxy.ProxyId, proxy.Aabb, box2d.B2Vec2Sub(xf2.P, xf1.P))
		}
	}
}

// findNewContacts is B2ContactManager.FindNewContacts (B2BroadPhase's
// UpdatePairs): the tree is queried with the fat box of each proxy moved
// since the last look, walked as box2d's query walks it but on the
// World's own stack, and each pair found, in box2d's order, is handed to
// the contact manager.
func (w *World) findNewContacts() {
	cm := &w.b2.M_contactManager
	bp := &cm.M_broadPhase
	tree := &bp.M_tree
	bp.M_pairCount = 0
	stack := w.pairStack[:0]
	for i := 0; i < bp.M_moveCount; i++ {
		query := bp.M_moveBuffer[i]
		if query == box2d.E_nullProxy {
			continue
		}
		fat := tree.M_nodes[query].Aabb // GetFatAABB, which copies the tree
		// A node is tested as it is pushed rather than as it is popped:
		// the same nodes are entered, in the same order.
		stack = stack[:0]
		if root := tree.M_root; root != box2d.B2_nullNode && overlaps(&tree.M_nodes[root].Aabb, &fat) {
			stack = append(stack, root)
		}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			node := &tree.M_nodes[id]
			if node.Child1 != box2d.B2_nullNode { // not a leaf: both children are nodes
				if c := node.Child1; overlaps(&tree.M_nodes[c].Aabb, &fat) {
					stack = append(stack, c)
				}
				if c := node.Child2; overlaps(&tree.M_nodes[c].Aabb, &fat) {
					stack = append(stack, c)
				}
				continue
			}
			if id == query {
				continue // a proxy makes no pair with itself
			}
			if bp.M_pairCount == bp.M_pairCapacity {
				bp.M_pairBuffer = append(bp.M_pairBuffer, make([]box2d.B2Pair, bp.M_pairCapacity)...)
				bp.M_pairCapacity *= 2
			}
			bp.M_pairBuffer[bp.M_pairCount] = box2d.B2Pair{ProxyIdA: min(id, query), ProxyIdB: max(id, query)}
			bp.M_pairCount++
		}
	}
	w.pairStack = stack[:0]
	bp.M_moveCount = 0

	// Sorted, to bring duplicates together; equal pairs are equal values,
	// so any sort gives box2d's order.
	pairs := bp.M_pairBuffer[:bp.M_pairCount]
	slices.SortFunc(pairs, func(a, b box2d.B2Pair) int {
		if a.ProxyIdA != b.ProxyIdA {
			return a.ProxyIdA - b.ProxyIdA
		}
		return a.ProxyIdB - b.ProxyIdB
	})
	for i := 0; i < len(pairs); {
		p := pairs[i]
		cm.AddPair(tree.GetUserData(p.ProxyIdA), tree.GetUserData(p.ProxyIdB))
		for i++; i < len(pairs) && pairs[i] == p; i++ {
		}
	}
}

// solveTOI is B2World.SolveTOI: find the earliest time of impact among the
// contacts that need one (a fast or bullet body against what it may
// tunnel through), move the pair there, solve the small island around it
// for the rest of the step, and again until none is left before the step's
// end. The time-of-impact query and its island are the World's.
//
// Three things box2d does not do, none changing a bit of what it computes:
//   - The first search clears each contact's time-of-impact state as it
//     reaches it, rather than in a walk of its own before: the search reads
//     only the contact's own state and its bodies'.
//   - It lists the contacts that could ever need a time of impact this step
//     (neither a sensor; a static, kinematic or bullet body on one side),
//     in list order, and the searches after an event walk only those and
//     the contacts the event made, instead of every contact in the world:
//     box2d skips the others each time without touching anything.
//   - Before a pair's time of impact is computed, apart checks whether the
//     two shapes, wherever their sweeps take them in the step, stay further
//     apart than box2d's query would ever call touching; if so the query
//     could only answer "no impact", which is what the pair is given. A
//     body walking on a floor, or a crate awake on one, is such a pair.
func (w *World) solveTOI(step box2d.B2TimeStep) {
	world := w.b2
	cm := &world.M_contactManager
	island := &w.toiIsland
	if island.M_bodyCapacity == 0 {
		*island = box2d.MakeB2Island(2*box2d.B2_maxTOIContacts, box2d.B2_maxTOIContacts, 0, nil)
	}
	island.M_listener = nil // PostSolve only, as in solve
	cands := w.toiContacts[:0]
	defer func() {
		clear(island.M_bodies)
		clear(island.M_contacts)
		island.M_listener = nil
		island.Clear()
		clear(cands) // the scratch keeps no contact alive
		w.toiContacts = cands[:0]
	}()

	reset := world.M_stepComplete
	if reset {
		for b := world.M_bodyList; b != nil; b = b.M_next {
			b.M_flags &^= box2d.B2Body_Flags.E_islandFlag
			b.M_sweep.Alpha0 = 0.0
		}
	}

	first := true
	for {
		// The first time of impact.
		var minContact box2d.B2ContactInterface
		minAlpha := 1.0
		if first {
			for c := cm.M_contactList; c != nil; {
				d := contactData(c)
				if reset {
					d.M_flags &^= box2d.B2Contact_Flag.E_toiFlag | box2d.B2Contact_Flag.E_islandFlag
					d.M_toiCount = 0
					d.M_toi = 1.0
				}
				if toiCandidate(d) {
					cands = append(cands, c)
					if alpha, ok := w.contactTOI(d); ok && alpha < minAlpha {
						minContact, minAlpha = c, alpha
					}
				}
				c = d.M_next
			}
			first = false
		} else {
			for _, c := range cands {
				if alpha, ok := w.contactTOI(contactData(c)); ok && alpha < minAlpha {
					minContact, minAlpha = c, alpha
				}
			}
		}

		if minContact == nil || 1.0-10.0*box2d.B2_epsilon < minAlpha {
			world.M_stepComplete = true // no more events
			break
		}

		// Advance the pair to the time of impact.
		w.counts.TOIEvents++
		fA := minContact.GetFixtureA()
		fB := minContact.GetFixtureB()
		bA := fA.GetBody()
		bB := fB.GetBody()
		backup1 := bA.M_sweep
		backup2 := bB.M_sweep
		bA.Advance(minAlpha)
		bB.Advance(minAlpha)

		// The contact likely has new points.
		box2d.B2ContactUpdate(minContact, cm.M_contactListener)
		minContact.SetFlags(minContact.GetFlags() &^ box2d.B2Contact_Flag.E_toiFlag)
		minContact.SetTOICount(minContact.GetTOICount() + 1)

		if !minContact.IsEnabled() || !minContact.IsTouching() {
			// Not solid: put the sweeps back.
			minContact.SetEnabled(false)
			bA.M_sweep = backup1
			bB.M_sweep = backup2
			bA.SynchronizeTransform()
			bB.SynchronizeTransform()
			continue
		}

		bA.SetAwake(true)
		bB.SetAwake(true)

		island.Clear()
		island.AddBody(bA)
		island.AddBody(bB)
		island.AddContact(minContact)
		bA.M_flags |= box2d.B2Body_Flags.E_islandFlag
		bB.M_flags |= box2d.B2Body_Flags.E_islandFlag
		minContact.SetFlags(minContact.GetFlags() | box2d.B2Contact_Flag.E_islandFlag)

		// The pair's contacts with static, kinematic and bullet bodies.
		for _, body := range [2]*box2d.B2Body{bA, bB} {
			if body.M_type != box2d.B2BodyType.B2_dynamicBody {
				continue
			}
			for ce := body.M_contactList; ce != nil; ce = ce.Next {
				if island.M_bodyCount == island.M_bodyCapacity {
					break
				}
				if island.M_contactCount == island.M_contactCapacity {
					break
				}
				contact := ce.Contact
				if contact.GetFlags()&box2d.B2Contact_Flag.E_islandFlag != 0 {
					continue
				}
				other := ce.Other
				if other.M_type == box2d.B2BodyType.B2_dynamicBody && !body.IsBullet() && !other.IsBullet() {
					continue
				}
				if contact.GetFixtureA().M_isSensor || contact.GetFixtureB().M_isSensor {
					continue
				}

				// Tentatively advance the other body to the time of impact.
				backup := other.M_sweep
				if other.M_flags&box2d.B2Body_Flags.E_islandFlag == 0 {
					other.Advance(minAlpha)
				}
				box2d.B2ContactUpdate(contact, cm.M_contactListener)
				if !contact.IsEnabled() || !contact.IsTouching() {
					other.M_sweep = backup
					other.SynchronizeTransform()
					continue
				}

				contact.SetFlags(contact.GetFlags() | box2d.B2Contact_Flag.E_islandFlag)
				island.AddContact(contact)
				if other.M_flags&box2d.B2Body_Flags.E_islandFlag != 0 {
					continue
				}
				other.M_flags |= box2d.B2Body_Flags.E_islandFlag
				if other.M_type != box2d.B2BodyType.B2_staticBody {
					other.SetAwake(true)
				}
				island.AddBody(other)
			}
		}

		subStep := box2d.MakeB2TimeStep()
		subStep.Dt = (1.0 - minAlpha) * step.Dt
		subStep.Inv_dt = 1.0 / subStep.Dt
		subStep.DtRatio = 1.0
		subStep.PositionIterations = 20
		subStep.VelocityIterations = step.VelocityIterations
		subStep.WarmStarting = false
		island.SolveTOI(subStep, bA.M_islandIndex, bB.M_islandIndex)

		// Island flags cleared, proxies moved, and the displaced bodies'
		// contacts' impact times forgotten.
		for i := 0; i < island.M_bodyCount; i++ {
			body := island.M_bodies[i]
			body.M_flags &^= box2d.B2Body_Flags.E_islandFlag
			if body.M_type != box2d.B2BodyType.B2_dynamicBody {
				continue
			}
			w.synchronizeFixtures(body)
			for ce := body.M_contactList; ce != nil; ce = ce.Next {
				ce.Contact.SetFlags(ce.Contact.GetFlags() &^ (box2d.B2Contact_Flag.E_toiFlag | box2d.B2Contact_Flag.E_islandFlag))
			}
		}

		// New contacts for the moved proxies, which box2d puts first.
		head := cm.M_contactList
		w.findNewContacts()
		cands = w.prependMade(cands, head)

		if world.M_subStepping {
			world.M_stepComplete = false
			break
		}
	}
}

// toiCandidate reports whether box2d's search for the first time of impact
// could ever compute one for c this step: neither fixture is a sensor, and
// one of its bodies is static, kinematic or a bullet (two other dynamic
// bodies are left to the discrete solver). None of that changes within a
// step.
func toiCandidate(c *box2d.B2Contact) bool {
	fA, fB := c.M_fixtureA, c.M_fixtureB
	if fA.M_isSensor || fB.M_isSensor {
		return false
	}
	bA, bB := fA.M_body, fB.M_body
	return bA.M_type != box2d.B2BodyType.B2_dynamicBody || isBullet(bA) ||
		bB.M_type != box2d.B2BodyType.B2_dynamicBody || isBullet(bB)
}

// prependMade puts before cands, in list order, the candidates among the
// contacts box2d made since head led its contact list.
func (w *World) prependMade(cands []box2d.B2ContactInterface, head box2d.B2ContactInterface) []box2d.B2ContactInterface {
	made := w.toiMade[:0]
	for c := w.b2.M_contactManager.M_contactList; c != nil && c != head; {
		d := contactData(c)
		if toiCandidate(d) {
			made = append(made, c)
		}
		c = d.M_next
	}
	if len(made) > 0 {
		cands = slices.Insert(cands, 0, made...)
	}
	clear(made)
	w.toiMade = made[:0]
	return cands
}

// contactTOI is one contact's turn in solveTOI's search, c a candidate
// (toiCandidate): its time of impact as a fraction of the step (1 for
// none), cached in c, and whether it has one to offer at all (enabled, not
// out of sub-steps, one of its bodies awake and not static).
func (w *World) contactTOI(c *box2d.B2Contact) (alpha float64, ok bool) {
	if c.M_flags&box2d.B2Contact_Flag.E_enabledFlag == 0 || c.M_toiCount > box2d.B2_maxSubSteps {
		return 0, false
	}
	if c.M_flags&box2d.B2Contact_Flag.E_toiFlag != 0 {
		return c.M_toi, true // cached
	}
	fA, fB := c.M_fixtureA, c.M_fixtureB
	bA, bB := fA.M_body, fB.M_body
	activeA := isAwake(bA) && bA.M_type != box2d.B2BodyType.B2_staticBody
	activeB := isAwake(bB) && bB.M_type != box2d.B2BodyType.B2_staticBody
	if !activeA && !activeB {
		return 0, false
	}

	// Both sweeps on the same interval.
	alpha0 := bA.M_sweep.Alpha0
	if bA.M_sweep.Alpha0 < bB.M_sweep.Alpha0 {
		alpha0 = bB.M_sweep.Alpha0
		bA.M_sweep.Advance(alpha0)
	} else if bB.M_sweep.Alpha0 < bA.M_sweep.Alpha0 {
		alpha0 = bA.M_sweep.Alpha0
		bB.M_sweep.Advance(alpha0)
	}

	input := &w.toiInput
	*input = box2d.MakeB2TOIInput()
	input.ProxyA.Set(fA.M_shape, c.M_indexA)
	input.ProxyB.Set(fB.M_shape, c.M_indexB)
	input.SweepA = bA.M_sweep
	input.SweepB = bB.M_sweep
	input.TMax = 1.0
	alpha = 1.0
	if w.apart(input, c.M_manifold) {
		w.apartPairs++
	} else {
		output := &w.toiOutput
		*output = box2d.MakeB2TOIOutput()
		box2d.B2TimeOfImpact(output, input)
		w.counts.TOIQueries++
		// Beta is the fraction of what is left of the step.
		if output.State == box2d.B2TOIOutput_State.E_touching {
			alpha = math.Min(alpha0+(1.0-alpha0)*output.T, 1.0)
		}
	}
	c.M_toi = alpha
	c.M_flags |= box2d.B2Contact_Flag.E_toiFlag
	return alpha, true
}

// isBullet is b.IsBullet() without copying the body.
func isBullet(b *box2d.B2Body) bool {
	return b.M_flags&box2d.B2Body_Flags.E_bulletFlag != 0
}
