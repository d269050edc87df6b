package project

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// tomlCases are documents that use what TOML has: every kind of string
// and escape, numbers in every base and spelling, nested arrays and
// inline tables over several lines, dotted and quoted keys, tables and
// arrays of tables with their subtables, comments and CRLF line ends.
var tomlCases = []string{
	"",
	"# only a comment\n",
	"a = 1\nb = -2\nc = +3\nd = 1_000\ne = 0xff_ff\nf = 0o17\ng = 0b101\n",
	"a = 1.5\nb = -0.0\nc = 6.02e23\nd = 1e-3\ne = 1_0.2_5\nf = inf\ng = -inf\nh = +inf\n",
	"a = \"tab\\there \\\"quoted\\\" \\\\ \\u00e9 \\U0001F409 \\b\\f\\r\\n\"\nb = 'C:\\path'\n",
	"a = \"\"\"\nfirst\n  second \\\n    joined\"\"\"\nb = '''\nraw \\n ''quotes'' '''\nc = \"\"\"two \"\"quotes\"\"\"\"\"\n",
	"a = [1, 2, 3]\nb = [\n  \"x\", # a comment\n  'y',\n]\nc = [[1, 2], [3.5], []]\nd = [{ p = 1 }, { q = \"r\" }]\n",
	"point = { x = 1.0, y = -2.5 }\nnested = { a = { b = { c = true } } }\ndotted = { a.b = 1, a.c = 2 }\n",
	"a.b.c = 1\na.b.d = 'e'\n\"quoted key\" = 1\n'lit.key' = 2\nsite.\"google.com\" = true\n",
	"[table]\nx = 1\n[table.sub]\ny = 2\n[other . 'quoted' . \"key\"]\nz = 3\n",
	"[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1.0, 2.0]\n[[entity.body.shape]]\ncircle = 0.5\n[[entity]]\nid = 2\n",
	"a = 1\r\nb = \"x\"\r\n[t]\r\nc = [\r\n  1,\r\n  2,\r\n]\r\n",
	"  indented = true   # comment after\n\t[ spaced ]  # header comment\n\tk=\"v\"\n",
	"empty = {}\nea = []\nbools = [true, false]\n",
	"s = \"\\e \\x41\"\n",
	"a = \"\"\"\r\nx\r\ny\"\"\"\r\nb = '''\r\nx\r\ny'''\r\nc = \"\"\"x \\\r\n  y\"\"\"\r\n",
	"[a]\n[a.b]\n[[c]]\n[c.d]\ne = 1\n[[c]]\n",
}

// decodeBoth decodes text with BurntSushi/toml and with parseTOML.
func decodeBoth(text string) (want, got map[string]any, wantErr, gotErr error) {
	_, wantErr = toml.Decode(text, &want)
	got, gotErr = parseTOML([]byte(text))
	return
}

// sameTOML is reflect.DeepEqual with NaN equal to NaN, and nil and empty
// tables alike at the top.
func sameTOML(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTOML(x[i], y[i]) {
				return false
			}
		}
		return true
	case []map[string]any:
		y, ok := b.([]map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTOML(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameTOML(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// TestParseTOMLMatches: parseTOML decodes every TOML file of the example
// projects and the tests' projects, and the cases above, to the values
// BurntSushi/toml decodes them to.
func TestParseTOMLMatches(t *testing.T) {
	texts := map[string]string{}
	for i, c := range tomlCases {
		texts["case "+string(rune('a'+i))] = c
	}
	for _, root := range []string{"../../projects", "testdata", "../../cmd/vkmd/newproject"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".toml") {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				texts[path] = string(b)
			}
			return nil
		})
	}
	files := 0
	for name, text := range texts {
		want, got, wantErr, gotErr := decodeBoth(text)
		if wantErr != nil {
			if !strings.HasPrefix(name, "testdata") {
				t.Errorf("%s: BurntSushi/toml refuses it: %v", name, wantErr)
			}
			continue
		}
		files++
		if gotErr != nil {
			t.Errorf("%s: parseTOML refuses it: %v", name, gotErr)
			continue
		}
		if want == nil {
			want = map[string]any{}
		}
		if !sameTOML(want, got) {
			t.Errorf("%s:\nBurntSushi/toml: %#v\nparseTOML:       %#v", name, want, got)
		}
	}
	if files < 30 {
		t.Fatalf("only %d documents compared", files)
	}
	t.Logf("%d documents decode the same", files)
}

// FuzzParseTOML: whatever the bytes, parseTOML returns values or an error
// and never panics; a document BurntSushi/toml reads, parseTOML reads to
// the same values, unless it holds a date or a time (which no project key
// takes, and parseTOML refuses).
func FuzzParseTOML(f *testing.F) {
	for _, c := range tomlCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("d = 1979-05-27T07:32:00Z\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want, got, wantErr, gotErr := decodeBoth(string(b))
		if wantErr != nil {
			return
		}
		if gotErr != nil {
			if strings.Contains(gotErr.Error(), "dates and times") {
				return
			}
			t.Fatalf("BurntSushi/toml reads %q and parseTOML refuses it: %v", b, gotErr)
		}
		if want == nil {
			want = map[string]any{}
		}
		if !sameTOML(want, got) {
			t.Fatalf("%q:\nBurntSushi/toml: %#v\nparseTOML:       %#v", b, want, got)
		}
	})
}
