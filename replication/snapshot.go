package replication

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"vkm/internal/entity"
	"vkm/wire"
)

// Snapshot is one decoded snapshot, as a client applies it: removals first,
// then entries. Decode the whole payload before applying any of it, so a
// malformed snapshot changes nothing.
//
// Applying it (what the client must do, and what the server's baseline
// assumes it did):
//
//   - each removal: if the slot holds that occupant, drop it (and the
//     prefab instance below it); otherwise ignore it;
//   - each entry: if the slot holds another occupant, drop that one first;
//     make the entry's occupant exist at the slot; if the entry is Fresh,
//     drop every component of it the entry does not list; then set each
//     component the entry carries and drop each one it marks removed.
//
// The header's short forms resolve against what the receiver knows: Tick
// against the tick of the last snapshot this Snapshot read, Own against
// the own entity it named, and the command feedback against the Refs the
// caller passes (see the package doc, "Header"). Tick, Own and Commands
// always hold the resolved, whole values. So one connection's snapshots
// are read through one Snapshot, in the order they arrive (a connection
// delivers only ever newer packets); a snapshot that fails to decode
// leaves those references as they were.
//
// A Snapshot's slices alias its own storage, which the next Decode reuses:
// copy what must outlive it. The zero value is ready to use, with no
// references yet. A Snapshot is not safe for concurrent use.
type Snapshot struct {
	Tick        uint32
	Own         entity.ID // the connection's own entity; entity.None if it has none
	Commands    Commands
	HasCommands bool
	Removals    []entity.ID // in order
	Entries     []Entry     // in order, the own entity's first when written

	// TickRate is the server's ticks a second, which a moving body's
	// predicted state is reckoned in (see turn.go). With none set, a
	// snapshot holding a predicted state is refused.
	TickRate int

	// prior says a snapshot has been read; priorTick and priorOwn are
	// its tick and own entity, resolved.
	prior     bool
	priorTick uint32
	priorOwn  entity.ID

	// hdrGap is the gap the header named for predicted states (0: none);
	// rings the states each slot's occupant was last said to have, by
	// tick, kept from one snapshot to the next (see turn.go).
	hdrGap int
	rings  map[uint32]*turnRing

	changes []Change
	values  []float64
	slots   []entity.SpawnSlot
	path    []byte
	seen    []uint32
}

// Entry is what a snapshot says of one entity.
type Entry struct {
	ID entity.ID
	// Fresh says the entry lists every component the entity has: any
	// other the client holds for it goes.
	Fresh bool
	// Changes lists each component type the entry carries or removes, in
	// wire type order. The engine components' values are in the fields
	// below; a project component's in its Change.
	Changes []Change

	Transform entity.Transform           // when Changes carries TypeTransform
	Rigidbody entity.Rigidbody           // when Changes carries TypeRigidbody
	Character entity.CharacterController // Grounded only; when Changes carries TypeCharacterController
	// Spawn is the NetSpawn when Changes carries TypeNetSpawn. A spawn the
	// client must not believe (a path or pose the server would have
	// refused) is carried with SpawnRefused set and no Prefab: the client
	// builds nothing from it.
	Spawn        entity.NetSpawn
	SpawnRefused bool

	// turn is the Transform's and Rigidbody's turn, when the entry
	// carries both (hasTurn).
	turn    turn
	hasTurn bool
}

// Change is one component type an entry carries or removes.
type Change struct {
	Type    int  // wire type: an engine Type constant, or EngineTypes + project index
	Removed bool // the entity no longer has it
	// Values holds a carried project component's fields in its type's
	// field order; nil for an engine type or a removal.
	Values entity.Values

	vfirst, vend int32 // in the Snapshot's values, until fixed up
}

// Has reports whether the entry carries a component of wire type typ (not
// removed).
func (e *Entry) Has(typ int) bool {
	c := e.change(typ)
	return c != nil && !c.Removed
}

// Removes reports whether the entry marks wire type typ removed.
func (e *Entry) Removes(typ int) bool {
	c := e.change(typ)
	return c != nil && c.Removed
}

func (e *Entry) change(typ int) *Change {
	for i := range e.Changes {
		if e.Changes[i].Type == typ {
			return &e.Changes[i]
		}
	}
	return nil
}

// Refs is what a client knows that the command feedback's short forms
// resolve against (see the package doc, "Header").
type Refs struct {
	// Sequence is the newest command sequence this end has made (0 before
	// the first). The newest the server has received is never above it.
	Sequence uint32
	// ClientTick is this end's current client tick.
	ClientTick uint32
}

// Decode reads a snapshot payload written by Peer.Write under schema s into
// sn, resolving the header's short forms (see Snapshot). Any malformed
// field, a truncated payload, trailing bytes or padding bits that are not
// zero, a slot said twice, an occupant named both removed and present, or
// a short tick or an own entity "as last stated" with no snapshot read
// before is an error, never a panic; sn's contents are then unspecified
// and must not be applied. A NetSpawn the server should have refused is
// not an error: it decodes with SpawnRefused and the rest of the snapshot
// is read as usual.
func (sn *Snapshot) Decode(s *Schema, payload []byte, refs Refs) error {
	sn.reset()
	r := wire.NewReader(payload)
	if err := sn.readHeader(r, refs); err != nil {
		return err
	}
	for {
		more, err := r.ReadBool()
		if err != nil {
			return errShort
		}
		if !more {
			break
		}
		id, ok := readID(r)
		if !ok {
			return errOccupant(r, "removal")
		}
		sn.Removals = append(sn.Removals, id)
	}
	for {
		more, err := r.ReadBool()
		if err != nil {
			return errShort
		}
		if !more {
			break
		}
		e, err := sn.readEntry(r, s)
		if err != nil {
			return err
		}
		sn.Entries = append(sn.Entries, e)
	}
	if n := r.Remaining(); n >= 8 {
		return fmt.Errorf("replication: snapshot: %d bytes after its end", n/8)
	} else if pad, _ := r.ReadBits(n); pad != 0 {
		return errors.New("replication: snapshot: padding bits are not zero")
	}
	if err := sn.checkOccupants(); err != nil {
		return err
	}
	sn.fixUp()
	sn.keepTurns()
	sn.remember()
	return nil
}

// keepTurns records, once a snapshot has decoded whole, the turn each of
// its entries left its occupant with, as the snapshot is applied:
// removals first, and an entry for another occupant starts its slot's
// states again. A fresh entry for the same occupant does not: what it
// held at the earlier ticks it held.
func (sn *Snapshot) keepTurns() {
	for _, id := range sn.Removals {
		if tr := sn.rings[id.Slot]; tr != nil && tr.id == id {
			delete(sn.rings, id.Slot)
		}
	}
	for i := range sn.Entries {
		e := &sn.Entries[i]
		tr := sn.rings[e.ID.Slot]
		if tr == nil || tr.id != e.ID {
			if !e.hasTurn {
				if tr != nil {
					delete(sn.rings, e.ID.Slot)
				}
				continue
			}
			if tr == nil {
				if sn.rings == nil {
					sn.rings = map[uint32]*turnRing{}
				}
				tr = new(turnRing)
				sn.rings[e.ID.Slot] = tr
			}
			*tr = turnRing{id: e.ID}
		}
		if e.hasTurn {
			tr.push(sn.Tick, e.turn)
		}
	}
}

// DecodeHeader reads only the header of a snapshot payload into sn, as
// Decode would, and takes it as read: the tick and own entity become the
// references the next header resolves against. Removals and Entries are
// left empty and the rest of the payload is not looked at. A client that
// drops a snapshot unapplied after reading its header (one written under
// a schema it has since replaced) reads it with this, so its references
// stay those of the newest snapshot the connection delivered.
func (sn *Snapshot) DecodeHeader(payload []byte, refs Refs) error {
	sn.reset()
	if err := sn.readHeader(wire.NewReader(payload), refs); err != nil {
		return err
	}
	sn.remember()
	return nil
}

// remember makes the header just read the references of the next.
func (sn *Snapshot) remember() {
	sn.prior, sn.priorTick, sn.priorOwn = true, sn.Tick, sn.Own
}

var errShort = errors.New("replication: snapshot: truncated")

func errOccupant(r *wire.Reader, what string) error {
	if r.Err() != nil {
		return errShort
	}
	return fmt.Errorf("replication: snapshot: malformed %s occupant", what)
}

func (sn *Snapshot) reset() {
	*sn = Snapshot{
		TickRate:  sn.TickRate,
		rings:     sn.rings,
		prior:     sn.prior,
		priorTick: sn.priorTick,
		priorOwn:  sn.priorOwn,
		Removals:  sn.Removals[:0],
		Entries:   sn.Entries[:0],
		changes:   sn.changes[:0],
		values:    sn.values[:0],
		slots:     sn.slots[:0],
		path:      sn.path,
		seen:      sn.seen[:0],
	}
}

// readHeader reads the header (see writeHeader) and resolves its short
// forms: the tick to the one nearest the last snapshot's, newest to the
// highest value not above refs.Sequence, judged to the one nearest
// refs.ClientTick, each with the low 16 bits sent.
func (sn *Snapshot) readHeader(r *wire.Reader, refs Refs) error {
	full, _ := r.ReadBool()
	width := shortBits
	if full {
		width = tickBits
	}
	tick, _ := r.ReadBits(width)
	stated, _ := r.ReadBool()
	if stated {
		if has, _ := r.ReadBool(); has {
			id, ok := readID(r)
			if !ok {
				return errOccupant(r, "own")
			}
			sn.Own = id
		}
	}
	var newest, judged uint64
	if has, _ := r.ReadBool(); has {
		sn.HasCommands = true
		newest, _ = r.ReadBits(width)
		judged, _ = r.ReadBits(width)
		lw, _ := r.ReadBits(lowWaterBits)
		sn.Commands.LowWater = uint8(lw)
	}
	if gap, _ := r.ReadBool(); gap {
		g, _ := r.ReadBits(turnGapBits)
		sn.hdrGap = int(g) + 1
	}
	if r.Err() != nil {
		return errShort
	}
	if (!full || !stated) && !sn.prior {
		return errors.New("replication: snapshot: a short header with no snapshot before it")
	}
	if !stated {
		sn.Own = sn.priorOwn
	}
	if full {
		sn.Tick = uint32(tick)
		sn.Commands.Newest, sn.Commands.Judged = uint32(newest), uint32(judged)
		return nil
	}
	sn.Tick = nearest(uint16(tick), sn.priorTick)
	if sn.HasCommands {
		sn.Commands.Newest = atMost(uint16(newest), refs.Sequence)
		sn.Commands.Judged = nearest(uint16(judged), refs.ClientTick)
	}
	return nil
}

// nearest returns the value with low 16 bits low nearest ref: within
// ref − 32768 .. ref + 32767, modulo 2^32.
func nearest(low uint16, ref uint32) uint32 {
	return ref + uint32(int32(int16(low-uint16(ref))))
}

// atMost returns the highest value with low 16 bits low not above ref:
// within ref − 65535 .. ref, modulo 2^32.
func atMost(low uint16, ref uint32) uint32 {
	return ref - uint32(uint16(uint16(ref)-low))
}

// readEntry reads one entry (after its continuation bit).
func (sn *Snapshot) readEntry(r *wire.Reader, s *Schema) (Entry, error) {
	var e Entry
	id, ok := readID(r)
	if !ok {
		return e, errOccupant(r, "entry")
	}
	e.ID = id
	e.Fresh, _ = r.ReadBool()
	first := len(sn.changes)
	if moving, _ := r.ReadBool(); moving {
		// A body in motion: its Transform and Rigidbody, nothing else,
		// as its state (turn.go).
		sn.changes = append(sn.changes, Change{Type: TypeTransform}, Change{Type: TypeRigidbody})
		if err := sn.readMoving(r, &e); err != nil {
			if r.Err() != nil {
				return e, errShort
			}
			return e, err
		}
		e.Changes = sn.changes[first:len(sn.changes):len(sn.changes)]
		return e, nil
	}
	engine, _ := r.ReadBits(EngineTypes)
	var proj bool
	if len(s.Types) > 0 {
		proj, _ = r.ReadBool()
	}
	for t := range EngineTypes {
		if engine&(1<<t) != 0 {
			sn.changes = append(sn.changes, Change{Type: t})
		}
	}
	if proj {
		some := false
		for i := range s.Types {
			if on, _ := r.ReadBool(); on {
				sn.changes = append(sn.changes, Change{Type: EngineTypes + i})
				some = true
			}
		}
		if !some && r.Err() == nil {
			return e, errors.New("replication: snapshot: empty project mask")
		}
	}
	if r.Err() != nil {
		return e, errShort
	}
	for i := first; i < len(sn.changes); i++ {
		if err := sn.readChange(r, s, &e, i); err != nil {
			if r.Err() != nil {
				return e, errShort
			}
			return e, err
		}
	}
	e.Changes = sn.changes[first:len(sn.changes):len(sn.changes)] // re-sliced by fixUp
	if e.Has(TypeTransform) && e.Has(TypeRigidbody) {
		t, b := &e.Transform, &e.Rigidbody
		e.turn = turnOf(t.Angle, t.Scale, b.AngularVelocity).placed(t.X, t.Y, b.VX, b.VY)
		e.hasTurn = true
	}
	return e, nil
}

// readMoving reads a moving-body entry's Transform and Rigidbody, as its
// state.
func (sn *Snapshot) readMoving(r *wire.Reader, e *Entry) error {
	var ring *turnRing
	if tr := sn.rings[e.ID.Slot]; tr != nil && tr.id == e.ID {
		ring = tr
	}
	t, err := sn.readTurn(r, ring, sn.hdrGap)
	if err != nil {
		return err
	}
	e.Transform = entity.Transform{
		X: wire.Position.Decode(codeOf(wire.Position, t.x)), Y: wire.Position.Decode(codeOf(wire.Position, t.y)),
		Angle: t.angle(), Scale: float64(t.scale),
	}
	e.Rigidbody = entity.Rigidbody{
		VX: wire.Velocity.Decode(codeOf(wire.Velocity, int32(t.vx))), VY: wire.Velocity.Decode(codeOf(wire.Velocity, int32(t.vy))),
		AngularVelocity: t.angularVelocity(), Awake: true,
	}
	e.turn, e.hasTurn = t, true
	return nil
}

// readChange reads the presence bit and the bits of change i of e.
func (sn *Snapshot) readChange(r *wire.Reader, s *Schema, e *Entry, i int) error {
	c := &sn.changes[i]
	carried, err := r.ReadBool()
	if err != nil {
		return err
	}
	if !carried {
		if e.Fresh {
			return errors.New("replication: snapshot: a fresh entry removes a component")
		}
		c.Removed = true
		return nil
	}
	switch c.Type {
	case TypeTransform:
		e.Transform, err = readTransform(r)
	case TypeRigidbody:
		e.Rigidbody, err = readRigidbody(r)
	case TypeCharacterController:
		e.Character.Grounded, err = r.ReadBool()
	case TypeNetSpawn:
		var ok bool
		sn.path, sn.slots, ok, err = readSpawn(r, &e.Spawn, sn.path, sn.slots)
		e.SpawnRefused = !ok
	default:
		t := &s.Types[c.Type-EngineTypes]
		c.vfirst = int32(len(sn.values))
		sn.values, err = readValues(r, t, sn.values)
		c = &sn.changes[i]
		c.vend = int32(len(sn.values))
	}
	return err
}

// checkOccupants refuses a snapshot that names a slot in two entries, or
// removes an occupant that one of its entries describes: no writer does
// either, and a client applying one would keep whichever came last.
func (sn *Snapshot) checkOccupants() error {
	sn.seen = sn.seen[:0]
	for i := range sn.Entries {
		sn.seen = append(sn.seen, sn.Entries[i].ID.Slot)
	}
	sort.Sort((*slotOrder)(&sn.seen))
	for i := 1; i < len(sn.seen); i++ {
		if sn.seen[i] == sn.seen[i-1] {
			return fmt.Errorf("replication: snapshot: slot %d has two entries", sn.seen[i])
		}
	}
	for _, id := range sn.Removals {
		if _, found := slices.BinarySearch(sn.seen, id.Slot); !found {
			continue
		}
		for i := range sn.Entries {
			if sn.Entries[i].ID == id {
				return fmt.Errorf("replication: snapshot: %v is both removed and described", id)
			}
		}
	}
	return nil
}

// fixUp points every entry's Changes and every change's Values at the
// arenas' final storage (appends may have moved them while decoding).
func (sn *Snapshot) fixUp() {
	base := 0
	for i := range sn.Entries {
		e := &sn.Entries[i]
		n := len(e.Changes)
		e.Changes = sn.changes[base : base+n : base+n]
		base += n
		for j := range e.Changes {
			c := &e.Changes[j]
			if c.Type >= EngineTypes && !c.Removed {
				c.Values = sn.values[c.vfirst:c.vend:c.vend]
			}
		}
	}
}

// slotOrder sorts slots with sort.Sort, whose code the browser client
// links already, rather than an instance of slices.Sort of its own
// (13 KB); through a pointer, so that sorting allocates nothing.
type slotOrder []uint32

func (s *slotOrder) Len() int           { return len(*s) }
func (s *slotOrder) Less(i, j int) bool { return (*s)[i] < (*s)[j] }
func (s *slotOrder) Swap(i, j int)      { (*s)[i], (*s)[j] = (*s)[j], (*s)[i] }
