package session

import "vkm/host/session/netmsg"

// The voice: a server with [voice] tells each player whose voice each of
// their voice slots carries (netmsg.Voice, sent by the serving loop with
// Server.SendVoice); the client keeps the last word for its page, which
// plays the slots.

// takeVoice reads the server's word on this player's voice slots. One
// this client cannot read is left aside: the voice is not the game.
func (c *Client) takeVoice(msg []byte) {
	v, err := netmsg.ParseVoice(msg)
	if err != nil {
		c.log.Debug("unreadable voice message", "err", err)
		return
	}
	c.voice = v
	c.voiceCount++
}

// Voice returns what the server last said of this player's voice slots,
// and how many times it has said (0: never; the project has no voice, or
// this player joined without a browser's peer connection).
func (c *Client) Voice() (netmsg.Voice, uint64) { return c.voice, c.voiceCount }

// The voice message's parts, as the serving loop's voice planner names
// them (netmsg.Voice).
type (
	Voice     = netmsg.Voice
	VoiceSlot = netmsg.VoiceSlot
)

// VoiceSlots is how many voices a player hears at once; MaxVoiceGain the
// loudest a slot may be.
const (
	VoiceSlots   = netmsg.VoiceSlots
	MaxVoiceGain = netmsg.MaxVoiceGain
)
