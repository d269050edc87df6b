package store

import (
	"fmt"

	"vkm/host/project"
	"vkm/internal/entity"
)

// ComponentResolver turns a file's component table into schema values: the
// type's index in the schema and its fields in the type's field order. The
// game loop implements it over the schema the entry script's vkmSetupNetwork
// builds, which is why scenes and prefabs carry components by name.
type ComponentResolver interface {
	Resolve(c project.ComponentDef) (typ int, v entity.Values, err error)
}

// LoadScene puts every entity of sc into s, each in exactly its recorded slot
// (a scene's slots are its entities' names on the wire), with its parent and
// components. An entity with a non-static body gets a Rigidbody, awake. It
// returns the created IDs in file order.
//
// r may be nil if no entity has project components. On error (a slot already
// taken, a component r cannot resolve) nothing of the scene is left in s, and
// the error names the file and line.
func LoadScene(s *Store, sc *project.Scene, r ComponentResolver) ([]entity.ID, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	ids := make([]entity.ID, 0, len(sc.Entities))
	for _, d := range sc.Entities {
		id, err := s.CreateAt(d.ID)
		if err != nil {
			destroyEntities(s, ids)
			return nil, &project.ConfigError{File: sc.File, Line: d.Line, Key: "entity.id", Err: err,
				Reason: fmt.Sprintf("slot %d is taken by %v, already in the world", d.ID, s.At(d.ID))}
		}
		ids = append(ids, id)
	}
	if _, err := buildEntities(s, sc.File, sc.Entities, ids, r); err != nil {
		destroyEntities(s, ids)
		return nil, err
	}
	return ids, nil
}

// Instantiate spawns a copy of p into s: each of its entities, in file order,
// into the lowest free slot. The root is placed at pose composed with its
// authored transform (Compose); the other entities keep theirs, relative to
// their parents, but for the parts (project.Prefab.IsPart): each is placed
// in the world where its parent puts it and let go of the hierarchy, a
// member of the instance (Members, PartOf). A pose with Scale 0 is taken
// as unscaled, so entity.Transform{X: x, Y: y} places a prefab at (x, y).
//
// It returns the root and each uid's entity. Each entity records its
// Origin when p has a Path. On error nothing of the prefab is left in s.
func Instantiate(s *Store, p *project.Prefab, pose entity.Transform, r ComponentResolver) (root entity.ID, slots map[uint32]entity.ID, err error) {
	return InstantiateInto(s, p, pose, r, nil, nil)
}

// InstantiateInto is Instantiate with the slots chosen by the caller, as a
// client builds what a server spawned: each entity of into (by uid), the
// root's and a part's a snapshot created at the server's slot, is an
// existing entity that becomes that prefab entity, and each other prefab
// entity whose uid is in at goes into that slot (the rest, and any whose
// slot is taken here, into the lowest free slots: the caller compares the
// returned slots with what it asked). An entity of into keeps its
// components but those the prefab gives it.
func InstantiateInto(s *Store, p *project.Prefab, pose entity.Transform, r ComponentResolver, into map[uint32]entity.ID, at map[uint32]uint32) (entity.ID, map[uint32]entity.ID, error) {
	if err := p.Validate(); err != nil {
		return entity.None, nil, err
	}
	if pose.Scale == 0 {
		pose.Scale = 1
	}
	if sub, reason := project.CheckTransform(pose); reason != "" {
		return entity.None, nil, fmt.Errorf("store: instantiate %s: pose %s: %s", p.File, sub, reason)
	}
	if pose.Scale != 1 && p.Parts() {
		return entity.None, nil, fmt.Errorf("store: instantiate %s: it has several bodies, which physics does not scale: spawn it at scale 1", p.File)
	}
	for uid, id := range into {
		if !s.Alive(id) {
			return entity.None, nil, fmt.Errorf("store: instantiate %s: entity %v for uid %d is not alive", p.File, id, uid)
		}
	}
	ids := make([]entity.ID, len(p.Entities))
	made := make([]entity.ID, 0, len(p.Entities)) // what to undo on failure
	fail := func(err error) (entity.ID, map[uint32]entity.ID, error) {
		destroyEntities(s, made)
		return entity.None, nil, err
	}
	for i, d := range p.Entities {
		if id, ok := into[d.ID]; ok {
			ids[i] = id
			continue
		}
		id := entity.None
		if slot, ok := at[d.ID]; ok {
			id, _ = s.CreateAt(slot) // a slot taken here: the lowest free one instead
		}
		if id.IsNone() {
			if id = s.Create(); id.IsNone() {
				return fail(fmt.Errorf("store: instantiate %s: every slot is taken", p.File))
			}
		}
		ids[i] = id
		made = append(made, id)
	}
	slots, err := buildEntities(s, p.File, p.Entities, ids, r)
	if err != nil {
		return fail(err)
	}
	rootID := ids[p.Root]
	*s.Transform(rootID) = Compose(pose, p.Entities[p.Root].Transform)
	// Every part's place in the world first, from the hierarchy as the
	// file has it; then each is let go of it.
	var parts []int
	var places []entity.Transform
	for i := range p.Entities {
		if p.IsPart(i) {
			parts = append(parts, i)
			places = append(places, s.WorldTransform(ids[i]))
		}
	}
	for k, i := range parts {
		id := ids[i]
		_ = s.SetParent(id, entity.None) // alive, and None makes no cycle
		*s.Transform(id) = places[k]
		s.get(id).partOf = rootID
		s.get(rootID).parts = append(s.get(rootID).parts, id)
	}
	for i, id := range ids {
		rec := s.get(id)
		if id != rootID {
			rec.instanced = true
		}
		if p.Path != "" {
			rec.origin = Origin{Prefab: p.Path, UID: p.Entities[i].ID}
		}
	}
	s.get(rootID).built = true
	return rootID, slots, nil
}

// destroyEntities destroys ids, children before parents so each Destroy finds
// its entity alive.
func destroyEntities(s *Store, ids []entity.ID) {
	for i := len(ids) - 1; i >= 0; i-- {
		s.Destroy(ids[i])
	}
}

// buildEntities fills the entities just created for defs (ids[i] for defs[i]) and
// returns each def's ID by its file id (slot or uid). defs are valid.
func buildEntities(s *Store, file string, defs []project.EntityDef, ids []entity.ID, r ComponentResolver) (map[uint32]entity.ID, error) {
	byID := make(map[uint32]entity.ID, len(defs))
	for i, d := range defs {
		byID[d.ID] = ids[i]
	}
	for i := range defs {
		d := &defs[i]
		if d.HasParent {
			if err := s.SetParent(ids[i], byID[d.Parent]); err != nil {
				return nil, &project.ConfigError{File: file, Line: d.Line, Key: "entity.parent", Reason: err.Error(), Err: err}
			}
		}
		if err := fillEntity(s, file, ids[i], d, r); err != nil {
			return nil, err
		}
	}
	return byID, nil
}

// fillEntity gives id the components of d.
func fillEntity(s *Store, file string, id entity.ID, d *project.EntityDef, r ComponentResolver) error {
	s.SetName(id, d.Name)
	*s.Transform(id) = d.Transform
	if d.Body != nil {
		s.SetBody(id, cloneBody(d.Body))
		if d.Body.Type != entity.Static && d.Body.Type != entity.Decoration {
			s.SetRigidbody(id, &entity.Rigidbody{Awake: true})
		}
	}
	if d.Controller != nil {
		s.SetController(id, d.Controller)
	}
	if d.Behavior != "" {
		props, _ := clonePlain(d.Props).(map[string]any)
		s.SetBehavior(id, d.Behavior, props)
	}
	for _, c := range d.Components {
		fail := func(err error, format string, args ...any) error {
			line := c.Line
			if line == 0 {
				line = d.Line
			}
			return &project.ConfigError{File: file, Line: line, Key: "entity.components." + c.Type, Reason: fmt.Sprintf(format, args...), Err: err}
		}
		if r == nil {
			return fail(nil, "no component types are registered to read it (the entry script's vkmSetupNetwork registers them)")
		}
		typ, v, err := r.Resolve(c)
		switch {
		case err != nil:
			return fail(err, "%v", err)
		case typ < 0:
			return fail(nil, "the schema gave it type %d, which is not a type index", typ)
		case s.Component(id, typ) != nil:
			return fail(nil, "is the same schema type (%d) as another component on this entity", typ)
		}
		copy(s.AddComponent(id, typ, len(v)), v)
	}
	return nil
}

// cloneBody returns a deep copy of b, so no two entities share shapes.
func cloneBody(b *entity.BodyDef) *entity.BodyDef {
	c := *b
	c.Shapes = make([]entity.Shape, len(b.Shapes))
	for i, sh := range b.Shapes {
		if sh.Points != nil {
			sh.Points = append([]entity.Vec2(nil), sh.Points...)
		}
		c.Shapes[i] = sh
	}
	return &c
}

// clonePlain returns a deep copy of game data (see plainValue), so each
// behavior instance starts with props of its own.
func clonePlain(v any) any {
	switch v := v.(type) {
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clonePlain(e)
		}
		return c
	case map[string]any:
		if v == nil {
			return map[string]any(nil)
		}
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = clonePlain(e)
		}
		return c
	}
	return v
}
