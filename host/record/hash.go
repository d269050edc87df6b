package record

import (
	"math"

	"vkm/host/game"
)

// WorldHash is the hash a recording checks a replay by: the physics
// world's (physics.World.Hash: every body's pose, motion and sleep, the
// joints' and contacts' carried state) folded with the entity store's:
// every live entity in slot order, its name and parent, its transform,
// rigidbody and character controller, and every component's values. Two
// worlds with the same hash hold, as far as a hash can tell, the same
// state the next tick reads; what lives only in Lua (a behavior's own
// fields) shows when it reaches a component or a body.
func WorldHash(g *game.Game) uint64 {
	h := fnv64{sum: 14695981039346656037}
	h.u64(g.Physics().Hash())
	h.u64(uint64(g.Tick()))
	st := g.Store()
	types := len(g.Schema().Types)
	// Walked with Next, without a closure, so that hashing allocates
	// nothing of its own on the server that records.
	for id := st.Next(0); !id.IsNone(); id = st.Next(id.Slot + 1) {
		h.u64(uint64(id.Slot)<<32 | uint64(id.Gen))
		p := st.Parent(id)
		h.u64(uint64(p.Slot)<<32 | uint64(p.Gen))
		h.str(st.Name(id))
		if t := st.Transform(id); t != nil {
			h.f64(t.X, t.Y, t.Angle, t.Scale)
		}
		if rb := st.Rigidbody(id); rb != nil {
			h.f64(rb.VX, rb.VY, rb.AngularVelocity)
			h.bool(rb.Awake)
		}
		if c := st.Controller(id); c != nil {
			h.bool(c.Grounded)
			h.f64(c.MoveX, c.MoveY)
			h.bool(c.Jump)
		}
		for typ := range types {
			if v := st.Component(id, typ); v != nil {
				h.u64(uint64(typ))
				h.f64(v...)
			}
		}
	}
	return h.sum
}

// fnv64 is FNV-1a over 64-bit words.
type fnv64 struct{ sum uint64 }

func (h *fnv64) u64(v uint64) {
	for range 8 {
		h.sum ^= v & 0xff
		h.sum *= 1099511628211
		v >>= 8
	}
}

func (h *fnv64) f64(vs ...float64) {
	for _, v := range vs {
		h.u64(math.Float64bits(v))
	}
}

func (h *fnv64) bool(b bool) {
	if b {
		h.u64(1)
	} else {
		h.u64(0)
	}
}

func (h *fnv64) str(s string) {
	h.u64(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.sum ^= uint64(s[i])
		h.sum *= 1099511628211
	}
}
