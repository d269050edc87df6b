package store

import (
	"cmp"
	"fmt"
	"slices"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/replication"
)

// Store holds a simulation's entities: slots with generations, the parent
// and child hierarchy, and each entity's components (DESIGN.md, host/).
//
// A slot is an entity's name on the wire. When an entity is destroyed its
// slot is free again, and the next entity in it gets the next generation, so
// an ID held for the old one never names the new one. Generations start at 1
// and never take 0, which entity.None uses.
//
// Pointers and slices the Store returns for components point into it: they
// are valid until the next Create, CreateAt or Destroy (and a component's
// Values until it is removed or re-added). Methods given an ID that is not
// alive do nothing and return zero values.
//
// Everything a Store does is deterministic: the same calls give the same
// slots, generations and iteration order. The zero Store is empty and ready
// to use; a Store is not safe for concurrent use.
type Store struct {
	pages    []*slotPage   // slot table, storePageSize slots a page, nil until used
	recs     []storeRecord // the entities' data, densely packed
	freeRecs []uint32      // indices of recs that no live entity uses
	live     int
	freeHint uint32 // every slot below it is taken: where Create starts looking
}

// storePageBits sizes the pages of the slot table: 1024 slots of 8 bytes,
// so a scene that uses slot 16,000,000 costs one 8 KB page and a table of
// page pointers, not an entry for every slot below it, and the entities'
// data (a few hundred bytes each) is only allocated for live ones.
const storePageBits = 10

const storePageSize = 1 << storePageBits

type slotPage struct {
	live  int // live entities in the page, so Create skips full pages
	slots [storePageSize]slotEntry
}

// slotEntry is one slot.
type slotEntry struct {
	rec uint32 // 1 + index in Store.recs of the occupant; 0 while the slot is free
	gen uint32 // generation of the occupant, or of the last one while free (0: never used)
}

// maxGen is the largest generation. entity.ID.Pack holds generations below
// 2^29 exactly, and that is how Lua holds an entity, so generations wrap
// from maxGen back to 1.
const maxGen = 1<<29 - 1

// storeRecord is one live entity's data.
type storeRecord struct {
	name     string
	parent   entity.ID
	children []entity.ID // in slot order

	transform     entity.Transform
	rigidbody     entity.Rigidbody
	hasRigidbody  bool
	controller    entity.CharacterController
	hasController bool
	body          *entity.BodyDef

	behavior string
	props    map[string]any

	components []entity.Values // by schema type index; nil: absent

	origin    Origin           // the prefab entity it was built from; zero: none
	netSpawn  *entity.NetSpawn // a spawned root's record; nil: none
	instanced bool             // inside a prefab instance, not its root
	built     bool             // a prefab instance's root: the instance is built and not built over
	// partOf is the root of the instance a part belongs to (see
	// project.Prefab.IsPart), and parts are a root's parts, in file order.
	partOf entity.ID
	parts  []entity.ID
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{} }

// entry returns the table entry of slot, or nil if its page does not exist.
func (s *Store) entry(slot uint32) *slotEntry {
	p := int(slot >> storePageBits)
	if slot > entity.MaxSlot || p >= len(s.pages) || s.pages[p] == nil {
		return nil
	}
	return &s.pages[p].slots[slot&(storePageSize-1)]
}

// get returns the record of a live id, or nil.
func (s *Store) get(id entity.ID) *storeRecord {
	e := s.entry(id.Slot)
	if e == nil || e.rec == 0 || e.gen != id.Gen {
		return nil
	}
	return &s.recs[e.rec-1]
}

// CreateAt creates an entity in slot, as a scene's recorded slot demands. It
// fails if the slot is taken or above entity.MaxSlot. The new entity is a
// root at entity.Identity with no other components.
func (s *Store) CreateAt(slot uint32) (entity.ID, error) { return s.createAt(slot, 0) }

// CreateOccupant creates id itself in its slot: a client's store holds the
// server's entities under the server's names, generation included, so an
// occupant a snapshot names is one this store can look up. It fails if the
// slot is taken, above entity.MaxSlot, or id is None or of a generation
// above the largest.
func (s *Store) CreateOccupant(id entity.ID) (entity.ID, error) {
	if id.IsNone() || id.Gen > maxGen {
		return entity.None, fmt.Errorf("store: %v cannot be created (generations are 1..%d)", id, maxGen)
	}
	return s.createAt(id.Slot, id.Gen)
}

func (s *Store) createAt(slot, gen uint32) (entity.ID, error) {
	if slot > entity.MaxSlot {
		return entity.None, fmt.Errorf("store: slot %d is above the largest slot, %d", slot, entity.MaxSlot)
	}
	p := int(slot >> storePageBits)
	if p >= len(s.pages) {
		s.pages = slices.Grow(s.pages, p+1-len(s.pages))[:p+1]
	}
	if s.pages[p] == nil {
		s.pages[p] = new(slotPage)
	}
	e := &s.pages[p].slots[slot&(storePageSize-1)]
	if e.rec != 0 {
		return entity.None, fmt.Errorf("store: slot %d is taken by entity %v", slot, entity.ID{Slot: slot, Gen: e.gen})
	}
	if n := len(s.freeRecs); n > 0 {
		e.rec = s.freeRecs[n-1] + 1
		s.freeRecs = s.freeRecs[:n-1]
	} else {
		s.recs = append(s.recs, storeRecord{})
		e.rec = uint32(len(s.recs))
	}
	s.recs[e.rec-1] = storeRecord{transform: entity.Identity}
	e.gen++
	if e.gen > maxGen {
		e.gen = 1
	}
	if gen != 0 {
		e.gen = gen
	}
	s.pages[p].live++
	s.live++
	return entity.ID{Slot: slot, Gen: e.gen}, nil
}

// Create creates an entity in the lowest free slot, so the slots a run uses
// depend only on what it created and destroyed. It returns entity.None only
// if every slot up to entity.MaxSlot is taken.
func (s *Store) Create() entity.ID {
	for slot := s.freeHint; slot <= entity.MaxSlot; {
		p := int(slot >> storePageBits)
		if p < len(s.pages) && s.pages[p] != nil && s.pages[p].live == storePageSize {
			slot = uint32(p+1) << storePageBits // a full page: skip it
			continue
		}
		if e := s.entry(slot); e == nil || e.rec == 0 {
			id, _ := s.CreateAt(slot)
			s.freeHint = slot + 1
			return id
		}
		slot++
	}
	return entity.None
}

// Alive reports whether id names a live entity.
func (s *Store) Alive(id entity.ID) bool { return s.get(id) != nil }

// At returns the live entity in slot, or entity.None.
func (s *Store) At(slot uint32) entity.ID {
	e := s.entry(slot)
	if e == nil || e.rec == 0 {
		return entity.None
	}
	return entity.ID{Slot: slot, Gen: e.gen}
}

// Len returns the number of live entities.
func (s *Store) Len() int { return s.live }

// Each calls fn for every live entity in slot order until fn returns false.
// fn may create and destroy entities: one created in a slot not yet reached
// is visited, one destroyed before it is reached is not.
func (s *Store) Each(fn func(entity.ID) bool) {
	for p := 0; p < len(s.pages); p++ {
		page := s.pages[p]
		if page == nil {
			continue
		}
		for i := range page.slots {
			if e := &page.slots[i]; e.rec != 0 {
				if !fn(entity.ID{Slot: uint32(p<<storePageBits | i), Gen: e.gen}) {
					return
				}
			}
		}
	}
}

// Next returns the live entity in the lowest slot at or above from, or
// entity.None if there is none. Walking with it (from = the last slot
// returned + 1) visits what Each visits, one entity a call, so a caller
// can stop and resume a walk across calls without a closure or a list.
func (s *Store) Next(from uint32) entity.ID {
	for p := int(from >> storePageBits); p < len(s.pages); p++ {
		page := s.pages[p]
		i := 0
		if p == int(from>>storePageBits) {
			i = int(from & (storePageSize - 1))
		}
		if page == nil || page.live == 0 {
			continue
		}
		for ; i < storePageSize; i++ {
			if e := &page.slots[i]; e.rec != 0 {
				return entity.ID{Slot: uint32(p<<storePageBits | i), Gen: e.gen}
			}
		}
	}
	return entity.None
}

// AppendIDs appends every live entity to dst in slot order and returns it.
func (s *Store) AppendIDs(dst []entity.ID) []entity.ID {
	s.Each(func(id entity.ID) bool {
		dst = append(dst, id)
		return true
	})
	return dst
}

// SetParent makes parent the parent of child; entity.None makes child a root.
// The child's Transform is kept as it is, so it is now relative to the new
// parent. It refuses dead entities and a parent that is child or one of its
// descendants.
func (s *Store) SetParent(child, parent entity.ID) error {
	c := s.get(child)
	if c == nil {
		return fmt.Errorf("store: set parent of %v: no such entity", child)
	}
	if !parent.IsNone() {
		if s.get(parent) == nil {
			return fmt.Errorf("store: set parent of %v to %v: no such entity", child, parent)
		}
		for a := parent; !a.IsNone(); a = s.get(a).parent {
			if a == child {
				return fmt.Errorf("store: set parent of %v to %v: %v is its own descendant, which would make a cycle", child, parent, parent)
			}
		}
	}
	if c.parent == parent {
		return nil
	}
	if pr := s.get(c.parent); pr != nil {
		pr.children = removeChildID(pr.children, child)
	}
	c.parent = parent
	if pr := s.get(parent); pr != nil {
		i, _ := slices.BinarySearchFunc(pr.children, child, func(a, b entity.ID) int { return cmp.Compare(a.Slot, b.Slot) })
		pr.children = slices.Insert(pr.children, i, child)
	}
	return nil
}

func removeChildID(ids []entity.ID, id entity.ID) []entity.ID {
	if i := slices.Index(ids, id); i >= 0 {
		return slices.Delete(ids, i, i+1)
	}
	return ids
}

// Parent returns id's parent, or entity.None for a root.
func (s *Store) Parent(id entity.ID) entity.ID {
	if r := s.get(id); r != nil {
		return r.parent
	}
	return entity.None
}

// Children returns id's children in slot order. The slice belongs to the
// Store: do not modify it, and do not keep it past the next change to the
// hierarchy.
func (s *Store) Children(id entity.ID) []entity.ID {
	if r := s.get(id); r != nil {
		return r.children[:len(r.children):len(r.children)]
	}
	return nil
}

// Subtree returns id and all its descendants, depth first with children in
// slot order, root first; nil if id is not alive.
func (s *Store) Subtree(id entity.ID) []entity.ID {
	if s.get(id) == nil {
		return nil
	}
	return s.appendSubtree(nil, id)
}

func (s *Store) appendSubtree(dst []entity.ID, id entity.ID) []entity.ID {
	dst = append(dst, id)
	for _, c := range s.get(id).children {
		dst = s.appendSubtree(dst, c)
	}
	return dst
}

// Members returns what goes with id when it is destroyed: its subtree and,
// for the root of a prefab instance, the subtree of each of its parts
// (project.Prefab.IsPart), which a body's moving in the world took out of
// the hierarchy. The root comes first, then its subtree, then each part's,
// in file order. It returns nil if id is not alive.
func (s *Store) Members(id entity.ID) []entity.ID {
	r := s.get(id)
	if r == nil {
		return nil
	}
	dst := s.appendSubtree(nil, id)
	for i := 0; i < len(dst); i++ {
		for _, p := range s.get(dst[i]).parts {
			dst = s.appendSubtree(dst, p)
		}
	}
	return dst
}

// PartOf returns the root of the prefab instance id is a part of, or None
// when id is not a part (project.Prefab.IsPart).
func (s *Store) PartOf(id entity.ID) entity.ID {
	if r := s.get(id); r != nil {
		return r.partOf
	}
	return entity.None
}

// Destroy destroys id and its whole subtree, detaching it from its parent,
// and with a prefab instance's root its parts (Members); it returns the
// destroyed IDs in Members' order so the caller can release their physics
// bodies and behaviors. A part destroyed alone leaves its instance. It
// returns nil if id is not alive.
func (s *Store) Destroy(id entity.ID) []entity.ID {
	r := s.get(id)
	if r == nil {
		return nil
	}
	if pr := s.get(r.parent); pr != nil {
		pr.children = removeChildID(pr.children, id)
	}
	if root := s.get(r.partOf); root != nil {
		root.parts = removeChildID(root.parts, id)
	}
	gone := s.Members(id)
	for _, d := range gone {
		e := s.entry(d.Slot)
		s.recs[e.rec-1] = storeRecord{} // drop references for the collector
		s.freeRecs = append(s.freeRecs, e.rec-1)
		e.rec = 0
		s.pages[d.Slot>>storePageBits].live--
		s.live--
		s.freeHint = min(s.freeHint, d.Slot)
	}
	return gone
}

// Name returns id's name ("" if none).
func (s *Store) Name(id entity.ID) string {
	if r := s.get(id); r != nil {
		return r.name
	}
	return ""
}

// SetName sets id's name. It reports whether id is alive.
func (s *Store) SetName(id entity.ID, name string) bool {
	r := s.get(id)
	if r != nil {
		r.name = name
	}
	return r != nil
}

// Transform returns id's transform, relative to its parent. Every live entity
// has one; it is nil only if id is not alive.
func (s *Store) Transform(id entity.ID) *entity.Transform {
	if r := s.get(id); r != nil {
		return &r.transform
	}
	return nil
}

// Rigidbody returns id's motion state, or nil if it has none.
func (s *Store) Rigidbody(id entity.ID) *entity.Rigidbody {
	if r := s.get(id); r != nil && r.hasRigidbody {
		return &r.rigidbody
	}
	return nil
}

// SetRigidbody gives id a copy of *rb, or removes its Rigidbody if rb is nil.
// It reports whether id is alive.
func (s *Store) SetRigidbody(id entity.ID, rb *entity.Rigidbody) bool {
	r := s.get(id)
	if r == nil {
		return false
	}
	r.hasRigidbody = rb != nil
	r.rigidbody = entity.Rigidbody{}
	if rb != nil {
		r.rigidbody = *rb
	}
	return true
}

// Controller returns id's character controller, or nil if it has none.
func (s *Store) Controller(id entity.ID) *entity.CharacterController {
	if r := s.get(id); r != nil && r.hasController {
		return &r.controller
	}
	return nil
}

// SetController gives id a copy of *c, or removes its controller if c is
// nil. It reports whether id is alive.
func (s *Store) SetController(id entity.ID, c *entity.CharacterController) bool {
	r := s.get(id)
	if r == nil {
		return false
	}
	r.hasController = c != nil
	r.controller = entity.CharacterController{}
	if c != nil {
		r.controller = *c
	}
	return true
}

// Body returns id's authored body definition, or nil if it has none. It is
// read-only: the physics world is built from it.
func (s *Store) Body(id entity.ID) *entity.BodyDef {
	if r := s.get(id); r != nil {
		return r.body
	}
	return nil
}

// SetBody sets id's body definition (nil: none); the Store keeps the pointer.
// It reports whether id is alive.
func (s *Store) SetBody(id entity.ID, b *entity.BodyDef) bool {
	r := s.get(id)
	if r != nil {
		r.body = b
	}
	return r != nil
}

// Behavior returns the name of id's behavior ("" if none) and the props its
// instance starts with. The map belongs to the Store.
func (s *Store) Behavior(id entity.ID) (name string, props map[string]any) {
	if r := s.get(id); r != nil {
		return r.behavior, r.props
	}
	return "", nil
}

// SetBehavior sets id's behavior and props; the Store keeps the map. It
// reports whether id is alive.
func (s *Store) SetBehavior(id entity.ID, name string, props map[string]any) bool {
	r := s.get(id)
	if r != nil {
		r.behavior, r.props = name, props
	}
	return r != nil
}

// Component returns id's component of schema type typ, or nil if absent.
func (s *Store) Component(id entity.ID, typ int) entity.Values {
	r := s.get(id)
	if r == nil || typ < 0 || typ >= len(r.components) {
		return nil
	}
	return r.components[typ]
}

// AddComponent gives id a component of schema type typ with n fields and
// returns its values. A component already there with n fields is returned as
// it is; one with another count (the schema was rebuilt) is replaced by n
// zeros. It returns nil if id is not alive or typ or n is negative.
func (s *Store) AddComponent(id entity.ID, typ, n int) entity.Values {
	r := s.get(id)
	if r == nil || typ < 0 || n < 0 {
		return nil
	}
	if typ >= len(r.components) {
		r.components = slices.Grow(r.components, typ+1-len(r.components))[:typ+1]
	}
	if v := r.components[typ]; v != nil && len(v) == n {
		return v
	}
	r.components[typ] = make(entity.Values, n)
	return r.components[typ]
}

// RemoveComponent removes id's component of schema type typ, if any.
func (s *Store) RemoveComponent(id entity.ID, typ int) {
	if r := s.get(id); r != nil && typ >= 0 && typ < len(r.components) {
		r.components[typ] = nil
	}
}

// EachComponent calls fn for each of id's project components in type order.
func (s *Store) EachComponent(id entity.ID, fn func(typ int, v entity.Values)) {
	if r := s.get(id); r != nil {
		for typ, v := range r.components {
			if v != nil {
				fn(typ, v)
			}
		}
	}
}

// WorldTransform returns id's pose in the world, composing the transforms of
// its ancestors (Compose). It returns entity.Identity if id is not alive.
func (s *Store) WorldTransform(id entity.ID) entity.Transform {
	r := s.get(id)
	if r == nil {
		return entity.Identity
	}
	if r.parent.IsNone() {
		return r.transform
	}
	return Compose(s.WorldTransform(r.parent), r.transform)
}

// Compose returns local, a pose relative to parent, as a pose in parent's
// frame of reference: rotated by parent's angle, scaled by its (uniform)
// scale and moved to its position.
//
// The float64 conversions keep each product rounded on its own, so no
// platform fuses them into one instruction (FMA) and every machine gets the
// same bits.
func Compose(parent, local entity.Transform) entity.Transform { return project.Compose(parent, local) }

// NetSpawn returns the spawn record of a spawned root, or nil.
func (s *Store) NetSpawn(id entity.ID) *entity.NetSpawn {
	if r := s.get(id); r != nil {
		return r.netSpawn
	}
	return nil
}

// SetNetSpawn sets (nil: removes) id's spawn record. It reports whether id
// is alive.
func (s *Store) SetNetSpawn(id entity.ID, ns *entity.NetSpawn) bool {
	r := s.get(id)
	if r == nil {
		return false
	}
	r.netSpawn = ns
	return true
}

// Origin is the prefab entity an entity was built from: the prefab's path
// in the project folder and the entity's uid in it. A reload of the prefab
// finds the live entities built from it by their origins.
type Origin struct {
	Prefab string // "" for an entity not built from a prefab
	UID    uint32
}

// Origin returns the prefab entity id was built from (zero if none).
func (s *Store) Origin(id entity.ID) Origin {
	if r := s.get(id); r != nil {
		return r.origin
	}
	return Origin{}
}

// Instanced reports whether id belongs to a prefab instance without being
// its root. The root's NetSpawn lets the other end build it, so only a
// part (PartOf) is described on the wire.
func (s *Store) Instanced(id entity.ID) bool {
	r := s.get(id)
	return r != nil && r.instanced
}

// Built reports whether id is the root of a built prefab instance.
func (s *Store) Built(id entity.ID) bool {
	r := s.get(id)
	return r != nil && r.built
}

// MigrateComponents carries every entity's project components from schema
// old to schema new by type name, and within a type by field name,
// quantised by the new field's codec.
func (s *Store) MigrateComponents(old, new *replication.Schema) {
	s.Each(func(id entity.ID) bool {
		r := s.get(id)
		if len(r.components) == 0 {
			return true
		}
		was := r.components
		r.components = nil
		for ti, t := range new.Types {
			oi := old.Index(t.Name)
			if oi < 0 || oi >= len(was) || was[oi] == nil {
				continue
			}
			v := make(entity.Values, len(t.Fields))
			for fi, f := range t.Fields {
				if of := old.Field(oi, f.Name); of >= 0 && of < len(was[oi]) {
					v[fi] = f.Codec.Quantize(was[oi][of])
				}
			}
			if ti >= len(r.components) {
				r.components = slices.Grow(r.components, ti+1-len(r.components))[:ti+1]
			}
			r.components[ti] = v
		}
		return true
	})
}
