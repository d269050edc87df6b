//go:build !(linux && (amd64 || arm64))

package udp_test

import (
	"errors"
	"testing"

	"vkm/transport/udp"
)

// TestListenBatchUnsupported: without batched calls ListenBatch says so in
// a way the caller can tell from a failure to listen, and falls back.
func TestListenBatchUnsupported(t *testing.T) {
	s, err := udp.ListenBatch("127.0.0.1:0")
	if !errors.Is(err, errors.ErrUnsupported) || s != nil {
		t.Fatalf("ListenBatch: %v, %v; want errors.ErrUnsupported", s, err)
	}
}
