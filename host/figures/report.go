package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Attrs appends to args the figures read that a status logged as a record
// shows, in the set's order: an attribute each, keyed by its Status. What
// it returns goes to a logger's Info with the record's message.
func (v *Values) Attrs(args []any) []any {
	for i := range v.vals {
		f, x := &v.figs[i], &v.vals[i]
		switch {
		case !x.read || f.Status == "" || f.Label != "":
		case f.Uint != nil:
			args = append(args, slog.Uint64(f.Status, x.u))
		case !math.IsNaN(x.f):
			args = append(args, slog.Float64(f.Status, x.f))
		}
	}
	return args
}

// json is the ith figure's value as the report gives it, and false for
// one with none (unread, or a Float that read NaN).
func (v *Values) json(i int) (any, bool) {
	f, x := &v.figs[i], &v.vals[i]
	switch {
	case !x.read:
		return nil, false
	case f.Uint != nil:
		return x.u, true
	case f.Float != nil:
		return x.f, !math.IsNaN(x.f)
	case f.Uints != nil:
		m := make(map[string]uint64, len(x.by))
		for _, l := range x.by {
			m[l.label] = l.u
		}
		return m, true
	}
	m := make(map[string]float64, len(x.by))
	for _, l := range x.by {
		if !math.IsNaN(l.f) {
			m[l.label] = l.f
		}
	}
	return m, true
}

// Fill decodes the report's figures of v (those with a Key) into dst, a
// pointer to a report's struct, as encoding/json decodes a report read
// from a file: a figure's value goes to the field its Key names, by the
// fields' JSON keys, a dot stepping into a field of struct type (or
// pointer to one). It returns the figures dst has no field for, for its
// MarshalJSON to write beside the rest (Extra.AppendTo). Fields that no
// figure names are left as they are. It panics when a figure does not fit
// the field its Key names (a number for a string): a programmer's error.
func Fill(dst any, v *Values) Extra {
	known := keysOf(reflect.TypeOf(dst).Elem())
	obj := map[string]any{}
	var extra []keyed
	for i := range v.vals {
		key := v.figs[i].Key
		val, ok := v.json(i)
		if key == "" || !ok {
			continue
		}
		if !known[key] {
			extra = append(extra, keyed{key, val})
			continue
		}
		at := obj
		for {
			outer, inner, nested := strings.Cut(key, ".")
			if !nested {
				at[key] = val
				break
			}
			next, _ := at[outer].(map[string]any)
			if next == nil {
				next = map[string]any{}
				at[outer] = next
			}
			at, key = next, inner
		}
	}
	if err := setObject(reflect.ValueOf(dst), obj); err != nil {
		panic(fmt.Sprintf("figures: a figure does not fit its report's field: %v", err))
	}
	return Extra{extra}
}

// Extra is the figures a report has no field for, in the set's order:
// what Fill returns and the report's MarshalJSON appends. The zero value
// holds none.
type Extra struct{ figs []keyed }

// Len is how many figures e holds.
func (e Extra) Len() int { return len(e.figs) }

type keyed struct {
	key string
	val any
}

// AppendTo appends e's figures to obj, the JSON of an object, inside its
// closing brace, each under its whole Key (a dotted one is not nested):
// what a report's MarshalJSON writes after its typed fields.
func (e Extra) AppendTo(obj []byte) ([]byte, error) {
	if len(e.figs) == 0 {
		return obj, nil
	}
	obj = bytes.TrimRight(obj, " \t\r\n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return nil, fmt.Errorf("figures: %.20q is not a JSON object", obj)
	}
	obj = bytes.TrimRight(obj[:len(obj)-1], " \t\r\n")
	empty := obj[len(obj)-1] == '{'
	for _, kv := range e.figs {
		if !empty {
			obj = append(obj, ',')
		}
		empty = false
		k, _ := json.Marshal(kv.key)
		val, err := json.Marshal(kv.val)
		if err != nil {
			return nil, fmt.Errorf("figures: %s: %w", kv.key, err)
		}
		obj = append(append(append(obj, k...), ':'), val...)
	}
	return append(obj, '}'), nil
}

// keys holds keysOf's answers by type.
var keys sync.Map // reflect.Type → map[string]bool

// keysOf returns the JSON keys of struct type t's fields as encoding/json
// names them, with a dot between a field of struct type and its own.
func keysOf(t reflect.Type) map[string]bool {
	if k, ok := keys.Load(t); ok {
		return k.(map[string]bool)
	}
	k := map[string]bool{}
	addKeys(k, t, "")
	keys.Store(t, k)
	return k
}

func addKeys(k map[string]bool, t reflect.Type, prefix string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-", !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			addKeys(k, ft, prefix)
		default:
			if name == "" {
				name = f.Name
			}
			k[prefix+name] = true
			if ft.Kind() == reflect.Struct {
				addKeys(k, ft, prefix+name+".")
			}
		}
	}
}

// Fill sets the report's fields itself, as json.Unmarshal would from the
// figures' JSON (TestFillMatchesJSON holds it to that): the browser client
// links no JSON decoder. A number goes through the text encoding/json
// writes for it, and is parsed from that as encoding/json parses it into
// the field's type; an object's members go in their keys' order.

// setValue sets v, as json.Unmarshal would, to val: a uint64, a float64,
// or a map of them (map[string]uint64, map[string]float64,
// map[string]any).
func setValue(v reflect.Value, val any) error {
	switch x := val.(type) {
	case uint64:
		return setNumber(v, strconv.FormatUint(x, 10))
	case float64:
		return setNumber(v, jsonFloat(x))
	case map[string]uint64:
		m := make(map[string]any, len(x))
		for k, n := range x {
			m[k] = n
		}
		return setObject(v, m)
	case map[string]float64:
		m := make(map[string]any, len(x))
		for k, n := range x {
			m[k] = n
		}
		return setObject(v, m)
	case map[string]any:
		return setObject(v, x)
	}
	return fmt.Errorf("a %T", val)
}

// jsonFloat is f as encoding/json writes it.
func jsonFloat(f float64) string {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

// deref steps through pointers, making what is nil.
func deref(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

// setNumber parses the number s into v as encoding/json does.
func setNumber(v reflect.Value, s string) error {
	v = deref(v)
	bad := fmt.Errorf("the number %s into a %v", s, v.Type())
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return bad
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad
		}
		v.Set(reflect.ValueOf(f))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return bad
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return bad
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			return bad
		}
		v.SetFloat(f)
	default:
		return bad
	}
	return nil
}

// setObject sets v from the members of an object, in their keys' order:
// a struct's fields by their JSON keys (members it has no field for left
// out), or a map's entries, each a new value.
func setObject(v reflect.Value, obj map[string]any) error {
	v = deref(v)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	switch {
	case v.Kind() == reflect.Struct:
		for _, k := range keys {
			f, ok := fieldByKey(v, k)
			if !ok {
				continue
			}
			if err := setValue(f, obj[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for _, k := range keys {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := setValue(e, obj[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
	case v.Kind() == reflect.Interface && v.NumMethod() == 0:
		m := reflect.New(reflect.TypeFor[map[string]any]()).Elem()
		if err := setObject(m, obj); err != nil {
			return err
		}
		v.Set(m)
	default:
		return fmt.Errorf("an object into a %v", v.Type())
	}
	return nil
}

// fieldByKey finds the field of struct v that the JSON key names, as
// addKeys names them: its own fields first, then those of the structs it
// embeds.
func fieldByKey(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || f.Anonymous && name == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return v.Field(i), true
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if !f.Anonymous || name != "" || ft.Kind() != reflect.Struct {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer && fv.IsNil() {
			// Made only for a field it holds.
			if _, ok := fieldByKey(reflect.New(ft).Elem(), key); !ok || !fv.CanSet() {
				continue
			}
		}
		if fv, ok := fieldByKey(deref(fv), key); ok {
			return fv, true
		}
	}
	return reflect.Value{}, false
}
