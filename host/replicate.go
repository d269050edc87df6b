package host

import (
	"maps"
	"slices"

	"vkm/internal/entity"
	"vkm/replication"
	"vkm/transport"
)

// SpawnBuildsPerFrame is how many spawned prefabs a client builds in one
// frame. Each build reads and instantiates a file, and how many arrive is
// the server's to decide: what waits keeps its NetSpawn and is built next
// frame.
const SpawnBuildsPerFrame = 4

// buildRound describes the world once for this send round, whatever the
// number of peers: every live entity in slot order with its silence class
// and components. A Transform's scale is bounded as the wire bounds it and
// written back, so what the server simulates is what every client is told.
func (s *serverSession) buildRound() {
	g := s.game
	st := g.store
	if s.round == nil {
		s.round = replication.NewRound(g.schema)
	}
	r := s.round
	r.Begin(g.tick)
	st.Each(func(id entity.ID) bool {
		silence := replication.Described
		if st.Instanced(id) {
			silence = replication.InInstance
		} else if b := st.Body(id); b != nil && b.Type == entity.Static {
			silence = replication.StaticBody
		}
		r.Entity(id, silence)
		t := st.Transform(id)
		t.Scale = r.Transform(*t)
		if rb := st.Rigidbody(id); rb != nil {
			r.Rigidbody(*rb)
		}
		if c := st.Controller(id); c != nil {
			r.CharacterController(*c)
		}
		if ns := st.NetSpawn(id); ns != nil {
			if err := r.NetSpawn(*ns); err != nil {
				s.log.Warn("spawn record not sent", "entity", id.String(), "prefab", ns.Prefab, "err", err)
			}
		}
		st.EachComponent(id, func(typ int, v entity.Values) {
			if err := r.Project(typ, v); err != nil {
				s.log.Warn("component not sent", "entity", id.String(), "type", g.schema.Types[typ].Name, "err", err)
			}
		})
		return true
	})
}

// sendRound writes one snapshot to every player whose first packet has
// arrived (it proves the Welcome did): the round is built once, then each
// peer's baseline decides what its snapshot says.
func (s *serverSession) sendRound(now transport.Time) {
	s.players = s.net.Players(s.players[:0], now)
	built := false
	for _, p := range s.players {
		st := s.seats[p.Player]
		if !p.Playing || st == nil {
			continue
		}
		if !built {
			s.buildRound()
			built = true
		}
		if st.peer == nil {
			st.peer = replication.NewPeer(s.game.schema)
		}
		conn := s.net.Conn(p.Player)
		st.peer.Acknowledge(conn)
		s.payload = st.peer.Write(s.payload[:0], s.round, st.entity, transport.MaxDataPayload)
		seq, err := s.net.Send(p.Player, s.payload, now)
		if err != nil {
			s.log.Warn("snapshot not sent", "player", p.Player, "err", err)
			continue
		}
		st.peer.Sent(seq)
	}
	s.rounds++
}

// applySnapshot puts what a snapshot says into the client's world:
// removals first, then each entry, building fresh what is new at its slot.
// Spawned prefabs are built later, after the frame's snapshots are read.
func (c *clientSession) applySnapshot(payload []byte) {
	g := c.game
	if err := c.snap.Decode(g.schema, payload); err != nil {
		c.badSnapshots++
		return
	}
	sn := &c.snap
	c.serverTick = sn.Tick
	for _, id := range sn.Removals {
		if g.store.Alive(id) {
			g.Destroy(id)
		}
	}
	for i := range sn.Entries {
		c.applyEntry(&sn.Entries[i])
	}
	if g.own != sn.Own {
		g.SetOwn(sn.Own)
	}
}

func (c *clientSession) applyEntry(e *replication.Entry) {
	g := c.game
	st := g.store
	id := e.ID
	if cur := st.At(id.Slot); cur != id {
		if !cur.IsNone() {
			g.Destroy(cur) // another occupant: the newcomer is built fresh
		}
		if _, err := st.CreateOccupant(id); err != nil {
			c.log.Warn("snapshot names an entity this end cannot make", "entity", id.String(), "err", err)
			return
		}
	}
	if e.Fresh {
		c.dropUnlisted(id, e)
	}
	for _, ch := range e.Changes {
		c.applyChange(id, e, ch)
	}
	if e.Has(replication.TypeTransform) && st.NetSpawn(id) != nil {
		c.placed[id] = true // the build keeps this pose, not the spawn's
	}
}

// dropUnlisted removes every component of id a fresh entry does not list.
func (c *clientSession) dropUnlisted(id entity.ID, e *replication.Entry) {
	st := c.game.store
	if st.Rigidbody(id) != nil && !e.Has(replication.TypeRigidbody) {
		st.SetRigidbody(id, nil)
	}
	if st.Controller(id) != nil && !e.Has(replication.TypeCharacterController) {
		st.SetController(id, nil)
	}
	var drop []int
	st.EachComponent(id, func(typ int, _ entity.Values) {
		if !e.Has(replication.EngineTypes + typ) {
			drop = append(drop, typ)
		}
	})
	for _, typ := range drop {
		st.RemoveComponent(id, typ)
	}
}

func (c *clientSession) applyChange(id entity.ID, e *replication.Entry, ch replication.Change) {
	st := c.game.store
	switch typ := ch.Type; {
	case typ == replication.TypeTransform:
		if !ch.Removed {
			*st.Transform(id) = e.Transform
		}
	case typ == replication.TypeRigidbody:
		if ch.Removed {
			st.SetRigidbody(id, nil)
		} else {
			rb := e.Rigidbody
			st.SetRigidbody(id, &rb)
		}
	case typ == replication.TypeCharacterController:
		if ch.Removed {
			st.SetController(id, nil)
		} else if cc := st.Controller(id); cc != nil {
			cc.Grounded = e.Character.Grounded
		} else {
			st.SetController(id, &entity.CharacterController{Grounded: e.Character.Grounded})
		}
	case typ == replication.TypeNetSpawn:
		if ch.Removed || e.SpawnRefused || st.Built(id) || st.NetSpawn(id) != nil {
			return // said again until confirmed: build once, never over an instance
		}
		ns := e.Spawn
		ns.Slots = slices.Clone(ns.Slots)
		st.SetNetSpawn(id, &ns)
		c.spawns = append(c.spawns, id)
	default:
		p := typ - replication.EngineTypes
		if ch.Removed {
			st.RemoveComponent(id, p)
		} else {
			copy(st.AddComponent(id, p, len(ch.Values)), ch.Values)
		}
	}
}

// buildSpawns builds up to SpawnBuildsPerFrame of the prefabs snapshots
// have announced, each into the slots the server named, then puts what the
// snapshots said back over the file's authored values (the server holds
// those confirmed and will not say them again) and drops the NetSpawn: what
// still carries one is exactly what waits.
func (c *clientSession) buildSpawns() {
	g := c.game
	st := g.store
	built := 0
	for len(c.spawns) > 0 && built < SpawnBuildsPerFrame {
		root := c.spawns[0]
		c.spawns = c.spawns[1:]
		ns := st.NetSpawn(root)
		if ns == nil || !st.Alive(root) {
			continue
		}
		built++
		if err := c.build(root, ns); err != nil {
			c.log.Warn("spawned prefab not built", "entity", root.String(), "prefab", ns.Prefab, "err", err)
		}
		st.SetNetSpawn(root, nil)
	}
}

func (c *clientSession) build(root entity.ID, ns *entity.NetSpawn) error {
	g := c.game
	st := g.store
	p, err := g.prefab(ns.Prefab)
	if err != nil {
		return err
	}
	// What the snapshots said, kept to go back over the authored values. A
	// root no snapshot placed (a static body is never described) stands at
	// the spawn's pose, bit for bit.
	said, placed := *st.Transform(root), c.placed[root]
	delete(c.placed, root)
	var rb *entity.Rigidbody
	if b := st.Rigidbody(root); b != nil {
		v := *b
		rb = &v
	}
	comps := map[int]entity.Values{}
	st.EachComponent(root, func(typ int, v entity.Values) { comps[typ] = slices.Clone(v) })
	for typ := range comps {
		st.RemoveComponent(root, typ)
	}
	at := make(map[uint32]uint32, len(ns.Slots))
	for _, s := range ns.Slots {
		at[s.UID] = s.Slot
	}
	_, _, err = InstantiateInto(st, p, ns.Pose, g, root, at)
	if err != nil {
		return err
	}
	if placed {
		*st.Transform(root) = said
	}
	if rb != nil {
		st.SetRigidbody(root, rb)
	}
	for _, typ := range slices.Sorted(maps.Keys(comps)) {
		v := comps[typ]
		copy(st.AddComponent(root, typ, len(v)), v)
	}
	return g.bring(st.Subtree(root), true)
}
