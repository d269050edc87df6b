package scripting

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// installMath replaces the math library's functions that return new
// numbers with ones that box their results from the runtime's slabs
// (numbers.box). gopher-lua's own push each result as a fresh interface
// value, one heap allocation per call: a behavior that steers along a
// circle with math.sin and math.cos made two of its three allocations a
// tick there. The results are the same float64s, computed by the same Go
// functions, so scripts see no difference but the garbage.
func (r *Runtime) installMath(m *lua.LTable) {
	one := func(f func(float64) float64) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(r.num.box(f(float64(L.CheckNumber(1)))))
			return 1
		}
	}
	two := func(f func(a, b float64) float64) lua.LGFunction {
		return func(L *lua.LState) int {
			L.Push(r.num.box(f(float64(L.CheckNumber(1)), float64(L.CheckNumber(2)))))
			return 1
		}
	}
	for name, f := range map[string]func(float64) float64{
		"abs": math.Abs, "acos": math.Acos, "asin": math.Asin, "atan": math.Atan,
		"ceil": math.Ceil, "cos": math.Cos, "cosh": math.Cosh, "exp": math.Exp,
		"floor": math.Floor, "log": math.Log, "log10": math.Log10, "sin": math.Sin,
		"sinh": math.Sinh, "sqrt": math.Sqrt, "tan": math.Tan, "tanh": math.Tanh,
		"deg": func(x float64) float64 { return x * 180 / math.Pi },
		"rad": func(x float64) float64 { return x * math.Pi / 180 },
	} {
		rawSetString(m, name, r.ls.NewFunction(one(f)))
	}
	for name, f := range map[string]func(a, b float64) float64{
		"atan2": math.Atan2, "fmod": math.Mod, "pow": math.Pow,
	} {
		rawSetString(m, name, r.ls.NewFunction(two(f)))
	}
	rawSetString(m, "min", r.ls.NewFunction(r.luaMinMax(func(v, best lua.LNumber) bool { return v < best })))
	rawSetString(m, "max", r.ls.NewFunction(r.luaMinMax(func(v, best lua.LNumber) bool { return v > best })))
}

// luaMinMax is math.min or math.max, by which argument beats the best so
// far: the first of the smallest (largest) arguments, an error without
// any, as gopher-lua's.
func (r *Runtime) luaMinMax(beats func(v, best lua.LNumber) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		top := L.GetTop()
		if top == 0 {
			L.RaiseError("wrong number of arguments")
		}
		best := L.CheckNumber(1)
		for i := 2; i <= top; i++ {
			if v := L.CheckNumber(i); beats(v, best) {
				best = v
			}
		}
		L.Push(r.num.box(float64(best)))
		return 1
	}
}
