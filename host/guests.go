package host

import (
	"fmt"
	"log/slog"

	"vkm/host/game"
	"vkm/transport"
)

// Guests on a connected client (PlayConfig.Guests): players who share its
// screen and its connection, each a player of its own on the server.

// checkGuests refuses a guest count a connection cannot seat. Offline
// (no server) there is no connection to seat guests on, and Guests is
// not used.
func (c *PlayConfig) checkGuests() error {
	if c.Guests < 0 || c.Guests > transport.MaxGuests {
		return fmt.Errorf("host: %d guests: a connection seats 0 to %d besides its own player", c.Guests, transport.MaxGuests)
	}
	return nil
}

// guestName is the name guest i (1..) of a player named name asks for:
// "ada 2" for ada's first guest; empty (the server names it) when the
// player has no name.
func guestName(name string, i int) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("%s %d", name, i+1)
}

// seatGuests asks, once the client is playing, for the guests cfg.Guests
// says, each driven by GuestInputs, or by the page (the arrow-side keys,
// then the gamepads), or by nothing.
func (cl *client) seatGuests(log *slog.Logger) {
	if cl.guestsAsked || cl.cfg.Guests == 0 || !cl.c.Playing() {
		return
	}
	cl.guestsAsked = true
	for i := 1; i <= cl.cfg.Guests; i++ {
		var in game.Input
		if i <= len(cl.cfg.GuestInputs) {
			in = cl.cfg.GuestInputs[i-1]
		}
		local, err := cl.c.AddGuest(guestName(cl.cfg.Name, i), in)
		if err != nil {
			log.Warn("guest not asked for", "guest", i, "err", err)
			continue
		}
		if in == nil && cl.view != nil {
			cl.c.SetGuestInput(local, cl.view.GuestInput(local))
		}
	}
}

// logGuests logs each guest seated or whose seat ended since the last
// look.
func (cl *client) logGuests(log *slog.Logger) {
	if cl.cfg.Guests == 0 {
		return
	}
	for _, g := range cl.c.Guests() {
		switch {
		case g.Ended:
			log.Warn("guest's seat ended", "guest", g.Local, "player", g.Player, "name", g.Name, "why", g.Why, "kicked", g.Kicked)
		case g.Seated && cl.guestsSeen&(1<<g.Local) == 0:
			cl.guestsSeen |= 1 << g.Local
			log.Info("guest seated", "guest", g.Local, "player", g.Player, "name", g.Name, "entity", g.Entity.String())
		}
	}
}
