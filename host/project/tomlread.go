package project

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"vkm/internal/entity"

	"vkm/internal/names"
)

// TOML reading shared by project.toml, scenes and prefabs.
//
// Files are decoded into plain maps rather than into structs so that every
// value can be checked with a message naming its key and line: BurntSushi's
// MetaData.Undecoded names unknown keys but not which [[entity]] they are in,
// and its type errors are plain strings. Lines come from lineMap, a light
// scan of the text that knows each array-of-tables element by index.

// tomlDoc is one decoded file being read. The first mistake found is kept in
// err; readers carry on with zero values so that one pass finds it in file
// order without checking an error at every step.
type tomlDoc struct {
	file  string
	kind  fileKind
	lines lineMap
	err   *ConfigError
	// categories are the collision categories shapes may name (a scene's
	// or prefab's project's).
	categories Categories
}

// decodeTOML decodes data, a file of kind, and returns a reader over its
// top-level table, or a ConfigError for a TOML syntax error.
func decodeTOML(file string, kind fileKind, data []byte) (*tomlDoc, *tomlTable, *ConfigError) {
	m, cerr := decodeTOMLMap(file, data)
	if cerr != nil {
		return nil, nil, cerr
	}
	doc := &tomlDoc{file: file, kind: kind, lines: indexLines(data)}
	return doc, &tomlTable{doc: doc, m: m}, nil
}

// tomlTable reads one table of a tomlDoc.
type tomlTable struct {
	doc  *tomlDoc
	m    map[string]any
	path string // indexed path: "entity[2].body.shape[0]"; "" for the top level
	line int    // the table's header line, 0 if unknown
}

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	if key == "" {
		return base
	}
	return base + "." + key
}

func indexPath(base string, i int) string { return base + "[" + strconv.Itoa(i) + "]" }

// displayKey drops the array indices from an indexed path, giving the key as
// the file spells it: "entity[2].body.shape[0].box" → "entity.body.shape.box".
func displayKey(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	skip := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '[':
			skip = true
		case c == ']':
			skip = false
		case !skip:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (t *tomlTable) lineOf(key string) int {
	if key == "" {
		return t.line
	}
	if l := t.doc.lines.find(joinPath(t.path, key)); l > 0 {
		return l
	}
	return t.line
}

// fail records a mistake at key (a path relative to t; "" for t itself)
// unless an earlier one was found.
func (t *tomlTable) fail(key, format string, args ...any) {
	if t.doc.err != nil {
		return
	}
	t.doc.err = &ConfigError{
		File:   t.doc.file,
		Line:   t.lineOf(key),
		Key:    displayKey(joinPath(t.path, key)),
		Reason: fmt.Sprintf(format, args...),
	}
}

func (t *tomlTable) has(key string) bool {
	_, ok := t.m[key]
	return ok
}

// only refuses, by name, the first key in file order that is not one of
// the keys tableKeys gives the table.
func (t *tomlTable) only() {
	known := tableKeys[t.doc.kind][displayKey(t.path)]
	bad, badLine := "", 0
	for k := range t.m {
		if slices.Contains(known, k) {
			continue
		}
		l := t.lineOf(k)
		if bad == "" || l < badLine || l == badLine && k < bad {
			bad, badLine = k, l
		}
	}
	if bad == "" {
		return
	}
	hint := ""
	if s := closestKey(bad, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	t.fail(bad, "unknown key%s; the keys here are %s", hint, strings.Join(known, ", "))
}

func (t *tomlTable) str(key string) (string, bool) {
	v, ok := t.m[key]
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		t.fail(key, "must be a string, not %s", describeTOML(v))
	}
	return s, ok
}

func (t *tomlTable) integer(key string) (int64, bool) {
	v, ok := t.m[key]
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		t.fail(key, "must be a whole number, not %s", describeTOML(v))
	}
	return n, ok
}

func (t *tomlTable) boolean(key string) (bool, bool) {
	v, ok := t.m[key]
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		t.fail(key, "must be true or false, not %s", describeTOML(v))
	}
	return b, ok
}

// number reads a finite number; a whole number is accepted as one.
func (t *tomlTable) number(key string) (float64, bool) {
	v, ok := t.m[key]
	if !ok {
		return 0, false
	}
	f, reason := toNumber(v)
	if reason != "" {
		t.fail(key, "%s", reason)
		return 0, false
	}
	return f, true
}

func (t *tomlTable) strList(key string) ([]string, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	arr, ok := v.([]any)
	if !ok {
		t.fail(key, "must be a list of strings, not %s", describeTOML(v))
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			t.fail(indexPath(key, i), "must be a list of strings; item %d is %s", i+1, describeTOML(e))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// vec2 reads a pair of numbers; form is how the file writes it, e.g. "[w, h]".
func (t *tomlTable) vec2(key, form string) (entity.Vec2, bool) {
	v, ok := t.m[key]
	if !ok {
		return entity.Vec2{}, false
	}
	p, reason := toVec2(v)
	if reason != "" {
		t.fail(key, "must be %s, two numbers; %s", form, reason)
		return entity.Vec2{}, false
	}
	return p, true
}

// points reads [[x, y], ...].
func (t *tomlTable) points(key string) ([]entity.Vec2, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	arr, ok := v.([]any)
	if !ok {
		t.fail(key, "must be a list of points [[x, y], ...], not %s", describeTOML(v))
		return nil, false
	}
	out := make([]entity.Vec2, 0, len(arr))
	for i, e := range arr {
		p, reason := toVec2(e)
		if reason != "" {
			t.fail(indexPath(key, i), "point %d must be [x, y], two numbers; %s", i+1, reason)
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// table reads a table, written either as [key] or inline as key = {...}.
func (t *tomlTable) table(key string) (*tomlTable, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.fail(key, "must be a table, not %s", describeTOML(v))
		return nil, false
	}
	return t.child(joinPath(t.path, key), m), true
}

// tables reads an array of tables; header is how the file should write one,
// for the message when it does not.
func (t *tomlTable) tables(key, header string) ([]*tomlTable, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	var maps []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		maps = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				t.fail(key, "must be a list of %s tables; an item is %s", header, describeTOML(e))
				return nil, false
			}
			maps = append(maps, m)
		}
	default:
		t.fail(key, "must be a list of %s tables, not %s", header, describeTOML(v))
		return nil, false
	}
	out := make([]*tomlTable, len(maps))
	for i, m := range maps {
		out[i] = t.child(indexPath(joinPath(t.path, key), i), m)
	}
	return out, true
}

func (t *tomlTable) child(p string, m map[string]any) *tomlTable {
	return &tomlTable{doc: t.doc, m: m, path: p, line: t.doc.lines.find(p)}
}

// plain reads a value of any shape as game data (see plainValue).
func (t *tomlTable) plain(key string) (any, bool) {
	v, ok := t.m[key]
	if !ok {
		return nil, false
	}
	out, at, reason := plainValue(v, key)
	if reason != "" {
		t.fail(at, "%s", reason)
		return nil, false
	}
	return out, true
}

// maxExactInt is the largest integer a float64 (and so a Lua number) holds
// exactly.
const maxExactInt = 1 << 53

// toNumber returns v as a finite float64, or says why it is not one.
func toNumber(v any) (float64, string) {
	switch n := v.(type) {
	case int64:
		if n > maxExactInt || n < -maxExactInt {
			return 0, fmt.Sprintf("%d is too large to hold exactly as a number (at most 2^53)", n)
		}
		return float64(n), ""
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, fmt.Sprintf("must be a finite number, not %v", n)
		}
		return n, ""
	}
	return 0, fmt.Sprintf("must be a number, not %s", describeTOML(v))
}

func toVec2(v any) (entity.Vec2, string) {
	arr, ok := v.([]any)
	if !ok {
		return entity.Vec2{}, "got " + describeTOML(v)
	}
	if len(arr) != 2 {
		return entity.Vec2{}, fmt.Sprintf("got %d items", len(arr))
	}
	x, rx := toNumber(arr[0])
	y, ry := toNumber(arr[1])
	if rx != "" {
		return entity.Vec2{}, "x " + rx
	}
	if ry != "" {
		return entity.Vec2{}, "y " + ry
	}
	return entity.Vec2{X: x, Y: y}, ""
}

// plainValue turns a decoded TOML value into game data a behavior or a
// component codec can take: bool, float64 (whole numbers too: Lua has one
// number type), string, []any and map[string]any, nested. Dates and
// non-finite numbers are refused. at is the indexed path of v, relative to
// the table it is in; on failure it returns the path of the bad item.
func plainValue(v any, at string) (out any, badAt, reason string) {
	switch v := v.(type) {
	case bool, string:
		return v, "", ""
	case int64, float64:
		f, r := toNumber(v)
		if r != "" {
			return nil, at, r
		}
		return f, "", ""
	case []any:
		arr := make([]any, len(v))
		for i, e := range v {
			var bad, r string
			if arr[i], bad, r = plainValue(e, indexPath(at, i)); r != "" {
				return nil, bad, r
			}
		}
		return arr, "", ""
	case []map[string]any:
		arr := make([]any, len(v))
		for i, e := range v {
			var bad, r string
			if arr[i], bad, r = plainValue(e, indexPath(at, i)); r != "" {
				return nil, bad, r
			}
		}
		return arr, "", ""
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			o, bad, r := plainValue(e, joinPath(at, k))
			if r != "" {
				return nil, bad, r
			}
			m[k] = o
		}
		return m, "", ""
	}
	return nil, at, fmt.Sprintf("%s is not supported here: use numbers, strings, booleans, arrays and tables", describeTOML(v))
}

// describeTOML names a decoded TOML value's type, with the value when short.
func describeTOML(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			return "a string"
		}
		return fmt.Sprintf("the string %q", v)
	case int64:
		return fmt.Sprintf("the whole number %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("%t", v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date/time"
	}
	return fmt.Sprintf("a %T", v)
}

// ClosestName returns the entry of known that name is most likely a typo
// of (the same but for case, or at most two edits away), or "".
func ClosestName(name string, known []string) string { return closestKey(name, known) }

// closestKey returns the entry of known that key is most likely a typo of,
// or "".
func closestKey(key string, known []string) string {
	best, bestD := "", 3 // at most two edits away
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
		if d := names.Distance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// lineMap gives the line of each key of a TOML file by its indexed path
// ("entity[2].body.shape[0].box"), best effort.
type lineMap map[string]int

// find returns the line of p, or of the nearest enclosing key or table that
// has one, or 0.
func (l lineMap) find(p string) int {
	for p != "" {
		if n, ok := l[p]; ok {
			return n
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			return 0
		}
		p = p[:i]
	}
	return 0
}

// indexLines scans a TOML file for the line of every table header, key and
// array item. It is not a parser: it assumes the text already decoded, and
// on anything else it still returns, with fewer lines.
func indexLines(data []byte) lineMap {
	s := &lineScanner{src: data, line: 1, lines: lineMap{}, latest: map[string]int{}, count: map[string]int{}}
	s.run()
	return s.lines
}

type lineScanner struct {
	src    []byte
	pos    int
	line   int
	lines  lineMap
	latest map[string]int // array of tables → index of its newest element
	count  map[string]int // array of tables → elements so far
	table  string         // indexed path of the table being filled
}

func (s *lineScanner) eof() bool { return s.pos >= len(s.src) }

func (s *lineScanner) at(c byte) bool { return s.pos < len(s.src) && s.src[s.pos] == c }

func (s *lineScanner) record(p string, line int) {
	if _, ok := s.lines[p]; !ok {
		s.lines[p] = line
	}
}

func (s *lineScanner) run() {
	for {
		s.skipBlank()
		if s.eof() {
			return
		}
		start := s.pos
		if s.at('[') {
			s.header()
		} else {
			s.keyValue(s.table)
		}
		s.skipLine()
		if s.pos == start {
			s.pos++
		}
	}
}

// skipSpace skips blanks within a line.
func (s *lineScanner) skipSpace() {
	for !s.eof() && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t' || s.src[s.pos] == '\r') {
		s.pos++
	}
}

// skipBlank skips blanks, newlines and comments.
func (s *lineScanner) skipBlank() {
	for !s.eof() {
		switch s.src[s.pos] {
		case ' ', '\t', '\r':
			s.pos++
		case '\n':
			s.pos++
			s.line++
		case '#':
			for !s.eof() && s.src[s.pos] != '\n' {
				s.pos++
			}
		default:
			return
		}
	}
}

// skipLine skips the rest of the line, newline included.
func (s *lineScanner) skipLine() {
	for !s.eof() {
		c := s.src[s.pos]
		s.pos++
		if c == '\n' {
			s.line++
			return
		}
	}
}

func (s *lineScanner) header() {
	line := s.line
	s.pos++
	array := s.at('[')
	if array {
		s.pos++
	}
	parts := s.key()
	if len(parts) == 0 {
		return
	}
	if array {
		full := joinPath(s.resolve(parts[:len(parts)-1]), parts[len(parts)-1])
		i := s.count[full]
		s.count[full] = i + 1
		s.latest[full] = i
		s.table = indexPath(full, i)
	} else {
		s.table = s.resolve(parts)
	}
	s.record(s.table, line)
}

// resolve turns a dotted key into an indexed path, naming the newest element
// of every array of tables on the way, as TOML does.
func (s *lineScanner) resolve(parts []string) string {
	p := ""
	for _, k := range parts {
		p = joinPath(p, k)
		if i, ok := s.latest[p]; ok {
			p = indexPath(p, i)
		}
	}
	return p
}

func (s *lineScanner) keyValue(base string) {
	line := s.line
	parts := s.key()
	if len(parts) == 0 {
		return
	}
	p := base
	for _, k := range parts {
		p = joinPath(p, k)
		s.record(p, line)
	}
	s.skipSpace()
	if !s.at('=') {
		return
	}
	s.pos++
	s.skipSpace()
	s.value(p)
}

func (s *lineScanner) value(p string) {
	if s.eof() {
		return
	}
	switch s.src[s.pos] {
	case '"', '\'':
		s.str()
	case '[':
		s.pos++
		for i := 0; ; i++ {
			s.skipBlank()
			if s.eof() {
				return
			}
			if s.at(']') {
				s.pos++
				return
			}
			start := s.pos
			item := indexPath(p, i)
			s.record(item, s.line)
			s.value(item)
			s.skipBlank()
			if s.at(',') {
				s.pos++
			}
			if s.pos == start {
				s.pos++
			}
		}
	case '{':
		s.pos++
		for {
			s.skipBlank()
			if s.eof() {
				return
			}
			if s.at('}') {
				s.pos++
				return
			}
			start := s.pos
			s.keyValue(p)
			s.skipBlank()
			if s.at(',') {
				s.pos++
			}
			if s.pos == start {
				s.pos++
			}
		}
	default:
		for !s.eof() && !strings.ContainsRune(",]}#\n", rune(s.src[s.pos])) {
			s.pos++
		}
	}
}

// str skips a string of any of TOML's four kinds.
func (s *lineScanner) str() {
	q := s.src[s.pos]
	escapes := q == '"'
	triple := bytes.HasPrefix(s.src[s.pos:], []byte{q, q, q})
	if triple {
		s.pos += 3
	} else {
		s.pos++
	}
	for !s.eof() {
		c := s.src[s.pos]
		switch {
		case c == '\\' && escapes:
			s.pos++
			if s.at('\n') {
				s.line++
			}
			s.pos++
		case c == q && !triple:
			s.pos++
			return
		case c == q && bytes.HasPrefix(s.src[s.pos:], []byte{q, q, q}):
			s.pos += 3
			for extra := 0; extra < 2 && s.at(q); extra++ { // """a"""" ends with a quote in the string
				s.pos++
			}
			return
		case c == '\n':
			if !triple {
				return
			}
			s.line++
			s.pos++
		default:
			s.pos++
		}
	}
}

// key reads a dotted key (bare and quoted parts) and returns its parts.
func (s *lineScanner) key() []string {
	var parts []string
	for {
		s.skipSpace()
		if s.eof() {
			return parts
		}
		switch c := s.src[s.pos]; {
		case c == '"' || c == '\'':
			start := s.pos
			s.str()
			raw := string(s.src[start:s.pos])
			k := strings.Trim(raw, string(c))
			if c == '"' {
				if u, err := strconv.Unquote(raw); err == nil {
					k = u
				}
			}
			parts = append(parts, k)
		case isBareKeyByte(c):
			start := s.pos
			for !s.eof() && isBareKeyByte(s.src[s.pos]) {
				s.pos++
			}
			parts = append(parts, string(s.src[start:s.pos]))
		default:
			return parts
		}
		s.skipSpace()
		if !s.at('.') {
			return parts
		}
		s.pos++
	}
}

func isBareKeyByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
