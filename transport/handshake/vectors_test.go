package handshake

import (
	"vkm/transport/seal"

	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.txt from the encoders")

// A padded Hello, byte by byte as the documented layout says.
func TestHelloGoldenBytes(t *testing.T) {
	want := []byte{
		'v', 'k', 0x0b, 0x01, // tag, version 11, kind hello
		0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, // token
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // 12 schema fingerprint
		0x00, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, // 20 action fingerprint
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // 28 world fingerprint
		0x40, 0x00, // 36 tick rate 64
		0x05,                                           // 38 action count
		0x01,                                           // 39 flags: dev
		0x88, 0x79, 0x6a, 0x5b, 0x4c, 0x3d, 0x2e, 0x1f, // 40 nonce
		0x03,          // 48 name length
		'a', 'd', 'a', // 49 name
	}
	want = append(want, make([]byte, HelloSize-len(want))...)
	got := AppendDatagram(nil, 0x0123456789abcdef, sampleHello)
	if !bytes.Equal(got, want) {
		t.Fatalf("Hello =\n% x\nwant\n% x", got[:56], want[:56])
	}
}

// vectors are the messages written to testdata/vectors.txt.
var vectors = []struct {
	name, about string
	token       uint64
	msg         Message
	// sealed, when set, writes the datagram as a sealed Refuse of msg
	// under sampleKey with this counter.
	sealed uint64
}{
	{"hello-first", "A first Hello: no token yet, no actions defined yet (action fingerprint 0), a generated world (world fingerprint 0); the join attempt's nonce 0x1f2e3d4c5b6a7988 at offset 40.",
		0, Hello{SchemaFP: 0x1122334455667788, TickRate: 64, Name: "ada", Nonce: sampleNonce}, 0},
	{"hello-echo", "A Hello echoing the Challenge's token, from a dev client with 5 actions and a loaded world.",
		0x0123456789abcdef, sampleHello, 0},
	{"hello-token", "A Hello echoing the Challenge's token and carrying a sealed connect token (323 bytes at offset 81; flag bit 1) and its proof (16 bytes at 404): HMAC-SHA256 under the client-to-server key 40 41 42 ... 5f of \"vkm hello proof\" and the datagram's first 404 bytes, cut to 16. The token's bytes here are a stand-in: 1, 2, 3 ... counting mod 251.",
		0x0123456789abcdef, Hello{SchemaFP: 0x1122334455667788, TickRate: 64, Name: "ada", Nonce: sampleNonce, Token: sampleToken}, 0},
	{"challenge", "A Challenge handing out token 0x0123456789abcdef to the Hello with nonce 0x1f2e3d4c5b6a7988, which it echoes.",
		0x0123456789abcdef, Challenge{Nonce: sampleNonce}, 0},
	{"welcome", "A Welcome seating player 3 of 4 at server tick 123456, 64 ticks a second, dev server.",
		0x0123456789abcdef, Welcome{ServerTick: 123456, Player: 3, MaxPlayers: 4, TickRate: 64, Dev: true}, 0},
	{"refuse-full", "A Refuse of a first Hello (token 0): the server is full, 4 seats.",
		0, Refuse{Reason: ReasonFull, Nonce: sampleNonce, MaxPlayers: 4}, 0},
	{"refuse-tick-rate", "A Refuse: the server runs at 64 ticks a second, the client at 128.",
		0x0123456789abcdef, Refuse{Reason: ReasonTickRate, Nonce: sampleNonce, ServerTickRate: 64, ClientTickRate: 128}, 0},
	{"refuse-version", "A version 9 server refusing a version 8 client's Hello, whose nonce it cannot read (0).",
		0, VersionRefusal(9, 8), 0},
	{"refuse-join-failed", "A dev server's Refuse: the game's join handler raised an error, told to a dev client as file:line and message.",
		0x0123456789abcdef, Refuse{Reason: ReasonJoinFailed, Nonce: sampleNonce, Detail: "scripts/join.lua:7: no seats left"}, 0},
	{"sealed-refuse-token-expired", "A sealed Refuse (kind 7) of a Hello whose connect token has expired: the Refuse body sealed under the token's server-to-client key 40 41 42 ... 5f with ChaCha20-Poly1305, counter 0x8000000000000005 (the top bit set) after the header, the header and counter authenticated, the tag last.",
		0x0123456789abcdef, Refuse{Reason: ReasonTokenExpired, Nonce: sampleNonce}, SealedRefuseBit | 5},
	{"goodbye", "A Goodbye: the server is shutting down.",
		0x0123456789abcdef, Goodbye{Reason: GoodbyeShutdown}, 0},
}

// vectorBytes returns a vector's datagram.
func vectorBytes(token uint64, m Message, sealed uint64) []byte {
	if sealed != 0 {
		h := Header{Version: Version, Kind: KindSealedRefuse, Token: token}.Append(nil)
		return seal.SealOnce(nil, sampleKey, h, sealed, m.Append(nil))
	}
	b := AppendDatagram(nil, token, m)
	if h, ok := m.(Hello); ok && h.Token != nil {
		Prove(b, sampleKey)
	}
	return b
}

// describe prints a vector's token and value, fingerprints in hex.
func describe(token uint64, m Message) string {
	if h, ok := m.(Hello); ok {
		return fmt.Sprintf("token %#016x, Hello{SchemaFP:%#016x ActionCount:%d ActionFP:%#016x WorldFP:%#016x TickRate:%d Name:%q Dev:%v Nonce:%#016x}",
			token, h.SchemaFP, h.ActionCount, h.ActionFP, h.WorldFP, h.TickRate, h.Name, h.Dev, h.Nonce) + tokenNote(h.Token)
	}
	return fmt.Sprintf("token %#016x, %s%+v", token, strings.TrimPrefix(fmt.Sprintf("%T", m), "handshake."), m)
}

// renderVectors writes the vectors file's text.
func renderVectors() string {
	var s strings.Builder
	fmt.Fprintf(&s, `# vkm wire protocol test vectors, protocol version %d (transport/handshake).
#
# Every datagram starts with the same 12-byte header in every protocol
# version: tag "vk" (0x76 0x6b), version (1 byte), kind (1 byte), token
# (8 bytes). All integers are little endian. Kinds: 1 hello, 2 challenge,
# 3 welcome, 4 refuse, 5 goodbye, 6 data, 7 sealed refuse.
#
# Each vector is a "vector NAME" line, comment lines, then the datagram in
# hex, 16 bytes a row; a row "zeros N" stands for N zero bytes. A Hello is
# always padded with zeros to %d bytes.
#
# Checked by TestVectorsFile; regenerate with
#   go test ./transport/handshake -run TestVectorsFile -update
# only when Version changes.
`, Version, HelloSize)
	for _, v := range vectors {
		b := vectorBytes(v.token, v.msg, v.sealed)
		fmt.Fprintf(&s, "\nvector %s\n# %s\n# %d bytes: %s\n", v.name, v.about, len(b), describe(v.token, v.msg))
		end := len(bytes.TrimRight(b, "\x00"))
		if len(b)-end < 16 {
			end = len(b)
		}
		for i := 0; i < end; i += 16 {
			fmt.Fprintf(&s, "% x\n", b[i:min(i+16, end)])
		}
		if end < len(b) {
			fmt.Fprintf(&s, "zeros %d\n", len(b)-end)
		}
	}
	return s.String()
}

func TestVectorsFile(t *testing.T) {
	path := filepath.Join("testdata", "vectors.txt")
	want := renderVectors()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with the encoders; if the protocol changed on purpose, raise Version and run with -update", path)
	}
}

// The file's hex also parses back to the values it documents.
func TestVectorsFileParses(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("testdata", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(got), "\nvector ")[1:]
	if len(blocks) != len(vectors) {
		t.Fatalf("%d vectors in the file, want %d", len(blocks), len(vectors))
	}
	for i, block := range blocks {
		var b []byte
		for _, line := range strings.Split(block, "\n")[1:] {
			var n int
			switch {
			case line == "" || strings.HasPrefix(line, "#"):
			case strings.HasPrefix(line, "zeros "):
				fmt.Sscanf(line, "zeros %d", &n)
				b = append(b, make([]byte, n)...)
			default:
				for _, f := range strings.Fields(line) {
					var c byte
					fmt.Sscanf(f, "%02x", &c)
					b = append(b, c)
				}
			}
		}
		h, m, err := parseDatagram(b)
		want := vectors[i].msg
		if hello, ok := m.(Hello); ok && hello.Token != nil {
			if !Proven(b, sampleKey) {
				t.Errorf("vector %s: its proof does not check", vectors[i].name)
			}
			hello.Proof = [ProofSize]byte{}
			m = hello
		}
		if err != nil || h.Token != vectors[i].token || !reflect.DeepEqual(m, want) {
			t.Errorf("vector %s parses as %+v %+v, %v", vectors[i].name, h, m, err)
		}
	}
}

// tokenNote describes a Hello's connect token for the vectors file.
func tokenNote(tok *[TokenSize]byte) string {
	if tok == nil {
		return ""
	}
	return fmt.Sprintf(", with a %d-byte connect token", len(tok))
}
