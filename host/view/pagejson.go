package view

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The page's messages are decoded here rather than by encoding/json, whose
// decoder is a quarter of a megabyte of the browser client's download.
// decodeMessage gives what json.Unmarshal into a rawMessage gives
// (FuzzDecodeMessageMatchesJSON holds it to that), ok false where
// json.Unmarshal fails: input that is not one JSON value, nested deeper
// than encoding/json's 10,000, or a value of a type its field cannot hold.

// maxJSONDepth is encoding/json's bound on nesting.
const maxJSONDepth = 10000

// pageJSON reads one message.
type pageJSON struct {
	b     []byte
	i     int
	depth int
	bad   bool // a value did not fit its field: the message is refused, once read whole
}

// decodeMessage decodes b into raw, as json.Unmarshal(b, raw) does, and
// reports whether that succeeds.
func decodeMessage(b []byte, raw *rawMessage) bool {
	d := pageJSON{b: b}
	d.space()
	if d.i >= len(d.b) {
		return false
	}
	switch d.b[d.i] {
	case '{':
		if !d.object(func(key string) bool { return d.field(key, raw) }) {
			return false
		}
	case 'n':
		if !d.literal("null") {
			return false
		}
	default:
		if !d.skip() {
			return false
		}
		d.bad = true
	}
	d.space()
	return d.i == len(d.b) && !d.bad
}

func (d *pageJSON) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *pageJSON) literal(s string) bool {
	if !strings.HasPrefix(string(d.b[d.i:]), s) {
		return false
	}
	d.i += len(s)
	return true
}

// peek returns the next byte past white space, 0 at the end.
func (d *pageJSON) peek() byte {
	d.space()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// object reads an object, handing each member's key to member, which
// reads its value.
func (d *pageJSON) object(member func(key string) bool) bool {
	if d.depth++; d.depth > maxJSONDepth {
		return false
	}
	d.i++ // {
	if d.peek() == '}' {
		d.i++
		d.depth--
		return true
	}
	for {
		if d.peek() != '"' {
			return false
		}
		key, ok := d.str()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		if d.peek() == 0 {
			return false
		}
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return true
		default:
			return false
		}
	}
}

// field reads the value of the member key into the field of raw that
// encoding/json would choose: the one of that name, in any case.
func (d *pageJSON) field(key string, raw *rawMessage) bool {
	c := d.b[d.i]
	switch {
	case strings.EqualFold(key, "t"):
		if c == 'n' {
			return d.literal("null")
		}
		return d.strInto(&raw.T)
	case strings.EqualFold(key, "text"):
		return d.strPtr(&raw.Text)
	case strings.EqualFold(key, "name"):
		return d.strPtr(&raw.Name)
	case strings.EqualFold(key, "latency_ms"):
		return d.numPtr(&raw.LatencyMS)
	case strings.EqualFold(key, "jitter_ms"):
		return d.numPtr(&raw.JitterMS)
	case strings.EqualFold(key, "loss_pct"):
		return d.numPtr(&raw.LossPct)
	case strings.EqualFold(key, "id"):
		return d.numPtr(&raw.ID)
	case strings.EqualFold(key, "player"):
		return d.numPtr(&raw.Player)
	case strings.EqualFold(key, "axes"):
		if c == 'n' {
			raw.Axes = nil
			return d.literal("null")
		}
		if c != '{' {
			return d.mismatch()
		}
		if raw.Axes == nil {
			raw.Axes = map[string]float64{}
		}
		return d.object(func(k string) bool {
			var f float64
			switch d.b[d.i] {
			case 'n':
				if !d.literal("null") {
					return false
				}
			default:
				if !d.num(&f) {
					return false
				}
			}
			raw.Axes[k] = f
			return true
		})
	case strings.EqualFold(key, "held"):
		if c == 'n' {
			raw.Held = nil
			return d.literal("null")
		}
		if c != '{' {
			return d.mismatch()
		}
		if raw.Held == nil {
			raw.Held = map[string]bool{}
		}
		return d.object(func(k string) bool {
			var v bool
			switch d.b[d.i] {
			case 'n':
				if !d.literal("null") {
					return false
				}
			case 't':
				if !d.literal("true") {
					return false
				}
				v = true
			case 'f':
				if !d.literal("false") {
					return false
				}
			default:
				if !d.mismatch() {
					return false
				}
			}
			raw.Held[k] = v
			return true
		})
	case strings.EqualFold(key, "fields"):
		if c == 'n' {
			raw.Fields = nil
			return d.literal("null")
		}
		if c != '{' {
			return d.mismatch()
		}
		if raw.Fields == nil {
			raw.Fields = map[string]rawJSON{}
		}
		return d.object(func(k string) bool {
			start := d.i
			if !d.skip() {
				return false
			}
			raw.Fields[k] = append([]byte(nil), d.b[start:d.i]...)
			return true
		})
	}
	return d.skip()
}

// mismatch skips a value of a type its field cannot hold, and marks the
// message refused.
func (d *pageJSON) mismatch() bool {
	d.bad = true
	return d.skip()
}

func (d *pageJSON) strInto(dst *string) bool {
	if d.b[d.i] != '"' {
		return d.mismatch()
	}
	s, ok := d.str()
	*dst = s
	return ok
}

func (d *pageJSON) strPtr(dst **string) bool {
	if d.b[d.i] == 'n' {
		*dst = nil
		return d.literal("null")
	}
	if d.b[d.i] != '"' {
		return d.mismatch()
	}
	s, ok := d.str()
	*dst = &s
	return ok
}

func (d *pageJSON) numPtr(dst **float64) bool {
	if d.b[d.i] == 'n' {
		*dst = nil
		return d.literal("null")
	}
	var f float64
	if !d.num(&f) {
		return false
	}
	*dst = &f
	return true
}

// num reads a number into f; any other value is a mismatch.
func (d *pageJSON) num(f *float64) bool {
	c := d.b[d.i]
	if c != '-' && (c < '0' || c > '9') {
		return d.mismatch()
	}
	start := d.i
	if !d.number() {
		return false
	}
	v, err := strconv.ParseFloat(string(d.b[start:d.i]), 64)
	if err != nil {
		d.bad = true
	}
	*f = v
	return true
}

// number reads a number as JSON writes one.
func (d *pageJSON) number() bool {
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.b[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// skip reads any one value.
func (d *pageJSON) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(func(string) bool { return d.skip() })
	case c == '[':
		if d.depth++; d.depth > maxJSONDepth {
			return false
		}
		d.i++
		if d.peek() == ']' {
			d.i++
			d.depth--
			return true
		}
		for {
			d.space()
			if !d.skip() {
				return false
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				d.depth--
				return true
			default:
				return false
			}
		}
	case c == '"':
		_, ok := d.str()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return false
}

// str reads a string, as encoding/json unquotes one: a bad escape or a
// control character is an error, bytes that are not UTF-8 and lone
// surrogates become U+FFFD.
func (d *pageJSON) str() (string, bool) {
	d.i++ // "
	var out []byte
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			if out == nil {
				s := d.b[start:d.i]
				d.i++
				if utf8.Valid(s) {
					return string(s), true
				}
				return validRunes(s), true
			}
			d.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c == '\\':
			if out == nil {
				out = append([]byte{}, d.b[start:d.i]...)
				out = []byte(validRunes(out))
			}
			d.i++
			if d.i >= len(d.b) {
				return "", false
			}
			e := d.b[d.i]
			d.i++
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", false
				}
				if utf16.IsSurrogate(r) {
					save := d.i
					if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
						d.i += 2
						if r2, ok := d.hex4(); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								out = utf8.AppendRune(out, dec)
								continue
							}
						}
					}
					d.i = save
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", false
			}
		case c < utf8.RuneSelf:
			if out != nil {
				out = append(out, c)
			}
			d.i++
		default:
			r, n := utf8.DecodeRune(d.b[d.i:])
			if out != nil {
				out = utf8.AppendRune(out, r) // U+FFFD for a bad byte
			}
			d.i += n
		}
	}
	return "", false
}

// validRunes is s with each byte that is not UTF-8 made U+FFFD, one for
// each, as encoding/json does.
func validRunes(s []byte) string {
	var out []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}

func (d *pageJSON) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}
