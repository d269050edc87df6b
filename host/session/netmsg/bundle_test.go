package netmsg

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sampleBundle is a reload of a script and a prefab.
func sampleBundle() *Bundle {
	b := &Bundle{ServerTick: 900, ClientTick: 870, Files: map[string][]byte{
		"scripts/walker.lua":  []byte("local Walker = {}\nreturn Walker\n"),
		"prefabs/player.toml": []byte("[[entity]]\nuid = 1\n"),
	}}
	b.Hash = BundleHash(b.Files)
	return b
}

// FuzzBundle feeds ParseBundle arbitrary messages: it never panics, a
// bundle it accepts writes only scripts and prefabs inside the project
// folder, passes Check, and encodes back to the same bytes.
func FuzzBundle(f *testing.F) {
	valid := sampleBundle().Append(nil)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(append(bytes.Clone(valid), 0))
	f.Add([]byte{byte(KindBundle)})
	f.Add(NoReload{Sentence: "no"}.Append(nil))
	empty := &Bundle{Files: map[string][]byte{}}
	empty.Hash = BundleHash(empty.Files)
	f.Add(empty.Append(nil))
	evil := &Bundle{Files: map[string][]byte{"../../etc/passwd.lua": nil}}
	evil.Hash = BundleHash(evil.Files)
	f.Add(evil.Append(nil))
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, err := ParseBundle(msg)
		mustParseError(t, err)
		if err != nil {
			return
		}
		if again := got.Append(nil); !bytes.Equal(again, msg) {
			t.Fatalf("accepted %x, encodes back as %x", msg, again)
		}
		if got.Size() != len(msg) {
			t.Fatalf("Size %d of a %d-byte bundle", got.Size(), len(msg))
		}
		if err := got.Check(); err != nil {
			t.Fatalf("accepted a bundle Check refuses: %v", err)
		}
	})
}

// TestBundleRoundTrip: a bundle comes back as it went, its Size is what
// Append writes, and every strict prefix is refused.
func TestBundleRoundTrip(t *testing.T) {
	empty := &Bundle{ServerTick: 1, Files: map[string][]byte{}}
	empty.Hash = BundleHash(empty.Files)
	for _, b := range []*Bundle{sampleBundle(), empty} {
		msg := b.Append(nil)
		if b.Size() != len(msg) {
			t.Errorf("Size %d; Append wrote %d", b.Size(), len(msg))
		}
		got, err := ParseBundle(msg)
		if err != nil || !reflect.DeepEqual(got, b) {
			t.Fatalf("%+v came back %+v, %v", b, got, err)
		}
		prefixesFail(t, "bundle", msg, func(m []byte) error { _, err := ParseBundle(m); return err })
	}
}

// TestBundleCopiesItsFiles: a parsed bundle does not alias the message,
// which the channel may reuse.
func TestBundleCopiesItsFiles(t *testing.T) {
	msg := sampleBundle().Append(nil)
	got, err := ParseBundle(msg)
	if err != nil {
		t.Fatal(err)
	}
	clear(msg)
	if !reflect.DeepEqual(got.Files, sampleBundle().Files) {
		t.Fatalf("the files changed with the message: %q", got.Files)
	}
}

// TestBundleRefuses checks the parser's and Check's bounds one by one.
func TestBundleRefuses(t *testing.T) {
	with := func(files map[string][]byte) []byte {
		b := &Bundle{Files: files}
		b.Hash = BundleHash(files)
		return b.Append(nil)
	}
	many := map[string][]byte{}
	for i := range MaxBundleFiles + 1 {
		many[fmt.Sprintf("scripts/s%d.lua", i)] = nil
	}
	wrongHash := sampleBundle()
	wrongHash.Hash++
	twice := with(map[string][]byte{"a.lua": []byte("x")})
	twice[17]++                          // two files,
	twice = append(twice, twice[19:]...) // the same one again
	long := "scripts/" + strings.Repeat("a", MaxBundlePath) + ".lua"
	for name, files := range map[string]map[string][]byte{
		"too many":      many,
		"long path":     {long: nil},
		"outside":       {"../x.lua": nil},
		"absolute":      {"/x.lua": nil},
		"backslash":     {"scripts\\x.lua": nil},
		"drive":         {"c:x.lua": nil},
		"dot":           {".": nil},
		"not a script":  {"scripts/x.sh": nil},
		"no extension":  {"scripts/lua": nil},
		"empty path":    {"": nil},
		"trailing dots": {"scripts/../../x.lua": nil},
	} {
		if err := (&Bundle{Files: files}).Check(); err == nil {
			t.Errorf("%s: Check passed", name)
		} else {
			mustParseError(t, err)
		}
		if _, err := ParseBundle(with(files)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	for name, msg := range map[string][]byte{
		"wrong hash":  wrongHash.Append(nil),
		"wrong kind":  append([]byte{byte(KindNoReload)}, sampleBundle().Append(nil)[1:]...),
		"said twice":  twice,
		"trailing":    append(sampleBundle().Append(nil), 0),
		"size past":   append(with(map[string][]byte{"a.lua": nil})[:BundleHeader+2+5], 9, 0, 0, 0, 'x'),
		"empty":       nil,
		"header only": {byte(KindBundle)},
	} {
		b, err := ParseBundle(msg)
		if err == nil {
			t.Errorf("%s: parsed %+v", name, b)
		}
		mustParseError(t, err)
	}
}
