package session

import (
	"bytes"
	"testing"

	"vkm/transport"
)

// FuzzBundle feeds decodeBundle arbitrary messages: it never panics, and a
// bundle it accepts encodes back to the same bytes.
func FuzzBundle(f *testing.F) {
	b := &scriptBundle{serverTick: 900, clientTick: 870, files: map[string][]byte{
		"scripts/walker.lua":  []byte("local Walker = {}\nreturn Walker\n"),
		"prefabs/player.toml": []byte("[[entity]]\nuid = 1\n"),
	}}
	b.hash = bundleHash(b.files)
	valid := b.encode(nil)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(append(bytes.Clone(valid), 0))
	f.Add([]byte{msgReload})
	f.Add(noReloadMessage("no"))
	evil := &scriptBundle{files: map[string][]byte{"../../etc/passwd.lua": nil}}
	evil.hash = bundleHash(evil.files)
	f.Add(evil.encode(nil))
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, err := decodeBundle(msg)
		if err != nil {
			return
		}
		if again := got.encode(nil); !bytes.Equal(again, msg) {
			t.Fatalf("accepted %x, encodes back as %x", msg, again)
		}
		for p := range got.files {
			if checkBundlePath(p) != nil {
				t.Fatalf("accepted path %q", p)
			}
		}
	})
}

// FuzzPayload feeds the session framing arbitrary payloads: never a panic,
// and what it returns lies inside what it was given.
func FuzzPayload(f *testing.F) {
	rel := mustReliable()
	rel.Send([]byte("hello"))
	framed := framePayload(nil, rel, []byte{1, 2, 3}, 0)
	f.Add(framed)
	f.Add([]byte{0, 9, 9})
	f.Add([]byte{})
	f.Add([]byte{0x80})
	f.Add([]byte{flagReliable, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		in, err := transport.NewReliable(transport.ReliableConfig{})
		if err != nil {
			t.Fatal(err)
		}
		main, err := unframePayload(p, in)
		if err == nil && len(main) > len(p) {
			t.Fatalf("returned %d bytes from %d", len(main), len(p))
		}
	})
}
