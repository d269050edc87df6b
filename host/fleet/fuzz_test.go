package fleet

import (
	"testing"
	"time"

	"net/netip"

	"vkm/transport/token"
)

// FuzzParseSeat feeds the lobby's answer decoder arbitrary bytes: it must
// not panic, and what it accepts names an address its token is good for.
func FuzzParseSeat(f *testing.F) {
	var key token.Key
	addr := netip.MustParseAddrPort("127.0.0.1:4000")
	now := time.Unix(1_800_000_000, 0)
	tok, err := token.Mint(&key, token.Claims{Protocol: 1, Client: 2, Expires: now.Add(time.Hour), Servers: []netip.AddrPort{addr}, Name: "ann"}, now, nil)
	if err != nil {
		f.Fatal(err)
	}
	text, _ := tok.MarshalText()
	f.Add([]byte(`{"addr":"127.0.0.1:4000","token":"` + string(text) + `"}`))
	f.Add([]byte(`{"addr":"127.0.0.1:4001","token":"` + string(text) + `"}`))
	f.Add([]byte(`{"addr":"x","token":""}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, tok, err := ParseSeat(b)
		if err != nil {
			return
		}
		for _, s := range tok.Servers {
			if s == a {
				return
			}
		}
		t.Fatalf("accepted %v, which its token does not name", a)
	})
}
