package conformance

import (
	"bytes"
	"strconv"
	"testing"
)

// TestSealVectors opens each vector of transport/seal/testdata under its
// key, compares the payload, and seals the payload again to the same bytes
// (the layout, nonce and associated data leave no other choice).
func TestSealVectors(t *testing.T) {
	vs := vectorFile(t, sealFile)
	if len(vs) != 2 {
		t.Errorf("%d seal vectors, 2 checked", len(vs))
	}
	for name, v := range vs {
		key, _ := field(t, v, "key")
		_, c := field(t, v, "counter")
		header, _ := field(t, v, "header")
		payload, _ := field(t, v, "payload")
		sealed, stated := field(t, v, "sealed")
		counter, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			t.Fatalf("%s: counter %q", name, c)
		}
		if len(header.data) != HeaderLen {
			t.Errorf("%s: a %d-byte header, not 12", name, len(header.data))
		}
		if n := statedLen(t, stated); len(sealed.data) != n || n != len(header.data)+len(payload.data)+sealedOverhead {
			t.Errorf("%s: %d sealed bytes, stated %d; header, counter, payload and tag are %d", name, len(sealed.data), n, len(header.data)+len(payload.data)+sealedOverhead)
		}
		// The header is associated data, which sealing does not read, but
		// as a datagram of this protocol it must be version 11's, or a
		// receiver drops it unread.
		if h, err := ParseHeader(header.data); err != nil || h.Version != Version {
			t.Errorf("%s: header %x: version %d (%v); the protocol's is %d", name, header.data, h.Version, err, Version)
		}
		if !bytes.Equal(sealed.data[:HeaderLen], header.data) {
			t.Errorf("%s: the header is not in the clear at 0", name)
		}
		got, body, err := Open(key.data, sealed.data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got != counter || !bytes.Equal(body, payload.data) {
			t.Errorf("%s: opened counter %d and %x; want %d and %x", name, got, body, counter, payload.data)
		}
		again, _ := Seal(key.data, header.data, counter, payload.data)
		if !bytes.Equal(again, sealed.data) {
			t.Errorf("%s: sealing again gives\n%x\nthe vector has\n%x", name, again, sealed.data)
		}
		checkSealTampering(t, name, key.data, sealed.data)
	}
}

// checkSealTampering: a change to the header, the counter, the ciphertext
// or the tag makes the datagram fail to open.
func checkSealTampering(t *testing.T, name string, key, sealed []byte) {
	t.Helper()
	for _, at := range []int{0, 4, HeaderLen, HeaderLen + 7, len(sealed) - 1} {
		b := bytes.Clone(sealed)
		b[at] ^= 0x01
		if _, _, err := Open(key, b); err == nil {
			t.Errorf("%s: changing byte %d still opens", name, at)
		}
	}
}
