package scripting

import (
	"math"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestMathMatchesGopherLua: the math functions the runtime boxes from its
// slabs give bit for bit what gopher-lua's own give, for ordinary and
// awkward arguments, and raise where those raise.
func TestMathMatchesGopherLua(t *testing.T) {
	r, _ := newTest(t, `function vkmRegisterBehaviors(r) end`)
	ref := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer ref.Close()
	lua.OpenMath(ref)
	args := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.75, 3.141592653589793, 1e300, -1e-300, math.Inf(1), math.Inf(-1), math.NaN(), 255, 256.5}
	call := func(L *lua.LState, name string, in ...float64) (out []float64, failed bool) {
		fn := L.GetField(L.GetGlobal("math"), name)
		vals := make([]lua.LValue, len(in))
		for i, v := range in {
			vals[i] = lua.LNumber(v)
		}
		top := L.GetTop()
		if err := L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, vals...); err != nil {
			return nil, true
		}
		for i := top + 1; i <= L.GetTop(); i++ {
			out = append(out, float64(L.Get(i).(lua.LNumber)))
		}
		L.SetTop(top)
		return out, false
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return false
			}
		}
		return true
	}
	check := func(name string, in ...float64) {
		got, gotErr := call(r.ls, name, in...)
		want, wantErr := call(ref, name, in...)
		if gotErr != wantErr || !same(got, want) {
			t.Errorf("math.%s%v = %v (error %v), gopher-lua gives %v (error %v)", name, in, got, gotErr, want, wantErr)
		}
	}
	for _, name := range []string{"abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "floor", "log", "log10",
		"sin", "sinh", "sqrt", "tan", "tanh", "deg", "rad"} {
		for _, a := range args {
			check(name, a)
		}
		check(name)
	}
	for _, name := range []string{"atan2", "fmod", "pow", "min", "max"} {
		for _, a := range args {
			for _, b := range args {
				check(name, a, b)
			}
		}
	}
	check("min")
	check("max")
	check("min", 3, 1, 2, 1)
	check("max", -1, 4, 4, 2)
}

// BenchmarkMathCall measures a behavior-sized use of math: a sine and a
// cosine per call, whose results used to be one heap allocation each.
func BenchmarkMathCall(b *testing.B) {
	r, _ := newTest(b, `function vkmRegisterBehaviors(r) end
function steer(a) return math.cos(a) + math.sin(a) end`)
	fn := r.ls.GetGlobal("steer")
	b.ReportAllocs()
	for b.Loop() {
		if err := r.ls.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, lua.LNumber(0.25)); err != nil {
			b.Fatal(err)
		}
		r.ls.Pop(1)
	}
}
