package session

import (
	"errors"

	"vkm/host/session/netmsg"
	"vkm/internal/entity"
)

// watching is a spectator client's state: whom it asked to follow.
type watching struct {
	spectator bool
	follows   uint16
	first     uint16 // the player to follow once seated (ClientConfig.Follow)
}

// welcomed runs when the server seats the client (again): a spectator
// says whom it follows, over the new channel.
func (c *Client) welcomed() {
	if !c.watch.spectator {
		return
	}
	p := c.watch.first
	if c.watch.follows != 0 {
		p = c.watch.follows
	}
	if p != 0 {
		c.Follow(p) // cannot fail on a fresh channel: the message is small
	}
}

// ErrNotSpectator is Follow on a client that joined to play.
var ErrNotSpectator = errors.New("session: only a spectator follows a player")

// ErrSpectatorGuests is AddGuest on a client that joined to watch: a
// spectator plays no one, so it seats no one on its connection either.
var ErrSpectatorGuests = errors.New("session: a spectator seats no guests")

// Spectator reports whether the client joined to watch.
func (c *Client) Spectator() bool { return c.watch.spectator }

// Follow asks the server to look from player's entity (0: the whole
// level): the spectator's snapshots then tell what is near that player
// every round. It returns an error when the client plays, or the message
// channel is full.
func (c *Client) Follow(player uint16) error {
	if !c.watch.spectator {
		return ErrNotSpectator
	}
	if err := c.rel.Send(netmsg.Follow{Player: player}.Append(nil)); err != nil {
		return err
	}
	c.watch.follows = player
	return nil
}

// Follows returns the player the spectator follows, 0 for none.
func (c *Client) Follows() uint16 { return c.watch.follows }

// Followed returns the entity of the player the spectator follows, as the
// roster names it, and whether this end holds it: what a spectator's
// camera looks at.
func (c *Client) Followed() (entity.ID, bool) {
	if c.watch.follows == 0 {
		return entity.None, false
	}
	for _, p := range c.roster {
		if p.Number == c.watch.follows {
			return p.Entity, !p.Entity.IsNone() && c.game.Store().Alive(p.Entity)
		}
	}
	return entity.None, false
}
