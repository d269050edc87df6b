package session

import (
	"bytes"
	"testing"

	"vkm/wire"
)

// FuzzRelay feeds the client's relay decoder what a broken or hostile
// server could send: it must not panic, and what it accepts is a section
// of at most MaxRelayed characters in rising slot order, with runs a
// controller takes, exactly as the encoder would write it.
func FuzzRelay(f *testing.F) {
	for _, is := range relaySeeds() {
		f.Add(appendRelay(nil, is))
	}
	f.Add([]byte{1, 0x80, 0x00, 1, 0x80, 0x80})
	f.Add([]byte{4, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		is, n, err := decodeRelay(b, nil)
		if err != nil {
			return
		}
		if len(is) == 0 || len(is) > MaxRelayed || n > len(b) {
			t.Fatalf("accepted %d entries in %d bytes of %d", len(is), n, len(b))
		}
		for i, e := range is {
			if e.id.Gen == 0 || i > 0 && is[i-1].id.Slot >= e.id.Slot ||
				wire.Axis.Quantize(e.moveX) != e.moveX || wire.Axis.Quantize(e.moveY) != e.moveY {
				t.Fatalf("accepted %+v", e)
			}
		}
		if again := appendRelay(nil, is); !bytes.Equal(again, b[:n]) {
			t.Fatalf("decoded %+v from % x, which encodes as % x", is, b[:n], again)
		}
	})
}
