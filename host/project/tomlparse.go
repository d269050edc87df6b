package project

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseTOML is the browser client's TOML decoder: it decodes a document
// into the values BurntSushi/toml decodes it into for a map (a table is a
// map[string]any, an array of tables a []map[string]any, any other array
// a []any, an integer an int64, a float a float64), in a tenth of the
// code. The browser client only decodes documents the server accepted
// (the project it downloads, and the files of a dev server's reload,
// which the server checked first), so it does not repeat every check the
// server's decoder makes (a table defined twice, a key of an inline table
// added to later); it refuses what it cannot read, dates and times among
// them, which no project key takes. The server and native clients decode
// with BurntSushi/toml (tomlread_std.go); TestParseTOMLMatches holds the
// two to the same values.

// tomlSyntaxError is a document parseTOML cannot read, at a line.
type tomlSyntaxError struct {
	Line int
	Msg  string
}

func (e *tomlSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

type tomlParser struct {
	s    string
	i    int
	line int
}

func (p *tomlParser) fail(format string, args ...any) error {
	return &tomlSyntaxError{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// parseTOML decodes data.
func parseTOML(data []byte) (map[string]any, error) {
	s := string(data)
	for _, bom := range []string{"\xef\xbb\xbf", "\xff\xfe", "\xfe\xff"} { // byte order marks, as BurntSushi/toml drops them
		if strings.HasPrefix(s, bom) {
			s = s[len(bom):]
			break
		}
	}
	p := &tomlParser{s: s, line: 1}
	root := map[string]any{}
	cur := root
	for {
		p.skipBlank(true)
		if p.i >= len(p.s) {
			return root, nil
		}
		switch {
		case strings.HasPrefix(p.s[p.i:], "[["):
			p.i += 2
			keys, err := p.keyPath()
			if err != nil {
				return nil, err
			}
			if !strings.HasPrefix(p.s[p.i:], "]]") {
				return nil, p.fail("an array of tables' header does not end in ]]")
			}
			p.i += 2
			parent, err := p.descend(root, keys[:len(keys)-1])
			if err != nil {
				return nil, err
			}
			last := keys[len(keys)-1]
			t := map[string]any{}
			switch v := parent[last].(type) {
			case nil:
				parent[last] = []map[string]any{t}
			case []map[string]any:
				parent[last] = append(v, t)
			default:
				return nil, p.fail("%q is not an array of tables", last)
			}
			cur = t
		case p.s[p.i] == '[':
			p.i++
			keys, err := p.keyPath()
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.s) || p.s[p.i] != ']' {
				return nil, p.fail("a table's header does not end in ]")
			}
			p.i++
			if cur, err = p.descend(root, keys); err != nil {
				return nil, err
			}
		default:
			if err := p.keyValue(cur); err != nil {
				return nil, err
			}
		}
		if err := p.endOfLine(); err != nil {
			return nil, err
		}
	}
}

// descend returns the table at keys below t, made where missing; an array
// of tables stands for its last table.
func (p *tomlParser) descend(t map[string]any, keys []string) (map[string]any, error) {
	for _, k := range keys {
		switch v := t[k].(type) {
		case nil:
			n := map[string]any{}
			t[k] = n
			t = n
		case map[string]any:
			t = v
		case []map[string]any:
			if len(v) == 0 {
				return nil, p.fail("%q is an empty array of tables", k)
			}
			t = v[len(v)-1]
		default:
			return nil, p.fail("%q is a value, not a table", k)
		}
	}
	return t, nil
}

// keyValue reads "key = value" into t.
func (p *tomlParser) keyValue(t map[string]any) error {
	keys, err := p.keyPath()
	if err != nil {
		return err
	}
	if p.i >= len(p.s) || p.s[p.i] != '=' {
		return p.fail("a key without =")
	}
	p.i++
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return err
	}
	parent, err := p.descend(t, keys[:len(keys)-1])
	if err != nil {
		return err
	}
	last := keys[len(keys)-1]
	if _, dup := parent[last]; dup {
		return p.fail("%q is set twice", last)
	}
	parent[last] = v
	return nil
}

// keyPath reads a dotted key and the blanks after it.
func (p *tomlParser) keyPath() ([]string, error) {
	var keys []string
	for {
		p.skipSpace()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '.' {
			p.i++
			continue
		}
		return keys, nil
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (p *tomlParser) key() (string, error) {
	if p.i >= len(p.s) {
		return "", p.fail("a key is missing")
	}
	switch p.s[p.i] {
	case '"':
		return p.basicString()
	case '\'':
		return p.literalString()
	}
	start := p.i
	for p.i < len(p.s) && isBareKey(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		return "", p.fail("%q cannot start a key", p.s[p.i])
	}
	return p.s[start:p.i], nil
}

// skipSpace skips spaces and tabs.
func (p *tomlParser) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipBlank skips spaces, tabs, comments and, with lines, line ends.
func (p *tomlParser) skipBlank(lines bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case lines && c == '\n':
			p.i++
			p.line++
		case lines && c == '\r' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n':
			p.i += 2
			p.line++
		default:
			return
		}
	}
}

// endOfLine reads what may follow a key's value or a header: blanks, a
// comment, then a line end or the end.
func (p *tomlParser) endOfLine() error {
	p.skipBlank(false)
	switch {
	case p.i >= len(p.s):
		return nil
	case p.s[p.i] == '\n':
		p.i++
		p.line++
		return nil
	case strings.HasPrefix(p.s[p.i:], "\r\n"):
		p.i += 2
		p.line++
		return nil
	}
	return p.fail("%q after a value, where the line should end", p.s[p.i])
}

// value reads one value.
func (p *tomlParser) value() (any, error) {
	if p.i >= len(p.s) {
		return nil, p.fail("a value is missing")
	}
	switch c := p.s[p.i]; c {
	case '"':
		return p.basicString()
	case '\'':
		return p.literalString()
	case '[':
		return p.array()
	case '{':
		return p.inlineTable()
	case 't':
		if strings.HasPrefix(p.s[p.i:], "true") {
			p.i += 4
			return true, nil
		}
	case 'f':
		if strings.HasPrefix(p.s[p.i:], "false") {
			p.i += 5
			return false, nil
		}
	}
	return p.number()
}

func (p *tomlParser) array() (any, error) {
	p.i++ // [
	out := []any{}
	for {
		p.skipBlank(true)
		if p.i >= len(p.s) {
			return nil, p.fail("an array does not end")
		}
		if p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipBlank(true)
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		return nil, p.fail("an array's values must be separated by commas")
	}
}

func (p *tomlParser) inlineTable() (any, error) {
	p.i++ // {
	t := map[string]any{}
	for {
		p.skipBlank(true)
		if p.i >= len(p.s) {
			return nil, p.fail("an inline table does not end")
		}
		if p.s[p.i] == '}' {
			p.i++
			return t, nil
		}
		if err := p.keyValue(t); err != nil {
			return nil, err
		}
		p.skipBlank(true)
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return t, nil
		}
		return nil, p.fail("an inline table's keys must be separated by commas")
	}
}

// number reads an integer or a float; a date or a time is refused.
func (p *tomlParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if !(isBareKey(c) || c == '+' || c == '.' || c == ':') {
			break
		}
		p.i++
	}
	tok := p.s[start:p.i]
	if tok == "" {
		return nil, p.fail("%q cannot start a value", p.s[start])
	}
	switch strings.TrimLeft(tok, "+-") {
	case "inf":
		if tok[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if strings.ContainsRune(tok, ':') || len(tok) >= 5 && tok[4] == '-' && tok[0] != '-' && tok[0] != '+' {
		return nil, p.fail("%s: dates and times are not read here", tok)
	}
	digits := strings.ReplaceAll(tok, "_", "")
	if len(digits) > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b') {
		base := 16
		switch digits[1] {
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		n, err := strconv.ParseUint(digits[2:], base, 64)
		if err != nil || n > math.MaxInt64 {
			return nil, p.fail("%s is not a whole number", tok)
		}
		return int64(n), nil
	}
	if strings.ContainsAny(digits, ".eE") {
		f, err := strconv.ParseFloat(digits, 64)
		if err != nil {
			return nil, p.fail("%s is not a number", tok)
		}
		return f, nil
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return nil, p.fail("%s is not a number", tok)
	}
	return n, nil
}

// literalString reads a literal string, on one line or several.
func (p *tomlParser) literalString() (string, error) {
	if strings.HasPrefix(p.s[p.i:], "'''") {
		p.i += 3
		p.trimFirstNewline()
		end := strings.Index(p.s[p.i:], "'''")
		if end < 0 {
			return "", p.fail("a multi-line literal string does not end")
		}
		end += p.i
		n := 3
		for end+n < len(p.s) && p.s[end+n] == '\'' && n < 5 {
			n++ // up to two quotes before the closing three belong to the string
		}
		end += n - 3
		v := p.s[p.i:end]
		p.line += strings.Count(v, "\n")
		p.i = end + 3
		return v, nil
	}
	p.i++
	end := strings.IndexAny(p.s[p.i:], "'\n")
	if end < 0 || p.s[p.i+end] != '\'' {
		return "", p.fail("a literal string does not end on its line")
	}
	v := p.s[p.i : p.i+end]
	p.i += end + 1
	return v, nil
}

// trimFirstNewline drops a line end just after a multi-line string opens.
func (p *tomlParser) trimFirstNewline() {
	switch {
	case strings.HasPrefix(p.s[p.i:], "\n"):
		p.i++
		p.line++
	case strings.HasPrefix(p.s[p.i:], "\r\n"):
		p.i += 2
		p.line++
	}
}

// basicString reads "..." or """...""" with their escapes.
func (p *tomlParser) basicString() (string, error) {
	multi := strings.HasPrefix(p.s[p.i:], `"""`)
	if multi {
		p.i += 3
		p.trimFirstNewline()
	} else {
		p.i++
	}
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.fail("a string does not end")
		}
		c := p.s[p.i]
		switch {
		case c == '"' && !multi:
			p.i++
			return b.String(), nil
		case c == '"' && strings.HasPrefix(p.s[p.i:], `"""`):
			n := 3
			for p.i+n < len(p.s) && p.s[p.i+n] == '"' && n < 5 {
				n++
			}
			b.WriteString(p.s[p.i : p.i+n-3]) // up to two quotes before the closing three
			p.i += n
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b, multi); err != nil {
				return "", err
			}
		case c == '\n':
			if !multi {
				return "", p.fail("a string does not end on its line")
			}
			p.line++
			b.WriteByte(c)
			p.i++
		default:
			_, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+size])
			p.i += size
		}
	}
}

// escape reads one escape of a basic string.
func (p *tomlParser) escape(b *strings.Builder, multi bool) error {
	p.i++ // \
	if p.i >= len(p.s) {
		return p.fail("a string does not end")
	}
	c := p.s[p.i]
	p.i++
	// The one-letter escapes, and what each stands for.
	const letters, bytes = "btnfre\"\\", "\b\t\n\f\r\x1b\"\\"
	if k := strings.IndexByte(letters, c); k >= 0 {
		b.WriteByte(bytes[k])
		return nil
	}
	switch c {
	case 'x', 'u', 'U':
		n := 2
		switch c {
		case 'u':
			n = 4
		case 'U':
			n = 8
		}
		if p.i+n > len(p.s) {
			return p.fail("an escape is cut short")
		}
		r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return p.fail("\\%c%s is not a character", c, p.s[p.i:p.i+n])
		}
		b.WriteRune(rune(r))
		p.i += n
	case ' ', '\t', '\n', '\r':
		// A line-ending backslash in a multi-line string: the line end
		// and the blanks after it go.
		if !multi {
			return p.fail("\\%q is not an escape", c)
		}
		p.i--
		for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
			p.i++
		}
		if p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
			return p.fail("a backslash followed by blanks must end the line")
		}
		for p.i < len(p.s) {
			switch p.s[p.i] {
			case '\n':
				p.line++
				p.i++
			case ' ', '\t', '\r':
				p.i++
			default:
				return nil
			}
		}
	default:
		return p.fail("\\%c is not an escape", c)
	}
	return nil
}
