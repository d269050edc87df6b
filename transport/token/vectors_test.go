package token

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.txt and testdata/example.token from Mint")

// The vector: testClaims minted with testKey at mintedAt, the nonce and
// keys drawn from a reader counting up from 0.
func renderVectors(t *testing.T) (string, []byte) {
	tok := mint(t)
	var s strings.Builder
	s.WriteString(`# vkm connect token test vector (transport/token).
#
# Fields below "vector" are the inputs: the key the backend and servers
# share, the claims and the mint time. The nonce and the two session keys
# are the 88 bytes 00 01 02 ... 57 in that order, as a reader counting from
# 0 yields them. Then the token: its binary form in hex (Sealed, 323 bytes,
# then the client-to-server and server-to-client keys), 16 bytes a row, and
# its text form, the base64 of the binary form, as testdata/example.token
# holds it.
#
# Checked by TestVectorsFile; regenerate with
#   go test ./transport/token -run TestVectorsFile -update
# only when the format changes on purpose (and raise Version).
`)
	c := testClaims()
	fmt.Fprintf(&s, "\nvector minted\nkey %x\nprotocol %#016x\nclient %#016x\n", testKey[:], c.Protocol, c.Client)
	fmt.Fprintf(&s, "created %d (%s)\nexpires %d (%s)\n", mintedAt.Unix(), mintedAt.Format(time.RFC3339), c.Expires.Unix(), c.Expires.Format(time.RFC3339))
	for _, a := range c.Servers {
		fmt.Fprintf(&s, "server %s\n", a)
	}
	fmt.Fprintf(&s, "name %q\n", c.Name)
	bin := tok.Append(nil)
	fmt.Fprintf(&s, "binary (%d bytes)\n", len(bin))
	for i := 0; i < len(bin); i += 16 {
		fmt.Fprintf(&s, "% x\n", bin[i:min(i+16, len(bin))])
	}
	txt, _ := tok.MarshalText()
	fmt.Fprintf(&s, "text\n%s\n", txt)
	return s.String(), append(txt, '\n')
}

func TestVectorsFile(t *testing.T) {
	vectors := filepath.Join("testdata", "vectors.txt")
	example := filepath.Join("testdata", "example.token")
	want, wantText := renderVectors(t)
	if *update {
		if err := os.WriteFile(vectors, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(example, wantText, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{vectors, []byte(want)}, {example, wantText}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is out of date with Mint; if the format changed on purpose, raise Version and run with -update", f.path)
		}
	}
}

// The file's binary rows and the example file read back, and the server
// opens them, under the key, to the claims the file lists.
func TestVectorsFileOpens(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var bin []byte
	inBinary := false
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "binary "):
			inBinary = true
		case line == "text":
			inBinary = false
		case inBinary:
			b, err := hex.DecodeString(strings.ReplaceAll(line, " ", ""))
			if err != nil {
				t.Fatalf("vectors.txt: %q: %v", line, err)
			}
			bin = append(bin, b...)
		}
	}
	fromBinary, err := Parse(bin)
	if err != nil {
		t.Fatal(err)
	}
	txt, err := os.ReadFile(filepath.Join("testdata", "example.token"))
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := ParseText(txt)
	if err != nil {
		t.Fatalf("example.token: %v", err)
	}
	if !sameToken(fromBinary, fromText) {
		t.Fatal("the binary rows and example.token are different tokens")
	}
	c, err := Open(&testKey, fromText.Sealed[:], mintedAt, server4)
	want := testClaims()
	if err != nil || c.Client != want.Client || c.Name != want.Name || !slices.Equal(c.Servers, want.Servers) ||
		c.ClientToServer != fromText.ClientToServer || c.ServerToClient != fromText.ServerToClient {
		t.Fatalf("the vector opens as %+v, %v", c, err)
	}
}
