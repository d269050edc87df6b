package session

import (
	"vkm/host/game"
	"vkm/transport/handshake"
)

// Hello describes what g holds, for the join checks: its schema, its input
// actions in slot order, the world it loaded and its tick rate. Two ends
// that differ in any of these would read each other's packets as plausible
// nonsense, so a join compares them first. Name, Dev and Nonce are the
// caller's to set.
func Hello(g *game.Game) handshake.Hello {
	p := g.Project()
	names := make([]string, 0, len(p.Axes)+len(p.Buttons))
	for _, a := range p.Axes {
		names = append(names, "axis:"+a.Name)
	}
	for _, b := range p.Buttons {
		names = append(names, "button:"+b.Name)
	}
	return handshake.Hello{
		SchemaFP:    g.Schema().Fingerprint(),
		ActionCount: uint8(len(names)),
		ActionFP:    handshake.ActionFingerprint(names),
		WorldFP:     handshake.WorldFingerprint(g.SceneFile()),
		TickRate:    uint16(p.TickRate),
	}
}
