package conformance

import (
	"errors"
	"fmt"
	"math"
)

// Engine field codecs ("Snapshots", Components).
var (
	PositionCodec = quantised{22, 0.001}
	AngleCodec    = quantised{18, math.Pi / (1<<17 - 1)}
	VelocityCodec = quantised{16, 0.01}
	SpinCodec     = quantised{20, 0.0005}
)

// Snapshot bounds.
const (
	MaxSlot     = 1<<24 - 1
	MaxScale    = 1024 // wire.MaxScale
	lowWaterLen = 4
	slotGroup   = 7
	genGroup    = 3
	engineTypes = 4 // Transform, Rigidbody, CharacterController, NetSpawn
	maxSpawnLen = 128
	maxSpawnIDs = 32
)

// Entity is a slot and generation.
type Entity struct{ Slot, Generation uint32 }

func (e Entity) String() string { return fmt.Sprintf("%d#%d", e.Slot, e.Generation) }

// SnapshotContext is what a client knows when it reads a snapshot: what
// the short forms are read against, and the project's types.
type SnapshotContext struct {
	Read          bool   // a snapshot was read before
	LastTick      uint32 // the tick of the snapshot read last
	LastOwn       Entity // the own entity the last stated header named
	LastHasOwn    bool
	NewestCommand uint32 // the newest command sequence the client has made
	ClientTick    uint32 // the client's current tick
	Project       []SchemaType
}

// Snapshot is a decoded snapshot.
type Snapshot struct {
	Full        bool
	Tick        uint32
	Stated      bool
	HasOwn      bool
	Own         Entity
	HasFeedback bool
	Newest      uint32 // newest command sequence received
	Judged      uint32 // client tick judged
	LowWater    uint8
	HeaderBits  int // the header's bits
	Gap         int // the header's gap for predicted turns; 0: none
	Bits        int // every bit but the padding
	Removals    []Entity
	Entries     []Entry
}

// Transform is a decoded Transform, with its codes.
type Transform struct {
	XCode, YCode uint64
	Turned       bool
	AngleCode    uint64
	ScaleSet     bool
	Scale        float64 // 1 unless set; a non-finite scale reads as 1, clamped to ±1024
}

// X and Y are the position in metres.
func (t Transform) X() float64 { return PositionCodec.value(t.XCode) }
func (t Transform) Y() float64 { return PositionCodec.value(t.YCode) }

// Angle is the angle in radians: 0 unless turned.
func (t Transform) Angle() float64 {
	if !t.Turned {
		return 0
	}
	return AngleCodec.value(t.AngleCode)
}

// Turn is a moving-body entry's state as sent: its form ("still" and
// "whole" for the whole form, its turn still or not; "header" for
// predicted from the header's gap, "gap" for predicted from a gap of its
// own), the gap in ticks of a predicted one, and its seven numbers,
// unzigzagged: the velocity's turn less the state's, the velocity's and
// the position's residuals, the angular velocity's code less the
// state's, and the angle's residual in steps.
type Turn struct {
	Form              string
	Gap               int
	VelocityTurn      int64
	VX, VY, X, Y      int64
	SpinDiff, Residue int64
}

// Rigidbody is a decoded Rigidbody, with its codes.
type Rigidbody struct {
	Moving         bool
	VXCode, VYCode uint64
	Spinning       bool
	SpinCode       uint64
	Awake          bool
}

// VX and VY are the velocity in m/s.
func (b Rigidbody) VX() float64 { return VelocityCodec.value(b.VXCode) }
func (b Rigidbody) VY() float64 { return VelocityCodec.value(b.VYCode) }

// NetSpawn is a decoded NetSpawn. A reader ignores one it cannot act on:
// Ignored says why, and the snapshot is still accepted.
type NetSpawn struct {
	Path    string
	Pose    [4]float64 // x, y, angle, scale
	Slots   []SpawnSlot
	Ignored string
}

// SpawnSlot places a prefab uid in a slot.
type SpawnSlot struct{ UID, Slot uint32 }

// ProjectComponent is a project type's field codes, in order.
type ProjectComponent struct {
	Type  int
	Codes []uint64
}

// Entry is one entry of a snapshot. A component the masks name with its
// carried bit 0 is in Removed.
type Entry struct {
	Entity
	Fresh, Moving bool
	Transform     *Transform
	Rigidbody     *Rigidbody
	// Turn is a moving-body entry's turn as sent. A predicted one's
	// angle and angular velocity depend on a state this decoder does not
	// keep: its Transform and Rigidbody then hold the position and
	// velocity alone.
	Turn     *Turn
	Grounded *bool // CharacterController
	NetSpawn *NetSpawn
	Project  []ProjectComponent
	Removed  []string
	Bits     int // from its continuation bit to its end
}

// ParseSnapshot decodes a snapshot (the packet proper of a server's Data)
// as "Snapshots" lays it out.
func ParseSnapshot(b []byte, ctx SnapshotContext) (Snapshot, error) {
	r := newBitReader(b)
	s, err := readSnapshotHeader(r, ctx)
	if err != nil {
		return Snapshot{}, err
	}
	for r.err == nil && r.flag() {
		s.Removals = append(s.Removals, readEntity(r))
	}
	for r.err == nil {
		start := r.pos
		if !r.flag() {
			break
		}
		e := readEntry(r, ctx.Project, s.Gap)
		e.Bits = r.pos - start
		s.Entries = append(s.Entries, e)
	}
	s.Bits = r.pos
	if err := r.finish(); err != nil {
		return Snapshot{}, err
	}
	return s, s.checkEntities()
}

// readSnapshotHeader reads the full bit, the tick, the stated own entity
// and the command feedback.
func readSnapshotHeader(r *bitReader, ctx SnapshotContext) (Snapshot, error) {
	var s Snapshot
	s.Full = r.flag()
	w := 16
	if s.Full {
		w = 32
	}
	s.Tick = uint32(r.read(w))
	s.Stated = r.flag()
	if s.Stated {
		if s.HasOwn = r.flag(); s.HasOwn {
			s.Own = readEntity(r)
		}
	} else {
		s.HasOwn, s.Own = ctx.LastHasOwn, ctx.LastOwn
	}
	// "a bit saying whether command feedback follows (0 until the server
	// holds a command of the client's)".
	if s.HasFeedback = r.flag(); s.HasFeedback {
		s.Newest = uint32(r.read(w))
		s.Judged = uint32(r.read(w))
		s.LowWater = uint8(r.read(lowWaterLen))
	}
	// "then a gap bit and, when it is set, the gap G − 1 (4 bits)".
	if r.flag() {
		s.Gap = int(r.read(turnGapLen)) + 1
	}
	s.HeaderBits = r.pos
	if r.err != nil {
		return Snapshot{}, r.err
	}
	if !ctx.Read && (!s.Full || !s.Stated) {
		return Snapshot{}, errors.New("conformance: short tick or unstated own entity with no snapshot read before")
	}
	if !s.Full {
		s.Tick = nearest16(uint16(s.Tick), ctx.LastTick)
		s.Newest = highestNotAbove16(uint16(s.Newest), ctx.NewestCommand)
		s.Judged = nearest16(uint16(s.Judged), ctx.ClientTick)
	}
	return s, nil
}

// nearest16 is the value with these low 16 bits nearest (±32767) ref.
func nearest16(low uint16, ref uint32) uint32 {
	return ref + uint32(int32(int16(low-uint16(ref))))
}

// highestNotAbove16 is the highest value with these low bits not above max.
func highestNotAbove16(low uint16, max uint32) uint32 {
	return max - uint32(uint16(max)-low)
}

// readEntity reads a slot (7-bit groups, at most 2^24 − 1) and a
// generation (3-bit groups, not 0).
func readEntity(r *bitReader) Entity {
	e := Entity{Slot: r.groupVarint(slotGroup), Generation: r.groupVarint(genGroup)}
	if r.err == nil && (e.Slot > MaxSlot || e.Generation == 0) {
		r.fail(fmt.Errorf("conformance: entity %v out of range", e))
	}
	return e
}

// readEntry reads the entity, the fresh and moving bits and the
// components.
func readEntry(r *bitReader, project []SchemaType, gap int) Entry {
	e := Entry{Entity: readEntity(r), Fresh: r.flag(), Moving: r.flag()}
	if e.Moving {
		readMoving(r, &e, gap)
		return e
	}
	engine := r.read(engineTypes)
	var projectMask []bool
	if len(project) > 0 && r.flag() {
		any := false
		for range project {
			set := r.flag()
			projectMask = append(projectMask, set)
			any = any || set
		}
		if !any {
			r.fail(errors.New("conformance: project types follow, but none is set"))
		}
	}
	for i := range engineTypes {
		if engine&(1<<i) != 0 {
			readEngineComponent(r, &e, i)
		}
	}
	for i, set := range projectMask {
		if set && carried(r, &e, project[i].Name) {
			e.Project = append(e.Project, readProject(r, i, project[i]))
		}
	}
	return e
}

var engineNames = [engineTypes]string{"Transform", "Rigidbody", "CharacterController", "NetSpawn"}

// readEngineComponent reads engine type i of the mask: its carried bit
// and, when carried, its bits.
func readEngineComponent(r *bitReader, e *Entry, i int) {
	if !carried(r, e, engineNames[i]) {
		return
	}
	switch i {
	case 0:
		t := readTransform(r)
		e.Transform = &t
	case 1:
		b := readRigidbody(r, false)
		e.Rigidbody = &b
	case 2:
		g := r.flag()
		e.Grounded = &g
	case 3:
		n := readNetSpawn(r)
		e.NetSpawn = &n
	}
}

// carried reads a "carried" bit, which a fresh entry has too: 0 (the
// entity no longer has the type) is refused there, its bit "always 1".
func carried(r *bitReader, e *Entry, name string) bool {
	if r.flag() {
		return true
	}
	if r.err == nil && e.Fresh {
		r.fail(fmt.Errorf("conformance: fresh entry %v with %s not carried", e.Entity, name))
	}
	e.Removed = append(e.Removed, name)
	return false
}

// readTransform reads x, y, the turned bit and, when turned, the angle
// and the optional scale.
func readTransform(r *bitReader) Transform {
	t := Transform{XCode: r.readCode(PositionCodec), YCode: r.readCode(PositionCodec), Scale: 1}
	if t.Turned = r.flag(); !t.Turned {
		return t
	}
	t.AngleCode = r.readCode(AngleCodec)
	if t.ScaleSet = r.flag(); t.ScaleSet {
		t.Scale = readScale(r)
	}
	// Refused when its values are angle 0 and scale 1, a scale bit set with
	// a float32 of exactly 1 included; at another angle that is accepted.
	if r.err == nil && t.AngleCode == AngleCodec.mid() && t.Scale == 1 {
		r.fail(errors.New("conformance: turned transform at angle 0 and scale 1"))
	}
	return t
}

// readRigidbody reads a Rigidbody; in a moving-body entry its own moving
// bit is left out (it is 1).
func readRigidbody(r *bitReader, impliedMoving bool) Rigidbody {
	var b Rigidbody
	if impliedMoving {
		b.Moving = true
	} else {
		b.Moving = r.flag()
	}
	if !b.Moving {
		b.Awake = r.flag()
		return b
	}
	b.Awake = true
	b.VXCode, b.VYCode = r.readCode(VelocityCodec), r.readCode(VelocityCodec)
	if b.Spinning = r.flag(); b.Spinning {
		b.SpinCode = r.readCode(SpinCodec)
		if r.err == nil && b.SpinCode == SpinCodec.mid() {
			r.fail(errors.New("conformance: spinning rigidbody at zero"))
		}
	}
	if r.err == nil && b.VXCode == VelocityCodec.mid() && b.VYCode == VelocityCodec.mid() && !b.Spinning {
		r.fail(errors.New("conformance: moving rigidbody with all velocities zero"))
	}
	return b
}

// readProject reads a project component's fields, each a code in its
// codec's width, refusing a code past the range or a non-finite float32.
func readProject(r *bitReader, i int, t SchemaType) ProjectComponent {
	c := ProjectComponent{Type: i}
	for _, f := range t.Project {
		w, err := f.width()
		if err != nil {
			r.fail(err)
			return c
		}
		code := r.read(int(w))
		if r.err == nil {
			if err := f.checkCode(code); err != nil {
				r.fail(err)
			}
		}
		c.Codes = append(c.Codes, code)
	}
	return c
}

func (f ProjectField) checkCode(code uint64) error {
	switch f.Kind {
	case CodecInt:
		if code > uint64(f.Max-f.Min) {
			return fmt.Errorf("conformance: int field %s code %d past its range", f.Name, code)
		}
	case CodecFixed:
		lo, hi, _ := FixedRange(f.Min, f.Max, f.Step)
		if code > uint64(hi-lo) {
			return fmt.Errorf("conformance: fixed field %s code %d past its range", f.Name, code)
		}
	case CodecFloat32:
		if v := float64(math.Float32frombits(uint32(code))); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("conformance: float32 field %s not finite", f.Name)
		}
	}
	return nil
}

// checkEntities applies the refusals over the whole snapshot: a slot in
// two entries, or an occupant both removed and described.
func (s Snapshot) checkEntities() error {
	removed := make(map[Entity]bool, len(s.Removals))
	for _, e := range s.Removals {
		removed[e] = true
	}
	slots := make(map[uint32]bool, len(s.Entries))
	for _, e := range s.Entries {
		if slots[e.Slot] {
			return fmt.Errorf("conformance: slot %d in two entries", e.Slot)
		}
		slots[e.Slot] = true
		if removed[e.Entity] {
			return fmt.Errorf("conformance: %v both removed and described", e.Entity)
		}
	}
	return nil
}

// turnGapLen is the width of a gap less one.
const turnGapLen = 4

// readMoving reads a moving-body entry after its moving bit: 0 whole (x
// and y, vx and vy, then 0 still, or 1 and the angle 18, a scale bit and a
// float32, a spinning bit and the angular velocity in 20); 1 0 predicted
// from the header's gap; 1 1 and a gap − 1 in 4 bits, predicted from that
// gap. A predicted state's seven numbers are zigzagged order-0 Exp-Golomb
// codes.
func readMoving(r *bitReader, e *Entry, gap int) {
	turn := &Turn{Form: "still"}
	e.Turn = turn
	if r.flag() {
		if !r.flag() {
			turn.Form, turn.Gap = "header", gap
			if r.err == nil && gap == 0 {
				r.fail(errors.New("conformance: a state predicted from the header's gap, which has none"))
			}
		} else {
			turn.Form, turn.Gap = "gap", int(r.read(turnGapLen))+1
		}
		// The position, velocity, angle and angular velocity depend on a
		// state this decoder does not keep: the entry holds none.
		for _, d := range []*int64{&turn.VelocityTurn, &turn.VX, &turn.VY, &turn.X, &turn.Y, &turn.SpinDiff, &turn.Residue} {
			*d = unzigzag(readGolomb(r))
		}
		return
	}
	t := Transform{XCode: r.readCode(PositionCodec), YCode: r.readCode(PositionCodec), Scale: 1}
	b := Rigidbody{Moving: true, Awake: true, VXCode: r.readCode(VelocityCodec), VYCode: r.readCode(VelocityCodec)}
	e.Transform, e.Rigidbody = &t, &b
	if r.flag() {
		turn.Form = "whole"
		t.Turned = true
		t.AngleCode = r.readCode(AngleCodec)
		if t.ScaleSet = r.flag(); t.ScaleSet {
			t.Scale = readScale(r)
		}
		if b.Spinning = r.flag(); b.Spinning {
			b.SpinCode = r.readCode(SpinCodec)
			if r.err == nil && b.SpinCode == SpinCodec.mid() {
				r.fail(errors.New("conformance: spinning at zero"))
			}
		}
		if r.err == nil && t.AngleCode == AngleCodec.mid() && t.Scale == 1 && !b.Spinning {
			r.fail(errors.New("conformance: a whole turn that is still"))
		}
	}
	if r.err == nil && b.VXCode == VelocityCodec.mid() && b.VYCode == VelocityCodec.mid() && !b.Spinning {
		r.fail(errors.New("conformance: moving body with all velocities zero"))
	}
}

// readGolomb reads an order-0 Exp-Golomb code: k zero bits, a one, then
// the low k bits of v + 1; more than 40 zeros is refused.
func readGolomb(r *bitReader) uint64 {
	k := 0
	for r.err == nil && !r.flag() {
		if k++; k > 40 {
			r.fail(errors.New("conformance: an Exp-Golomb code with more than 40 zeros"))
			return 0
		}
	}
	if r.err != nil {
		return 0
	}
	return (1<<k | r.read(k)) - 1
}

// unzigzag maps 0, 1, 2, 3, 4 … back to 0, −1, 1, −2, 2 ….
func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// readScale reads a scale's float32: a non-finite one is 1, and it is
// clamped to ±1024.
func readScale(r *bitReader) float64 {
	s := float64(math.Float32frombits(uint32(r.read(32))))
	if math.IsNaN(s) || math.IsInf(s, 0) {
		s = 1
	}
	return math.Max(-MaxScale, math.Min(MaxScale, s))
}
