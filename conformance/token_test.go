package conformance

import (
	"bytes"
	"encoding/base64"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// TestTokenVector opens transport/token/testdata's minted token under its
// key and checks every field against the inputs the vector lists.
func TestTokenVector(t *testing.T) {
	v := vectorFile(t, tokenFile)["minted"]
	if v == nil {
		t.Fatal("no vector minted")
	}
	_, keyHex := field(t, v, "key")
	binary, stated := field(t, v, "binary")
	if n := statedLen(t, stated); n != HeldTokenLen || len(binary.data) != n {
		t.Fatalf("binary form of %d bytes, stated %d; the doc's held token is %d", len(binary.data), n, HeldTokenLen)
	}
	sealed, c2s, s2c, err := SplitHeldToken(binary.data)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := OpenToken(mustHex(t, keyHex), sealed)
	if err != nil {
		t.Fatal(err)
	}
	checkTokenInputs(t, v, tok)
	if !tok.KeysMatch(c2s, s2c) {
		t.Error("the held keys are not the ones the token seals")
	}
	// "The nonce and the two session keys are the 88 bytes 00 01 02 ... 57".
	if want := counting(0, 88); !bytes.Equal(append(append(bytes.Clone(tok.Nonce), c2s...), s2c...), want) {
		t.Errorf("nonce %x and keys are not 00 01 ... 57", tok.Nonce)
	}
	checkTokenText(t, v, binary.data)
	checkTokenTampering(t, mustHex(t, keyHex), sealed)
}

// checkTokenInputs compares the opened token with the vector's lines
// protocol, client, created, expires, server (each) and name.
func checkTokenInputs(t *testing.T, v []*entry, tok Token) {
	t.Helper()
	_, protocol := field(t, v, "protocol")
	_, client := field(t, v, "client")
	_, created := field(t, v, "created")
	_, expires := field(t, v, "expires")
	_, name := field(t, v, "name")
	if tok.ProtocolID != num(t, protocol) || tok.ClientID != num(t, client) {
		t.Errorf("protocol %#x client %#x; the vector lists %s and %s", tok.ProtocolID, tok.ClientID, protocol, client)
	}
	if strconv.FormatInt(tok.Created, 10) != strings.Fields(created)[0] || strconv.FormatInt(tok.Expires, 10) != strings.Fields(expires)[0] {
		t.Errorf("created %d expires %d; the vector lists %s and %s", tok.Created, tok.Expires, created, expires)
	}
	if strconv.Quote(tok.Name) != name {
		t.Errorf("name %q; the vector lists %s", tok.Name, name)
	}
	var servers []netip.AddrPort
	for _, e := range v {
		if s, ok := strings.CutPrefix(e.label, "server "); ok {
			servers = append(servers, netip.MustParseAddrPort(s))
		}
	}
	if len(servers) != len(tok.Servers) {
		t.Fatalf("servers %v; the vector lists %v", tok.Servers, servers)
	}
	for i := range servers {
		if servers[i] != tok.Servers[i] {
			t.Errorf("server %d is %v; the vector lists %v", i, tok.Servers[i], servers[i])
		}
	}
}

// checkTokenText: the text form is the standard base64, with padding, of
// the binary form, 516 characters.
func checkTokenText(t *testing.T, v []*entry, binary []byte) {
	t.Helper()
	var text string
	for i, e := range v {
		if e.label == "text" && i+1 < len(v) {
			text = v[i+1].label
		}
	}
	if len(text) != 516 {
		t.Errorf("text form of %d characters, not 516", len(text))
	}
	got, err := base64.StdEncoding.DecodeString(text)
	if err != nil || !bytes.Equal(got, binary) {
		t.Errorf("the text form is not the base64 of the binary form (%v)", err)
	}
}

// checkTokenTampering: changing a clear byte (associated data), the nonce,
// the private part or the tag makes the token fail to open.
func checkTokenTampering(t *testing.T, key, sealed []byte) {
	t.Helper()
	for _, at := range []int{10, tokenNonceAt, 60, tokenPrivateAt, SealedTokenLen - 1} {
		b := bytes.Clone(sealed)
		b[at] ^= 0x01
		if _, err := OpenToken(key, b); err == nil {
			t.Errorf("changing byte %d still opens", at)
		}
	}
	wrong := bytes.Clone(key)
	wrong[0] ^= 1
	if _, err := OpenToken(wrong, sealed); err == nil {
		t.Error("the token opens under another key")
	}
}

func TestServerSlotRules(t *testing.T) {
	slot := func(b ...byte) []byte { s := make([]byte, tokenSlotLen); copy(s, b); return s }
	ok := [][]byte{slot(4, 192, 0, 2, 1), slot(6, 0x20, 0x01, 0x0d, 0xb8)}
	for _, s := range ok {
		if _, err := parseServerSlot(s); err != nil {
			t.Errorf("slot %x: %v", s, err)
		}
	}
	mapped := slot(6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1)
	bad := [][]byte{slot(5, 1, 2, 3, 4), slot(4, 1, 2, 3, 4, 5), mapped}
	for _, s := range bad {
		if _, err := parseServerSlot(s); err == nil {
			t.Errorf("slot %x is accepted", s)
		}
	}
}
