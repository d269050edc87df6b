package handshake

import "testing"

func TestHelloSpectatorFlag(t *testing.T) {
	for _, spectator := range []bool{false, true} {
		h := Hello{SchemaFP: 1, TickRate: 64, Name: "w", Nonce: 9, Spectator: spectator}
		b := h.Append(nil)
		if got := b[27]&flagSpectator != 0; got != spectator {
			t.Fatalf("spectator %v: flag bit 3 is %v", spectator, got)
		}
		back, err := ParseHello(b)
		if err != nil || back.Spectator != spectator {
			t.Fatalf("spectator %v read back as %v, %v", spectator, back.Spectator, err)
		}
	}
}
