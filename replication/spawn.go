package replication

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"vkm/internal/entity"
	"vkm/wire"
)

// Protocol constants of a NetSpawn record. Both ends hold them: the server
// refuses a spawn it could not say, the client refuses one it would not
// believe.
const (
	// MaxSpawnPath is the longest prefab path a NetSpawn carries, in
	// bytes. A path names a file inside the project; 128 bytes is deep
	// enough for any folder layout and keeps a spawn well inside a
	// datagram.
	MaxSpawnPath = 128

	// MaxSpawnSlots is the most prefab entities whose slots a NetSpawn
	// lists. An instance with more is sent with none (the host logs it).
	// At 7 bytes a slot, the largest spawn is under 400 bytes, so the own
	// entity's spawn and another's fit one snapshot together.
	MaxSpawnSlots = 32

	spawnLenBits   = 8  // the path's length in bytes, 0..255
	spawnCountBits = 6  // the slot count, 0..63 (more than MaxSpawnSlots is refused)
	slotBits       = 24 // a slot number: entity.MaxSlot is 2^24-1
)

// ErrSpawnSlots is returned by Round.NetSpawn when an instance has more
// than MaxSpawnSlots entities: the spawn is still carried, with no slots, and
// the caller may log it.
var ErrSpawnSlots = fmt.Errorf("replication: spawn: more than %d slots; sent with none", MaxSpawnSlots)

// CheckSpawnPath reports whether path is a prefab path a client can safely
// be told to open, and why not. It must be relative ('/'-separated, no
// leading '/'), end in ".toml" after a name, be at most MaxSpawnPath bytes
// of valid UTF-8, and hold no empty or ".." component, no backslash, colon
// or control character, and no component a Windows device answers to (con,
// prn, aux, nul, com0-com9, lpt0-lpt9, com¹²³, lpt¹²³, conin$, conout$, in
// any case, with or without an extension, trailing spaces ignored).
//
// The rule is judged on the characters, so a Linux server and a Windows
// client agree on it: a hostile server cannot name \\host\share\x.toml (a
// Windows client would hand that share its login hash opening it), a FIFO
// outside the project, or a device that blocks the frame.
func CheckSpawnPath(path string) error {
	switch {
	case path == "":
		return errors.New("replication: spawn path is empty")
	case len(path) > MaxSpawnPath:
		return fmt.Errorf("replication: spawn path is %d bytes, more than %d", len(path), MaxSpawnPath)
	case path[0] == '/':
		return errors.New("replication: spawn path is not relative")
	case !utf8.ValidString(path):
		return errors.New("replication: spawn path is not valid UTF-8")
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c < 0x20 || c == 0x7f:
			return errors.New("replication: spawn path holds a control character")
		case c == '\\':
			return errors.New("replication: spawn path holds a backslash")
		case c == ':':
			return errors.New("replication: spawn path holds a colon")
		}
	}
	rest := path
	for {
		comp, after, more := strings.Cut(rest, "/")
		if err := checkComponent(comp); err != nil {
			return err
		}
		if !more {
			// comp is the file's name.
			if len(comp) <= len(".toml") || !strings.HasSuffix(comp, ".toml") {
				return errors.New("replication: spawn path does not name a .toml file")
			}
			return nil
		}
		rest = after
	}
}

// checkComponent judges one '/'-separated component of a spawn path.
func checkComponent(c string) error {
	switch {
	case c == "":
		return errors.New("replication: spawn path has an empty component")
	case c == "..":
		return errors.New("replication: spawn path has a .. component")
	case isDeviceName(c):
		return fmt.Errorf("replication: spawn path component %q is a Windows device name", c)
	}
	return nil
}

// isDeviceName reports whether Windows would open the device c names
// rather than a file: the part before the first dot, trailing spaces
// removed, is a reserved name in any case.
func isDeviceName(c string) bool {
	if i := strings.IndexByte(c, '.'); i >= 0 {
		c = c[:i]
	}
	c = strings.TrimRight(c, " ")
	switch strings.ToLower(c) {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(c) < 4 {
		return false
	}
	stem := strings.ToLower(c[:3])
	if stem != "com" && stem != "lpt" {
		return false
	}
	switch rest := c[3:]; rest {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// CheckSpawnPose reports whether pose can be said in a NetSpawn: every field
// finite and the scale within ±wire.MaxScale. It is refused at both ends
// rather than clamped at one, which would leave the two holding different
// bodies for good.
func CheckSpawnPose(pose entity.Transform) error {
	for _, v := range [...]float64{pose.X, pose.Y, pose.Angle, pose.Scale} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("replication: spawn pose is not finite")
		}
	}
	if math.Abs(pose.Scale) > wire.MaxScale {
		return fmt.Errorf("replication: spawn scale %g is beyond ±%g", pose.Scale, wire.MaxScale)
	}
	return nil
}

// checkSpawnSlots refuses a slot list that names a uid or a slot twice: a
// client would build two entities into one slot, or one into two.
func checkSpawnSlots(slots []entity.SpawnSlot) error {
	for i := range slots {
		if slots[i].Slot > entity.MaxSlot {
			return fmt.Errorf("replication: spawn slot %d is beyond %d", slots[i].Slot, entity.MaxSlot)
		}
		for j := i + 1; j < len(slots); j++ {
			if slots[i].UID == slots[j].UID || slots[i].Slot == slots[j].Slot {
				return errors.New("replication: spawn names a uid or a slot twice")
			}
		}
	}
	return nil
}

// writeSpawn writes a NetSpawn record: the path (8-bit length, bytes), the
// pose as four raw float64s (x, y, angle, scale: whole, never quantised),
// then a 6-bit slot count and each slot as uid (32 bits) and slot (24 bits).
// The caller has checked ns; more than MaxSpawnSlots slots are written as
// none.
func writeSpawn(w *wire.Writer, ns *entity.NetSpawn) {
	w.WriteBits(uint64(len(ns.Prefab)), spawnLenBits)
	for i := 0; i < len(ns.Prefab); i++ {
		w.WriteUint8(ns.Prefab[i])
	}
	w.WriteFloat64(ns.Pose.X)
	w.WriteFloat64(ns.Pose.Y)
	w.WriteFloat64(ns.Pose.Angle)
	w.WriteFloat64(ns.Pose.Scale)
	slots := ns.Slots
	if len(slots) > MaxSpawnSlots {
		slots = nil
	}
	w.WriteBits(uint64(len(slots)), spawnCountBits)
	for _, s := range slots {
		w.WriteUint32(s.UID)
		w.WriteBits(uint64(s.Slot), slotBits)
	}
}

// readSpawn reads a NetSpawn record into ns, its slots appended to slots
// (the caller's arena). It reads every bit the record holds whatever it
// says, so the stream stays in step; a record whose path, pose or slots
// would be refused at the server comes back refused (ok false, ns holding no
// path). Only running out of bytes is an error.
func readSpawn(r *wire.Reader, ns *entity.NetSpawn, path []byte, slots []entity.SpawnSlot) (pathBuf []byte, slotsOut []entity.SpawnSlot, ok bool, err error) {
	n, _ := r.ReadBits(spawnLenBits)
	path = path[:0]
	for range n {
		b, _ := r.ReadUint8()
		path = append(path, b)
	}
	var pose entity.Transform
	pose.X, _ = r.ReadFloat64()
	pose.Y, _ = r.ReadFloat64()
	pose.Angle, _ = r.ReadFloat64()
	pose.Scale, _ = r.ReadFloat64()
	count, _ := r.ReadBits(spawnCountBits)
	start := len(slots)
	for range count {
		uid, _ := r.ReadUint32()
		slot, _ := r.ReadBits(slotBits)
		slots = append(slots, entity.SpawnSlot{UID: uid, Slot: uint32(slot)})
	}
	if err := r.Err(); err != nil {
		return path, slots[:start], false, err
	}
	mine := slots[start:]
	if n == 0 || n > MaxSpawnPath || count > MaxSpawnSlots || CheckSpawnPose(pose) != nil || checkSpawnSlots(mine) != nil {
		*ns = entity.NetSpawn{}
		return path, slots[:start], false, nil
	}
	prefab := string(path) // a spawn is rare; this is its one allocation
	if CheckSpawnPath(prefab) != nil {
		*ns = entity.NetSpawn{}
		return path, slots[:start], false, nil
	}
	*ns = entity.NetSpawn{Prefab: prefab, Pose: pose, Slots: mine[:len(mine):len(mine)]}
	return path, slots, true, nil
}
