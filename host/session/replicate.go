package session

import (
	"errors"
	"maps"
	"slices"
	"time"

	"vkm/host/project"
	"vkm/host/session/netmsg"
	"vkm/host/store"
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
func (s *Server) buildRound() {
	g := s.game
	st := g.Store()
	if s.round == nil {
		s.round = replication.NewRound(g.Schema())
	}
	r := s.round
	r.Begin(g.Tick())
	st.Each(func(id entity.ID) bool {
		silence := replication.Described
		if part := st.PartOf(id); st.Instanced(id) && part.IsNone() {
			// Built from its root's NetSpawn, and carried by the
			// hierarchy.
			silence = replication.InInstance
		} else if b := st.Body(id); b != nil && b.Type == entity.Static && part.IsNone() {
			// A part is described whatever its body became, so that a
			// client building its instance finds it.
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
				s.log.Warn("component not sent", "entity", id.String(), "type", g.Schema().Types[typ].Name, "err", err)
			}
		})
		return true
	})
}

// sendRound writes one snapshot to every player whose first packet has
// arrived (it proves the Welcome did): the round is built once, then each
// peer's baseline decides what its snapshot says. A settled player's
// snapshot without news is held back but every SettledEvery-th round; the
// queue's low water is then the lowest over the rounds since the last one
// sent, as the header promises.
func (s *Server) sendRound(now transport.Time) {
	s.playing = s.net.AppendPlaying(s.playing[:0])
	built := false
	defer func() {
		s.relayersHeld = false
		clear(s.relayers) // no seat kept past the round
	}()
	for _, player := range s.playing {
		st, own, ok := s.sendSeat(player)
		if !ok {
			continue
		}
		if !built {
			s.buildRound()
			s.gatherRelayers()
			s.relayersHeld = true
			built = true
		}
		if st.peer == nil {
			st.peer = replication.NewPeer(s.game.Schema())
			st.peer.Reserve(s.round.Len())
			st.peer.SetTickRate(s.game.TickRate())
			if r := s.game.Project().Reach; r > 0 {
				st.peer.SetReach(replication.Reach{Near: r, Every: replication.ReachEvery})
			}
			for _, id := range s.game.SceneIDs() {
				st.peer.Hold(id) // the client loaded the same scene (the join compared it)
			}
			st.peer.Watch(st.inspect.id)
		}
		if w := s.watchers[player]; w != nil {
			st.peer.SetFocus(s.focus(w))
		} else {
			low := st.queue.LowWater()
			if st.lowHeld {
				low = min(low, st.lowWater)
			}
			st.lowWater, st.lowHeld = low, true
			st.peer.SetCommands(replication.Commands{Newest: st.queue.Newest(), Judged: st.queue.Judged(), LowWater: low})
		}
		conn := s.net.Conn(player)
		st.peer.Acknowledge(conn)
		st.rel.Acknowledge(conn, now)
		relay := s.relayFor(st)
		guests := s.guestSection(st)
		s.snap = st.peer.Write(s.snap[:0], s.round, own, transport.MaxDataPayload-netmsg.PayloadOverhead-len(relay)-len(guests))
		s.reportInspect(st, now)
		quiet := conn.AckSilent(now) // its link is down, or it is gone
		if quiet && st.held < QuietEvery-1 ||
			!quiet && !st.peer.Stats().News && st.rel.PendingMessages() == 0 && st.held < SettledEvery-1 {
			st.held++
			continue
		}
		st.held, st.lowHeld = 0, false
		s.payload = netmsg.AppendServerPayload(s.payload[:0], st.rel, relay, s.snap, guests, now)
		seq, err := s.net.Send(player, s.payload, now)
		if err != nil {
			s.log.Warn("snapshot not sent", "player", player, "err", err)
			continue
		}
		st.peer.Sent(seq)
		st.rel.Sent(seq)
	}
}

// applySnapshot puts what a snapshot says into the client's world:
// removals first, then each entry, building fresh what is new at its slot.
// Spawned prefabs are built later, after the frame's snapshots are read.
func (c *Client) applySnapshot(payload []byte) {
	g := c.game
	payload, err := netmsg.ParseServerPayloadGuests(payload, c.rel, &c.relay, &c.guestSec)
	if errors.Is(err, transport.ErrReliableProtocol) {
		c.end("The server broke the message channel: " + err.Error())
		return
	}
	if err != nil {
		c.badSnapshots++
		return
	}
	c.readMessages()
	if c.ended {
		return // a message ended the session: the world holds still
	}
	// The header's short forms resolve against the newest command made
	// here, this end's tick, and the header read before (which the
	// Snapshot keeps). The header is the same under every schema, and the
	// server takes every snapshot delivered as read: it is read first, so
	// the next one resolves even when the rest of this one is dropped.
	refs := replication.Refs{Sequence: c.history.Newest(), ClientTick: g.Tick()}
	if err := c.snap.DecodeHeader(payload, refs); err != nil {
		c.badSnapshots++
		return
	}
	if c.schemaFrom != 0 {
		if c.snap.Tick < c.schemaFrom {
			c.staleSchema++ // written before the reload changed the schema
			return
		}
		c.schemaFrom = 0
	}
	if err := c.snap.Decode(g.Schema(), payload, refs); err != nil {
		c.badSnapshots++
		return
	}
	sn := &c.snap
	if sn.HasCommands {
		c.history.Confirm(sn.Commands.Newest)
		rtt := time.Duration(0)
		if conn := c.net.Conn(); conn != nil {
			rtt = conn.RTT()
		}
		c.pacer.Observe(sn.Commands.LowWater, rtt, g.Project().TickRate)
	}
	h := c.hold()
	for _, id := range sn.Removals {
		delete(c.heardOf, id)
		delete(c.interp.tracks, id)
		if g.Store().Alive(id) {
			g.Destroy(id)
		}
	}
	for i := range sn.Entries {
		c.applyEntry(&sn.Entries[i])
	}
	c.arrived(sn, c.now)
	c.heard(sn, c.relay)
	c.takeGuestSection(c.guestSec)
	if g.Own() != sn.Own {
		g.SetOwn(sn.Own)
		return
	}
	if sn.HasCommands {
		c.reconcile(h, sn.Commands.Judged)
	}
}

func (c *Client) applyEntry(e *replication.Entry) {
	g := c.game
	st := g.Store()
	id := e.ID
	if c.heardOf == nil {
		c.heardOf = map[entity.ID]bool{}
	}
	if !c.heardOf[id] {
		// The server's first word on an entity: one this end held before
		// (a scene entity) had the scene's values, which fresh must not
		// count as seen (see game.Game.ForgetFresh).
		c.heardOf[id] = true
		g.ForgetFresh(id)
	}
	if cur := st.At(id.Slot); cur != id {
		if !cur.IsNone() {
			g.Destroy(cur) // another occupant: the newcomer is built fresh
		}
		if _, err := st.CreateOccupant(id); err != nil {
			c.unmade++
			c.log.Debug("snapshot names an entity this end cannot make", "entity", id.String(), "err", err)
			return
		}
		c.bare[id] = true
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
	if c.rec.wordOK && c.rec.wordID == id {
		c.hearComponents(id, e)
	}
	if w, leased := c.lastWord[id]; leased {
		// The server's newest word on a body predicted here, component by
		// component: an entry carries only what changed, and the rest of
		// the store holds this end's prediction.
		if e.Has(replication.TypeTransform) {
			w.t = e.Transform
		}
		if e.Has(replication.TypeRigidbody) {
			rb := e.Rigidbody
			w.rb = &rb
		}
		c.lastWord[id] = w
	}
}

// dropUnlisted removes every component of id a fresh entry does not list.
func (c *Client) dropUnlisted(id entity.ID, e *replication.Entry) {
	st := c.game.Store()
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

func (c *Client) applyChange(id entity.ID, e *replication.Entry, ch replication.Change) {
	st := c.game.Store()
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
		if waiting := st.NetSpawn(id); waiting != nil && !ch.Removed && !e.SpawnRefused && !st.Built(id) {
			// Said again, changed: a part destroyed alone since has left
			// the slot list. The build, still to come, leaves it out.
			ns := e.Spawn
			ns.Slots = slices.Clone(ns.Slots)
			*waiting = ns
			return
		}
		if ch.Removed || e.SpawnRefused || st.NetSpawn(id) != nil || st.Built(id) {
			return // said again until confirmed: build once
		}
		if !c.bare[id] {
			// Only what a snapshot made here is built into: never an
			// entity this end loaded or built itself.
			c.log.Warn("spawn record on an entity this end did not make from a snapshot; not built", "entity", id.String(), "prefab", e.Spawn.Prefab)
			return
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
// still carries one is exactly what waits. A prefab whose parts the server
// describes (project.Prefab.IsPart) waits until a snapshot has made each of
// them here under the server's name, so that the build takes them in.
func (c *Client) buildSpawns() {
	g := c.game
	st := g.Store()
	built := 0
	waiting := c.spawns
	c.spawns = nil
	for i, root := range waiting {
		if built >= SpawnBuildsPerFrame {
			c.spawns = append(c.spawns, waiting[i:]...)
			break
		}
		ns := st.NetSpawn(root)
		if ns == nil || !st.Alive(root) {
			delete(c.placed, root)
			delete(c.bare, root)
			continue
		}
		err := c.build(root, ns)
		if errors.Is(err, errPartsToCome) {
			c.spawns = append(c.spawns, root)
			continue
		}
		built++
		if err != nil {
			c.log.Warn("spawned prefab not built", "entity", root.String(), "prefab", ns.Prefab, "err", err)
		}
		st.SetNetSpawn(root, nil)
		delete(c.placed, root)
		delete(c.bare, root)
		if root == c.rec.wordID {
			c.rec.wordOK = false // taken again from the build (takeWord)
		}
	}
}

// errPartsToCome is build waiting for a part's first snapshot entry.
var errPartsToCome = errors.New("session: a described part of the instance has not arrived")

// describedPart reports whether defs[i] of p is a part, which the server
// describes, whatever its body becomes.
func describedPart(p *project.Prefab, i int) bool { return p.IsPart(i) }

// placedPart reports whether the pose a snapshot gave part uid of p is
// the one it is built at: a static one keeps the spawn's, bit for bit, as
// a static root does (the wire's is rounded).
func placedPart(p *project.Prefab, uid uint32) bool {
	d := p.Entity(uid)
	return d == nil || d.Body == nil || d.Body.Type != entity.Static
}

// hearComponents folds what entry e says of id's components into the
// server's word on them. A fresh entry says all of them: the store holds
// exactly the word, unless a prefab is still to be built into it.
func (c *Client) hearComponents(id entity.ID, e *replication.Entry) {
	st := c.game.Store()
	if e.Fresh {
		c.rec.wordOK = st.NetSpawn(id) == nil
		if c.rec.wordOK {
			c.rec.word.take(st, id)
		}
		return
	}
	for _, ch := range e.Changes {
		if ch.Type < replication.EngineTypes {
			continue
		}
		if ch.Removed {
			c.rec.word.remove(ch.Type - replication.EngineTypes)
		} else {
			c.rec.word.set(ch.Type-replication.EngineTypes, ch.Values)
		}
	}
}

// takeWord starts the server's word on the own entity's components from
// what the store holds, once the entity is built and before this client
// simulates it: the snapshots' values over what the scene or prefab
// authored, which the server holds confirmed and does not say again.
func (c *Client) takeWord() {
	g := c.game
	own := g.Own()
	if !c.playing || own.IsNone() || !g.Store().Alive(own) || g.Store().NetSpawn(own) != nil {
		return
	}
	if c.rec.wordOK && c.rec.wordID == own {
		return
	}
	c.rec.word.take(g.Store(), own)
	c.rec.wordID, c.rec.wordOK = own, true
}

func (c *Client) build(root entity.ID, ns *entity.NetSpawn) error {
	g := c.game
	st := g.Store()
	p, err := g.Prefab(ns.Prefab)
	if err != nil {
		return err
	}
	at := make(map[uint32]uint32, len(ns.Slots))
	for _, s := range ns.Slots {
		at[s.UID] = s.Slot
	}
	into := map[uint32]entity.ID{p.Entities[p.Root].ID: root}
	var gone []uint32
	for i := range p.Entities {
		if !describedPart(p, i) {
			continue
		}
		uid := p.Entities[i].ID
		slot, ok := at[uid]
		if !ok {
			gone = append(gone, uid) // destroyed alone on the server
			continue
		}
		id := st.At(slot)
		if id.IsNone() || !c.bare[id] {
			return errPartsToCome
		}
		into[uid] = id
	}
	saids := make(map[entity.ID]said, len(into))
	for _, id := range into {
		s := c.keep(id)
		s.strip(st, id)
		saids[id] = s
	}
	_, slots, err := store.InstantiateInto(st, p, ns.Pose, g, into, at)
	for uid, id := range into {
		// A part was made by its snapshot entry, which placed it.
		saids[id].restore(st, id, id != root && placedPart(p, uid) || id == root && c.placed[root])
		if id != root {
			delete(c.bare, id)
		}
	}
	if err != nil {
		return err
	}
	for _, uid := range gone {
		st.Destroy(slots[uid]) // built only to be left out, before it is brought
	}
	for _, s := range ns.Slots {
		if id, ok := slots[s.UID]; ok && id.Slot != s.Slot {
			// The slot was taken here: the two ends' slots part for this
			// entity, which the server describes only through its root.
			c.log.Warn("spawned prefab entity built into another slot", "prefab", ns.Prefab, "uid", s.UID, "server_slot", s.Slot, "slot", id.Slot)
		}
	}
	return g.Bring(st.Members(root), true)
}

// said is what snapshots told a waiting root, kept to go back over the
// prefab's authored values (the server holds them confirmed and will not
// say them again).
type said struct {
	transform  entity.Transform
	rigidbody  *entity.Rigidbody
	grounded   *bool
	components map[int]entity.Values
}

func (c *Client) keep(root entity.ID) said {
	st := c.game.Store()
	s := said{transform: *st.Transform(root), components: map[int]entity.Values{}}
	if b := st.Rigidbody(root); b != nil {
		v := *b
		s.rigidbody = &v
	}
	if cc := st.Controller(root); cc != nil {
		g := cc.Grounded
		s.grounded = &g
	}
	st.EachComponent(root, func(typ int, v entity.Values) { s.components[typ] = slices.Clone(v) })
	return s
}

// strip removes the project components a build would refuse to add twice.
func (s said) strip(st *store.Store, root entity.ID) {
	for typ := range s.components {
		st.RemoveComponent(root, typ)
	}
}

// restore puts what the snapshots said back. A root no snapshot placed (a
// static body is never described) keeps the spawn's pose, bit for bit.
func (s said) restore(st *store.Store, root entity.ID, placed bool) {
	if placed {
		*st.Transform(root) = s.transform
	}
	if s.rigidbody != nil {
		st.SetRigidbody(root, s.rigidbody)
	}
	if s.grounded != nil {
		if cc := st.Controller(root); cc != nil {
			cc.Grounded = *s.grounded
		} else {
			st.SetController(root, &entity.CharacterController{Grounded: *s.grounded})
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(s.components)) {
		v := s.components[typ]
		copy(st.AddComponent(root, typ, len(v)), v)
	}
}
