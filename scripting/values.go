package scripting

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// maxValueDepth bounds how deeply nested a property value may be.
const maxValueDepth = 32

type field struct {
	key   string
	value lua.LValue
}

// propsToLua converts an instance's properties, in sorted key order (a Lua
// table visits keys in insertion order, so the order must not come from a Go
// map). The reserved key entityKey is refused.
func propsToLua(L *lua.LState, props map[string]any) ([]field, error) {
	keys := make([]string, 0, len(props))
	for k := range props {
		if k == entityKey {
			return nil, fmt.Errorf("property name %q is reserved", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]field, 0, len(keys))
	for _, k := range keys {
		v, err := toLua(L, reflect.ValueOf(props[k]), 0)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out = append(out, field{k, v})
	}
	return out, nil
}

// toLua converts a Go property value: numbers, strings and bools, and
// slices and string-keyed maps of them (as TOML decodes a scene), nested.
func toLua(L *lua.LState, v reflect.Value, depth int) (lua.LValue, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxValueDepth)
	}
	if !v.IsValid() {
		return lua.LNil, nil
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return lua.LNil, nil
		}
		return toLua(L, v.Elem(), depth+1)
	case reflect.Bool:
		return lua.LBool(v.Bool()), nil
	case reflect.String:
		return lua.LString(v.String()), nil
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(v.Float()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(v.Uint()), nil
	case reflect.Slice, reflect.Array:
		t := L.CreateTable(v.Len(), 0)
		for i := range v.Len() {
			e, err := toLua(L, v.Index(i), depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i+1, err)
			}
			t.RawSetInt(i+1, e)
		}
		return t, nil
	case reflect.Map:
		return mapToLua(L, v, depth)
	}
	return nil, fmt.Errorf("unsupported value of type %s", v.Type())
}

func mapToLua(L *lua.LState, v reflect.Value, depth int) (lua.LValue, error) {
	if v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("map keys must be strings, not %s", v.Type().Key())
	}
	keys := v.MapKeys()
	sort.Sort(keysByName(keys))
	t := L.CreateTable(0, len(keys))
	for _, k := range keys {
		e, err := toLua(L, v.MapIndex(k), depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.String(), err)
		}
		t.RawSetString(k.String(), e)
	}
	return t, nil
}

// flatFields converts an event's field table: string keys, and number,
// string or boolean values. It raises a Lua error (argument n) otherwise.
func flatFields(L *lua.LState, n int) map[string]any {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		if L.Get(n) != lua.LNil {
			L.TypeError(n, lua.LTTable)
		}
		return nil
	}
	out := map[string]any{}
	bad := ""
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			bad = fmt.Sprintf("field key %s is not a string", k.String())
			return
		}
		switch v := v.(type) {
		case lua.LNumber:
			out[string(ks)] = float64(v)
		case lua.LString:
			out[string(ks)] = string(v)
		case lua.LBool:
			out[string(ks)] = bool(v)
		default:
			bad = fmt.Sprintf("field %q is a %s; events carry numbers, strings and booleans", string(ks), v.Type())
		}
	})
	if bad != "" {
		L.ArgError(n, bad)
	}
	return out
}

// checkFinite returns argument n as a finite number, raising a Lua error
// otherwise: a NaN written into a body would reach physics and the wire.
func checkFinite(L *lua.LState, n int) float64 {
	v := float64(L.CheckNumber(n))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		L.ArgError(n, "finite number expected")
	}
	return v
}

// optFinite is checkFinite with a default for a missing argument.
func optFinite(L *lua.LState, n int, def float64) float64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkFinite(L, n)
}

// keysByName orders a map's string keys, each of which it holds once
// (sort.Sort, whose code the Lua table library links already: a
// slices.SortFunc of its own would add 20 KB to the browser client).
type keysByName []reflect.Value

func (k keysByName) Len() int           { return len(k) }
func (k keysByName) Less(i, j int) bool { return k[i].String() < k[j].String() }
func (k keysByName) Swap(i, j int)      { k[i], k[j] = k[j], k[i] }
