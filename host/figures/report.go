package figures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"reflect"
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
	b, err := json.Marshal(obj) // of numbers and maps of them, none NaN: it cannot fail
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
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
