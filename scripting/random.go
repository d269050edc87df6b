package scripting

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's math.random draws from Go's global math/rand, and
// math.randomseed is a no-op on Go >= 1.24 (feasibility §6), so two ends could
// never agree on a roll. The runtime replaces both with this generator.
//
// The stream is re-keyed at the start of every call into Lua from
// (Config.Seed, callback kind, tick, entity slot), so the n-th draw an
// entity's on_fixed_update makes at tick t is the same number on the server,
// on every client and in every replay of that tick — whatever other
// entities did before it. math.randomseed(x) re-keys it for the rest of the
// current call only.

// Kinds of call, mixed into the key so on_start and on_fixed_update of the
// same entity at the same tick draw different numbers.
const (
	keyLoad uint64 = iota + 1
	keyStart
	keyFixedUpdate
	keyUpdate
	keyDestroy
	keyNetwork
	keyScene
	keyJoin
	keyReload
	keyLeave
	keyDrain
	keyContact
)

// splitmix is SplitMix64 (Steele, Lea and Flood): one 64-bit word of state,
// a fixed published algorithm, so every build on every platform draws the
// same numbers. The zero value is a valid generator.
type splitmix struct{ s uint64 }

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	return mix64(g.s)
}

// rekey sets the stream to the one named by seed and the parts of a key.
func (g *splitmix) rekey(seed, kind, tick, slot uint64) {
	g.s = mix64(mix64(mix64(seed^kind*0x9e3779b97f4a7c15)^tick) ^ slot)
}

// float returns a number in [0, 1) with 53 random bits.
func (g *splitmix) float() float64 { return float64(g.next()>>11) / (1 << 53) }

// below returns a uniform number in [0, n) for n > 0 (Lemire's multiply and
// reject, so no value is favoured).
func (g *splitmix) below(n uint64) uint64 {
	hi, lo := bits.Mul64(g.next(), n)
	if lo < n {
		for t := -n % n; lo < t; {
			hi, lo = bits.Mul64(g.next(), n)
		}
	}
	return hi
}

// maxRandomBound keeps math.random's integer bounds where a float64 counts
// every integer exactly.
const maxRandomBound = 1 << 53

// luaRandom implements math.random with Lua 5.1's three forms: () gives a
// float in [0, 1), (m) an integer in [1, m], (m, n) an integer in [m, n].
func (r *Runtime) luaRandom(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(r.num.box(r.rng.float()))
		return 1
	case 1:
		return r.randomRange(L, 1, randomBound(L, 1))
	case 2:
		return r.randomRange(L, randomBound(L, 1), randomBound(L, 2))
	}
	L.RaiseError("wrong number of arguments to math.random")
	return 0
}

func randomBound(L *lua.LState, n int) int64 {
	v := math.Floor(float64(L.CheckNumber(n)))
	if !(v >= -maxRandomBound && v <= maxRandomBound) {
		L.ArgError(n, "bound out of range")
	}
	return int64(v)
}

func (r *Runtime) randomRange(L *lua.LState, lo, hi int64) int {
	if lo > hi {
		L.ArgError(L.GetTop(), "interval is empty")
	}
	L.Push(r.num.box(float64(lo + int64(r.rng.below(uint64(hi-lo)+1)))))
	return 1
}

// luaRandomSeed implements math.randomseed(x): the rest of the current call
// draws from the stream keyed by x (and Config.Seed), the same on every end.
func (r *Runtime) luaRandomSeed(L *lua.LState) int {
	x := float64(L.CheckNumber(1))
	r.rng.rekey(r.cfg.Seed, math.Float64bits(x), 0, 0)
	return 0
}
