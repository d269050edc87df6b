package token

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestKeyText(t *testing.T) {
	txt, _ := testKey.MarshalText()
	if len(txt) != KeyTextSize {
		t.Fatalf("%d characters, want %d", len(txt), KeyTextSize)
	}
	var k Key
	if err := k.UnmarshalText(append(txt, '\n')); err != nil || k != testKey {
		t.Fatalf("UnmarshalText = %x, %v", k, err)
	}
	for _, bad := range []string{"", string(txt[:len(txt)-1]), strings.Repeat("*", KeyTextSize), string(txt) + "AAAA"} {
		if _, err := ParseKey([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseKey(%q) = %v", bad, err)
		} else if len(bad) > 8 && strings.Contains(err.Error(), bad[:8]) {
			t.Errorf("the error repeats the key: %v", err)
		}
	}
	a, err := NewKey(nil)
	b, _ := NewKey(nil)
	if err != nil || a == b || a == (Key{}) {
		t.Fatalf("NewKey drew %x and %x (%v)", a, b, err)
	}
}

// FuzzParseKey: the decoder of a server's key file.
func FuzzParseKey(f *testing.F) {
	txt, _ := testKey.MarshalText()
	f.Add(txt)
	f.Add(append(bytes.Clone(txt), '\n'))
	f.Add(txt[:len(txt)-2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := ParseKey(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseKey = %v, not ErrMalformed", err)
			}
			return
		}
		if again, _ := k.MarshalText(); !bytes.Equal(again, bytes.TrimSpace(b)) {
			t.Fatalf("ParseKey accepted %q, which MarshalText writes as %q", b, again)
		}
	})
}
