package host

import (
	"fmt"

	"vkm/host/project"
	"vkm/host/session"
	"vkm/transport/handshake"
)

// Identity is what a join compares, as a fleet directory lists it: a
// server of another build refuses the player, so a lobby sends players
// only where their client matches.
type Identity struct {
	// Fingerprint is the project's schema, actions, world and tick rate
	// fingerprints, in hex.
	Fingerprint string
	// Protocol is the wire's version.
	Protocol int
}

// ProjectIdentity loads p as a server would and returns its Identity.
func ProjectIdentity(p *project.Project) (Identity, error) {
	s, err := session.NewServer(session.ServerConfig{Project: p})
	if err != nil {
		return Identity{}, err
	}
	defer s.Close()
	h := session.Hello(s.Game())
	return Identity{
		Fingerprint: fmt.Sprintf("%016x-%016x-%016x-%d", h.SchemaFP, h.ActionFP, h.WorldFP, h.TickRate),
		Protocol:    int(handshake.Version),
	}, nil
}
