package transport

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"vkm/transport/handshake"
	"vkm/transport/token"
)

// What a full server spends on one proven Hello it refuses: with a key, the
// connect token opened, its proof checked and the Refuse sealed; without,
// the cookie checked and the Refuse written. Hellos are limited per source
// address (HelloRate), so this is a cost per join attempt, not per tick.
func BenchmarkRefuseProvenHello(b *testing.B) {
	for _, sealed := range []bool{false, true} {
		b.Run(map[bool]string{false: "keyless", true: "sealed"}[sealed], func(b *testing.B) {
			s, _, _ := seatedServerAuth(b, sealed)
			s.cfg.MaxPlayers = 1
			s.cfg.HelloRate = -1
			s.hellos = newHelloLimit(-1)
			from := netip.MustParseAddrPort("10.9.8.6:4000")
			hello := fuzzHello
			hello.Nonce = 42
			cookie := s.gate.Token(from, hello.Nonce, time.Duration(fuzzNow))
			var d []byte
			if sealed {
				epoch := time.Unix(2_000_000_000, 0)
				tok, err := token.Mint(&fuzzKey, token.Claims{Protocol: 1, Client: 4, Expires: epoch.Add(time.Hour), Servers: s.cfg.Auth.Addrs},
					epoch, bytes.NewReader(make([]byte, 200)))
				if err != nil {
					b.Fatal(err)
				}
				hello.Token = &tok.Sealed
				d = handshake.AppendDatagram(nil, cookie, hello)
				handshake.Prove(d, &tok.ClientToServer)
			} else {
				d = handshake.AppendDatagram(nil, cookie, hello)
			}
			want := handshake.KindRefuse
			if sealed {
				want = handshake.KindSealedRefuse
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Receive(from, d, fuzzNow)
				_, out, ok := s.NextDatagram()
				if !ok || handshake.Kind(out[3]) != want {
					b.Fatalf("answered %v", ok)
				}
			}
		})
	}
}
