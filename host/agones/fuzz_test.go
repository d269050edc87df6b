package agones

import (
	"context"
	"net/netip"
	"testing"
)

// FuzzWatchLine feeds the watch stream's line reader and the public
// address's reading arbitrary bytes: no panic, and a line read is one
// whose address, when it gives one, is an address and a port.
func FuzzWatchLine(f *testing.F) {
	for _, s := range []string{
		`{"result":{"object_meta":{"name":"local","namespace":"default","labels":{"islocal":"true"}},"status":{"state":"Ready","address":"127.0.0.1","ports":[{"name":"default","port":7777}]}}}`,
		`{"result":{"status":{"state":"Allocated","address":"203.0.113.5","ports":[{"name":"game","port":7031},{"name":"web","port":7032}]}}}`,
		`{"error":{"grpc_code":14,"http_code":503,"message":"unavailable"}}`,
		`{"result":{"status":{"address":"","ports":[{"name":"game","port":70000}]}}}`,
		``, `{`, `null`, `{"result":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, ok, err := parseWatchLine(b)
		if err != nil || !ok {
			return
		}
		if _, err := netip.ParseAddr(g.Status.Address); g.Status.Address != "" && err != nil {
			return // a host name would be looked up: not in a fuzz run
		}
		a, err := g.Public(context.Background(), "game")
		if err == nil && (!a.IsValid() || a.Port() == 0) {
			t.Fatalf("Public of %q = %v with no error", b, a)
		}
	})
}
