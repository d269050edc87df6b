package physics

import (
	"github.com/ByteArena/box2d"

	"vkm/internal/entity"
)

// A client that learns it predicted wrongly puts the world back as it was
// at the tick the server judged and runs the ticks since again. Putting
// back the bodies' poses and velocities is not enough for the replay to
// repeat what a step computes: box2d carries, from each step to the next,
// the impulses its solver found for every contact and every joint (it
// starts the next step from them: warm starting), the contacts' manifolds,
// the broad phase's fattened boxes, which decide when a pair is found, and
// the sleep timers. A joint in particular is solved mostly by its carried
// impulse: a chain hanging still is held by what the last step found, and
// started from nothing it sags and swings back for many steps.
//
// So a State is everything a step reads: Save copies it out of the world
// and Restore copies it back in, to the same bits.

// State is what a World's steps read, as Save left it: every body's pose,
// motion, mass, sleep and material, its fixtures' filters and their boxes
// in the broad phase, every contact with its manifold and impulses, the
// broad phase's pending moves, and every joint whole (its settings and its
// carried impulses). It names bodies by entity and joints by JointID, so
// it stays meaningful while the World changes around it.
//
// The zero State is empty; a State is reused by Save without allocating
// once it has grown to the world's size. It holds no pointer into the
// World, so keeping one alive keeps no body alive.
type State struct {
	ok           bool
	invDt0       float64
	stepComplete bool
	worldFlags   int

	bodies   []bodyState
	fixtures []fixtureState
	proxies  []proxyState
	contacts []contactState
	moves    []fixtureRef
	joints   jointStates
}

// worldFlags are the world's flags a step reads.
var worldFlags = box2d.B2World_Flags.E_newFixture | box2d.B2World_Flags.E_clearForces

// Saved reports whether s holds a state (Save was called on it).
func (s *State) Saved() bool { return s.ok }

// fixtureRef names one child of one fixture by entity, the fixture's
// place among its body's shapes, and the child.
type fixtureRef struct {
	id             entity.ID
	fixture, child int32
}

// bodyState is one body's part of a State.
type bodyState struct {
	id       entity.ID
	typ      uint8
	flags    uint32
	fixtures int32 // how many fixtures the body had
	first    int32 // its first fixtureState

	xf                                             box2d.B2Transform
	sweep                                          box2d.B2Sweep
	v, force                                       box2d.B2Vec2
	w, torque                                      float64
	mass, invMass, inertia, invInertia             float64
	linearDamping, angularDamping, gravity, asleep float64

	rest    restPose
	settled settledPose
	fixed   bool
	wake    bool
	left    bool
}

// fixtureState is one fixture's part of a State: what a step reads of its
// material, and its proxies.
type fixtureState struct {
	index                          int32
	first, proxies                 int32 // its proxyStates
	density, friction, restitution float64
	filter                         box2d.B2Filter
	sensor                         bool
}

// proxyState is a fixture child's box and its fattened box in the tree.
type proxyState struct {
	aabb, fat box2d.B2AABB
}

// contactState is one contact's part of a State.
type contactState struct {
	a, b                                     fixtureRef
	flags                                    uint32
	manifold                                 box2d.B2Manifold
	toiCount                                 int
	toi, friction, restitution, tangentSpeed float64
}

// saved is one joint, whole, by ID.
type saved[T any] struct {
	id JointID
	v  T
}

// jointStates holds the joints of a State by kind.
type jointStates struct {
	revolute  []saved[box2d.B2RevoluteJoint]
	prismatic []saved[box2d.B2PrismaticJoint]
	distance  []saved[box2d.B2DistanceJoint]
	weld      []saved[box2d.B2WeldJoint]
	wheel     []saved[box2d.B2WheelJoint]
	motor     []saved[box2d.B2MotorJoint]
	rope      []saved[box2d.B2RopeJoint]
	mouse     []saved[box2d.B2MouseJoint]
	friction  []saved[box2d.B2FrictionJoint]
}

func (j *jointStates) reset() {
	j.revolute, j.prismatic, j.distance, j.weld = j.revolute[:0], j.prismatic[:0], j.distance[:0], j.weld[:0]
	j.wheel, j.motor, j.rope, j.mouse = j.wheel[:0], j.motor[:0], j.rope[:0], j.mouse[:0]
	j.friction = j.friction[:0]
}

// Save copies into s everything the next Step of w reads (see State),
// replacing what s held.
func (w *World) Save(s *State) {
	world := w.b2
	s.ok = true
	s.invDt0, s.stepComplete, s.worldFlags = world.M_inv_dt0, world.M_stepComplete, world.M_flags&worldFlags
	s.bodies, s.fixtures, s.proxies = s.bodies[:0], s.fixtures[:0], s.proxies[:0]
	for _, r := range w.order {
		w.saveBody(s, r)
	}
	s.contacts = s.contacts[:0]
	for c := world.M_contactManager.M_contactList; c != nil; {
		d := contactData(c)
		s.contacts = append(s.contacts, contactState{
			a: refOf(d.M_fixtureA, d.M_indexA), b: refOf(d.M_fixtureB, d.M_indexB),
			flags: d.M_flags, manifold: *d.M_manifold, toiCount: d.M_toiCount,
			toi: d.M_toi, friction: d.M_friction, restitution: d.M_restitution, tangentSpeed: d.M_tangentSpeed,
		})
		c = d.M_next
	}
	bp := &world.M_contactManager.M_broadPhase
	s.moves = s.moves[:0]
	for _, id := range bp.M_moveBuffer[:bp.M_moveCount] {
		if id == box2d.E_nullProxy {
			continue
		}
		p := bp.M_tree.M_nodes[id].UserData.(*box2d.B2FixtureProxy)
		s.moves = append(s.moves, refOf(p.Fixture, p.ChildIndex))
	}
	s.joints.reset()
	for _, jt := range w.jointList {
		s.joints.save(jt)
	}
}

func (w *World) saveBody(s *State, r *body) {
	b := r.b
	bs := bodyState{
		id: r.id, typ: b.M_type, flags: b.M_flags, fixtures: int32(b.M_fixtureCount), first: int32(len(s.fixtures)),
		xf: b.M_xf, sweep: b.M_sweep, v: b.M_linearVelocity, w: b.M_angularVelocity,
		force: b.M_force, torque: b.M_torque,
		mass: b.M_mass, invMass: b.M_invMass, inertia: b.M_I, invInertia: b.M_invI,
		linearDamping: b.M_linearDamping, angularDamping: b.M_angularDamping, gravity: b.M_gravityScale,
		asleep: b.M_sleepTime,
		rest:   r.rest, settled: r.settled, fixed: r.fixed, wake: r.wake, left: r.left,
	}
	s.bodies = append(s.bodies, bs)
	tree := &w.b2.M_contactManager.M_broadPhase.M_tree
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		i, _ := f.M_userData.(int)
		s.fixtures = append(s.fixtures, fixtureState{
			index: int32(i), first: int32(len(s.proxies)), proxies: int32(f.M_proxyCount),
			density: f.M_density, friction: f.M_friction, restitution: f.M_restitution,
			filter: f.M_filter, sensor: f.M_isSensor,
		})
		for k := 0; k < f.M_proxyCount; k++ {
			p := &f.M_proxies[k]
			s.proxies = append(s.proxies, proxyState{aabb: p.Aabb, fat: tree.M_nodes[p.ProxyId].Aabb})
		}
	}
}

// refOf names child of f.
func refOf(f *box2d.B2Fixture, child int) fixtureRef {
	id := entity.None
	if r, ok := f.M_body.M_userData.(*body); ok {
		id = r.id
	}
	i, _ := f.M_userData.(int)
	return fixtureRef{id: id, fixture: int32(i), child: int32(child)}
}

func (j *jointStates) save(jt *joint) {
	switch v := jt.j.(type) {
	case *box2d.B2RevoluteJoint:
		j.revolute = append(j.revolute, saved[box2d.B2RevoluteJoint]{jt.id, *v})
	case *box2d.B2PrismaticJoint:
		j.prismatic = append(j.prismatic, saved[box2d.B2PrismaticJoint]{jt.id, *v})
	case *box2d.B2DistanceJoint:
		j.distance = append(j.distance, saved[box2d.B2DistanceJoint]{jt.id, *v})
	case *box2d.B2WeldJoint:
		j.weld = append(j.weld, saved[box2d.B2WeldJoint]{jt.id, *v})
	case *box2d.B2WheelJoint:
		j.wheel = append(j.wheel, saved[box2d.B2WheelJoint]{jt.id, *v})
	case *box2d.B2MotorJoint:
		j.motor = append(j.motor, saved[box2d.B2MotorJoint]{jt.id, *v})
	case *box2d.B2RopeJoint:
		j.rope = append(j.rope, saved[box2d.B2RopeJoint]{jt.id, *v})
	case *box2d.B2MouseJoint:
		j.mouse = append(j.mouse, saved[box2d.B2MouseJoint]{jt.id, *v})
	case *box2d.B2FrictionJoint:
		j.friction = append(j.friction, saved[box2d.B2FrictionJoint]{jt.id, *v})
	}
}

// Restore puts back into w what Save put in s, so that the steps after it
// compute, to the bit, what the steps after the Save did. s is not
// changed, and may be restored again.
//
// What the World holds that s does not (a body added or a joint made since
// the Save) keeps its state as it is, and what s holds that the World no
// longer does (a body removed, a joint removed) is left out: Restore does
// not make or destroy bodies or joints. A body whose type, activity or
// number of fixtures changed since is only put back where it stood, with
// its velocity. Contacts are put back as they were between bodies both
// hold: made again where the World has lost them, destroyed where it has
// made them since. Nothing Restore does calls a contact listener.
//
// Restore does nothing with a State Save never filled.
func (w *World) Restore(s *State) {
	if !s.ok {
		return
	}
	world := w.b2
	cm := &world.M_contactManager
	listener := cm.M_contactListener
	cm.M_contactListener = nil // a restore is not the world touching or parting
	defer func() { cm.M_contactListener = listener }()

	world.M_inv_dt0, world.M_stepComplete = s.invDt0, s.stepComplete
	world.M_flags = world.M_flags&^worldFlags | s.worldFlags
	bp := &cm.M_broadPhase
	pending := append(w.restoreMoves[:0], bp.M_moveBuffer[:bp.M_moveCount]...)
	// Contacts first: making and destroying them wakes bodies, whose sleep
	// is put back below.
	w.restoreContacts(s)
	for i := range s.bodies {
		if r, ok := w.byID[s.bodies[i].id]; ok && !w.restoreBody(s, &s.bodies[i], r) {
			delete(w.restoreHeld, r.id)
		}
	}
	bp.M_moveCount = 0
	for _, ref := range s.moves {
		if p := w.proxy(ref); p != nil {
			bp.BufferMove(p.ProxyId)
		}
	}
	// A proxy s does not put back (a body made since the Save, or one
	// whose fixtures changed) keeps its pending move: the pairs of its new
	// box are still to be found, and without the move they would be found
	// only once the body left its fattened box. A body built resting on
	// the floor would fall through it until then.
	for _, id := range pending {
		if id == box2d.E_nullProxy {
			continue
		}
		p := bp.M_tree.M_nodes[id].UserData.(*box2d.B2FixtureProxy)
		if r, ok := p.Fixture.M_body.M_userData.(*body); ok && !w.restoreHeld[r.id] {
			bp.BufferMove(id)
		}
	}
	w.restoreMoves = pending[:0]
	s.joints.restore(w)
	w.reordered = true // contacts were made: canonicalize checks every list
}

// restoreBody puts back bs, of r, and reports whether it put back its
// fixtures too (false: r changed in what it is since, and only its pose and
// velocity went back).
func (w *World) restoreBody(s *State, bs *bodyState, r *body) bool {
	b := r.b
	active := box2d.B2Body_Flags.E_activeFlag
	if bs.typ != b.M_type || bs.flags&active != b.M_flags&active || int(bs.fixtures) != b.M_fixtureCount {
		// Changed in what it is: only where it stood and how it moved.
		w.setTransform(b, bs.xf.P.X, bs.xf.P.Y, bs.sweep.A)
		b.M_linearVelocity, b.M_angularVelocity = bs.v, bs.w
		return false
	}
	tree := &w.b2.M_contactManager.M_broadPhase.M_tree
	for _, fs := range s.fixtures[bs.first : bs.first+bs.fixtures] {
		f := fixtureAt(b, fs.index)
		if f == nil || f.M_proxyCount != int(fs.proxies) {
			continue
		}
		f.M_density, f.M_friction, f.M_restitution = fs.density, fs.friction, fs.restitution
		f.M_filter, f.M_isSensor = fs.filter, fs.sensor
		for k, ps := range s.proxies[fs.first : fs.first+fs.proxies] {
			p := &f.M_proxies[k]
			p.Aabb = ps.aabb
			if tree.M_nodes[p.ProxyId].Aabb != ps.fat {
				// Re-inserted with the box it had: InsertLeaf places a
				// leaf by the box it holds.
				tree.RemoveLeaf(p.ProxyId)
				tree.M_nodes[p.ProxyId].Aabb = ps.fat
				tree.InsertLeaf(p.ProxyId)
			}
		}
	}
	b.M_flags = bs.flags
	b.M_xf, b.M_sweep = bs.xf, bs.sweep
	b.M_linearVelocity, b.M_angularVelocity = bs.v, bs.w
	b.M_force, b.M_torque = bs.force, bs.torque
	b.M_mass, b.M_invMass, b.M_I, b.M_invI = bs.mass, bs.invMass, bs.inertia, bs.invInertia
	b.M_linearDamping, b.M_angularDamping, b.M_gravityScale = bs.linearDamping, bs.angularDamping, bs.gravity
	b.M_sleepTime = bs.asleep
	r.rest, r.settled, r.fixed, r.wake, r.left = bs.rest, bs.settled, bs.fixed, bs.wake, bs.left
	return true
}

// fixtureAt returns b's fixture with shape index i, or nil.
func fixtureAt(b *box2d.B2Body, i int32) *box2d.B2Fixture {
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		if j, _ := f.M_userData.(int); int32(j) == i {
			return f
		}
	}
	return nil
}

// proxy returns the proxy ref names, or nil when there is none.
func (w *World) proxy(ref fixtureRef) *box2d.B2FixtureProxy {
	r, ok := w.byID[ref.id]
	if !ok {
		return nil
	}
	f := fixtureAt(r.b, ref.fixture)
	if f == nil || ref.child < 0 || int(ref.child) >= f.M_proxyCount {
		return nil
	}
	return &f.M_proxies[ref.child]
}

// pairKey names a contact by its two fixture children, lower first, so
// that it is the same whichever is A.
type pairKey struct{ lo, hi fixtureRef }

func keyOf(a, b fixtureRef) pairKey {
	if refCmp(b, a) < 0 {
		a, b = b, a
	}
	return pairKey{a, b}
}

func refCmp(a, b fixtureRef) int {
	if c := idCmp(a.id, b.id); c != 0 {
		return c
	}
	if a.fixture != b.fixture {
		return int(a.fixture - b.fixture)
	}
	return int(a.child - b.child)
}

// restoreContacts makes the contacts between bodies s holds what they were:
// those s has are found or made again and given their saved fields, and
// those it lacks are destroyed.
func (w *World) restoreContacts(s *State) {
	cm := &w.b2.M_contactManager
	want := w.restoreWant
	if want == nil {
		want = make(map[pairKey]int)
		w.restoreWant = want
	}
	clear(want)
	for i := range s.contacts {
		want[keyOf(s.contacts[i].a, s.contacts[i].b)] = i
	}
	held := w.restoreHeld
	if held == nil {
		held = make(map[entity.ID]bool)
		w.restoreHeld = held
	}
	clear(held)
	for i := range s.bodies {
		held[s.bodies[i].id] = true
	}
	found := append(w.restoreFound[:0], make([]box2d.B2ContactInterface, len(s.contacts))...)
	gone := w.restoreGone[:0]
	defer func() {
		clear(found)
		clear(gone)
		w.restoreFound, w.restoreGone = found[:0], gone[:0]
	}()
	for c := cm.M_contactList; c != nil; {
		d := contactData(c)
		a, b := refOf(d.M_fixtureA, d.M_indexA), refOf(d.M_fixtureB, d.M_indexB)
		if i, ok := want[keyOf(a, b)]; ok {
			found[i] = c
		} else if held[a.id] && held[b.id] {
			gone = append(gone, c)
		}
		c = d.M_next
	}
	for _, c := range gone {
		cm.Destroy(c)
	}
	for i := range s.contacts {
		cs := &s.contacts[i]
		c := found[i]
		if c == nil {
			pa, pb := w.proxy(cs.a), w.proxy(cs.b)
			if pa == nil || pb == nil {
				continue
			}
			cm.AddPair(pa, pb)
			if c = cm.M_contactList; c == nil || keyOf(refOf(c.GetFixtureA(), c.GetChildIndexA()), refOf(c.GetFixtureB(), c.GetChildIndexB())) != keyOf(cs.a, cs.b) {
				continue // refused now: a filter or a joint made since
			}
		}
		d := contactData(c)
		if refOf(d.M_fixtureA, d.M_indexA) != cs.a {
			swapFixtures(c)
		}
		d.M_flags, *d.M_manifold, d.M_toiCount = cs.flags, cs.manifold, cs.toiCount
		d.M_toi, d.M_friction, d.M_restitution, d.M_tangentSpeed = cs.toi, cs.friction, cs.restitution, cs.tangentSpeed
	}
}

// swapFixtures swaps which fixture of c is A, and nothing else.
func swapFixtures(c box2d.B2ContactInterface) {
	fa, fb := c.GetFixtureA(), c.GetFixtureB()
	c.SetFixtureA(fb)
	c.SetFixtureB(fa)
	ia, ib := c.GetChildIndexA(), c.GetChildIndexB()
	c.SetChildIndexA(ib)
	c.SetChildIndexB(ia)
	na, nb := c.GetNodeA(), c.GetNodeB()
	c.SetNodeA(nb)
	c.SetNodeB(na)
}

// restore puts every joint of j that w still has back as it was.
func (j *jointStates) restore(w *World) {
	restoreKind(w, j.revolute)
	restoreKind(w, j.prismatic)
	restoreKind(w, j.distance)
	restoreKind(w, j.weld)
	restoreKind(w, j.wheel)
	restoreKind(w, j.motor)
	restoreKind(w, j.rope)
	restoreKind(w, j.mouse)
	restoreKind(w, j.friction)
}

// restoreKind copies each saved joint over the World's joint of its ID.
// The copy holds the same pointer to box2d's common joint fields (its
// links in the world's lists) as the joint it was made from.
func restoreKind[T any](w *World, js []saved[T]) {
	for i := range js {
		jt, ok := w.joints[js[i].id]
		if !ok {
			continue
		}
		if p, ok := any(jt.j).(*T); ok {
			*p = js[i].v
		}
	}
}
