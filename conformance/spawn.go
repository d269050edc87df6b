package conformance

import (
	"math"
	"strings"
	"unicode"
)

// readNetSpawn reads a NetSpawn: the prefab path (8-bit length and its
// bytes), the pose as four raw float64s, a 6-bit count of slots, each a
// uid (32) and a slot (24). What a reader cannot act on only marks it
// Ignored.
func readNetSpawn(r *bitReader) NetSpawn {
	var n NetSpawn
	path := make([]byte, r.read(8))
	for i := range path {
		path[i] = byte(r.read(8))
	}
	n.Path = string(path)
	for i := range n.Pose {
		n.Pose[i] = math.Float64frombits(r.read(64))
	}
	count := int(r.read(6))
	for range count {
		n.Slots = append(n.Slots, SpawnSlot{UID: uint32(r.read(32)), Slot: uint32(r.read(24))})
	}
	n.Ignored = n.whyIgnored()
	return n
}

// whyIgnored names the first rule of "Components" (NetSpawn) the spawn
// breaks, or "".
func (n NetSpawn) whyIgnored() string {
	if why := spawnPathProblem(n.Path); why != "" {
		return why
	}
	if len(n.Slots) > maxSpawnIDs {
		return "more than 32 slots"
	}
	for _, v := range n.Pose {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "pose not finite"
		}
	}
	if math.Abs(n.Pose[3]) > MaxScale {
		return "scale beyond ±1024"
	}
	uids, slots := map[uint32]bool{}, map[uint32]bool{}
	for _, s := range n.Slots {
		if uids[s.UID] || slots[s.Slot] {
			return "a uid or slot given twice"
		}
		uids[s.UID], slots[s.Slot] = true, true
	}
	return ""
}

// spawnPathProblem checks a prefab path: 1..128 bytes, relative,
// '/'-separated, ending in ".toml" after a name, no empty or ".."
// component, no '\', ':' or control character, no Windows device name.
func spawnPathProblem(p string) string {
	if p == "" || len(p) > maxSpawnLen {
		return "path empty or over 128 bytes"
	}
	if strings.ContainsAny(p, `\:`) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return `path with '\', ':' or a control character`
	}
	parts := strings.Split(p, "/")
	for _, c := range parts {
		if c == "" || c == ".." {
			return "path with an empty or '..' component"
		}
		if windowsDevice(c) {
			return "path with a Windows device name"
		}
	}
	last := parts[len(parts)-1]
	if !strings.HasSuffix(last, ".toml") || len(last) == len(".toml") {
		return "path not ending in .toml after a name"
	}
	return ""
}

// windowsDevice reports whether Windows answers to the component as a
// device: con, prn, aux, nul, com0..9, lpt0..9, with any extension.
func windowsDevice(c string) bool {
	base, _, _ := strings.Cut(strings.ToLower(c), ".")
	base = strings.TrimRight(base, " ")
	switch base {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) &&
		base[3] >= '0' && base[3] <= '9'
}
