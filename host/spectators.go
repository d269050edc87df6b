package host

import (
	"fmt"
	"strings"

	"vkm/transport"
)

// splitSpectators parts a list of connections into the players and the
// spectators, each in the list's order.
func splitSpectators(all []transport.PlayerInfo) (players, spectators []transport.PlayerInfo) {
	for _, p := range all {
		if p.Spectator {
			spectators = append(spectators, p)
		} else {
			players = append(players, p)
		}
	}
	return players, spectators
}

// writeSpectators lists the spectators after the players, apart from them.
func writeSpectators(b *strings.Builder, spectators []transport.PlayerInfo) {
	if len(spectators) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%d spectators", len(spectators))
	for _, p := range spectators {
		fmt.Fprintf(b, "\n%d %q %s rtt %dms", p.Player, p.Name, p.Addr, p.RTT.Milliseconds())
	}
}
