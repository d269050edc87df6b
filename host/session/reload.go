package session

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"vkm/host/game"
	"vkm/host/session/netmsg"
	"vkm/transport"
)

// PollEvery is how often a dev server asks its Changes for saves: ten
// times a second keeps a save's reload well inside a second.
const PollEvery = 100 * time.Millisecond

// devServer is a dev server's hot reload: it watches the project folder,
// and when scripts or prefabs change it schedules a reload far enough
// ahead for every dev client to have the bundle, then applies it at that
// tick, as every dev client does at the tick of its own the server will
// run then. The bundle travels as a netmsg.Bundle; a client that did not
// join with --dev is sent a netmsg.NoReload instead.
type devServer struct {
	watch    Changes
	nextPoll transport.Time
	pending  *netmsg.Bundle
	lastHash uint64 // the bundle last scheduled, so a save that changes nothing is not sent
}

// devPoll looks at the files when due and schedules a reload once a burst
// of saves has settled.
func (s *Server) devPoll(now transport.Time) {
	d := s.dev
	if d == nil || now < d.nextPoll {
		return
	}
	d.nextPoll = now + transport.Time(PollEvery)
	if !d.watch.Poll(time.Duration(now)) {
		return
	}
	files, err := d.watch.Changed()
	if err != nil {
		s.log.Error("reload: cannot read the project", "err", err)
		return
	}
	h := netmsg.BundleHash(files)
	if h == d.lastHash {
		return
	}
	d.lastHash = h
	if err := checkBundle(s.game, files); err != nil {
		s.log.Error("reload refused: the old code keeps running", "err", err)
		s.tellDev("reload refused, the old code keeps running: " + err.Error())
		return
	}
	s.scheduleReload(files)
}

// checkBundle finds what can be found before a reload is sent: scripts
// that do not compile and prefabs that do not parse. An error while a
// script runs shows at the reload itself, on every end alike. So are the
// limits a client reads a bundle with: a bundle past them would end every
// dev client, or not fit the message channel at all.
func checkBundle(g *game.Game, files map[string][]byte) error {
	b := &netmsg.Bundle{Files: files}
	if err := b.Check(); err != nil {
		return err
	}
	if size := b.Size(); size > transport.DefaultReliableMaxMessage {
		return fmt.Errorf("session: a script bundle of %d bytes, at most %d", size, transport.DefaultReliableMaxMessage)
	}
	return g.CheckFiles(files)
}

// tellDev sends every dev client a netmsg.DevNotice: what the developer
// should see without reading the server's log. A client that did not
// join with --dev runs none of the code a reload would bring, and is told
// nothing.
func (s *Server) tellDev(sentence string) {
	msg := netmsg.DevNotice{Sentence: sentence}.Append(nil)
	for _, st := range s.seats {
		if !st.dev || s.net.Conn(st.player) == nil {
			continue
		}
		if err := st.rel.Send(msg); err != nil {
			s.log.Warn("player dropped: the message channel is full", "player", st.player, "err", err)
			s.net.Kick(st.player, s.now)
		}
	}
}

// scheduleReload sends the bundle to every dev client, naming the tick it
// takes effect at, and tells every other client why it cannot follow.
func (s *Server) scheduleReload(files map[string][]byte) {
	g := s.game
	b := &netmsg.Bundle{Hash: netmsg.BundleHash(files), Files: files}
	size := b.Size()
	var maxRTT time.Duration
	for _, st := range s.seats {
		if c := s.net.Conn(st.player); st.dev && c != nil {
			maxRTT = max(maxRTT, c.RTT())
		}
	}
	b.ServerTick = g.Tick() + reloadLead(g.Project().TickRate, maxRTT, size)
	for _, st := range s.seats {
		var msg []byte
		if st.dev {
			// This player's commands run one a tick: the server tick b
			// names runs the client tick this many ticks past the one it
			// judged last.
			b.ClientTick = st.queue.Judged() + (b.ServerTick - g.Tick())
			msg = b.Append(nil)
		} else {
			msg = netmsg.NoReload{Sentence: "The server reloaded its scripts, and this client did not join with --dev: it runs no code a server sends. Rejoin with --dev to follow a dev server's reloads."}.Append(nil)
		}
		if err := st.rel.Send(msg); err != nil {
			// Past the channel's window the player has not been taking
			// what was sent: the connection ends rather than grow.
			s.log.Warn("player dropped: the message channel is full", "player", st.player, "err", err)
			s.net.Kick(st.player, s.now)
		}
	}
	s.dev.pending = b
	s.log.Info("reload scheduled", "files", slices.Sorted(maps.Keys(files)), "hash", fmt.Sprintf("%016x", b.Hash),
		"at_tick", b.ServerTick, "lead_ticks", b.ServerTick-g.Tick(), "bytes", size)
}

// applyScheduledReload applies a scheduled reload when its tick comes,
// and returns its files (nil: none was due).
func (s *Server) applyScheduledReload() map[string][]byte {
	d := s.dev
	if d == nil || d.pending == nil || s.game.Tick() < d.pending.ServerTick {
		return nil
	}
	b := d.pending
	d.pending = nil
	s.reload(b.Files)
	return b.Files
}

// reload applies files at the top of the tick being run. A changed schema
// starts every player's snapshots afresh, describing the world whole as
// to a joiner, rather than dropping anyone.
func (s *Server) reload(files map[string][]byte) {
	res, err := s.game.Reload(files)
	if err != nil {
		s.log.Error("reload failed: the old code keeps running", "err", err)
		return
	}
	if res.SchemaChanged {
		s.round = nil
		for _, st := range s.seats {
			st.peer = nil
		}
	}
	s.log.Info("reloaded", "files", slices.Sorted(maps.Keys(files)), "hash", fmt.Sprintf("%016x", netmsg.BundleHash(files)),
		"tick", s.game.Tick(), "schema_changed", res.SchemaChanged, "behaviors", res.Instances, "new_props", res.Props)
}

// reloadLead is how many ticks ahead of the present a reload is scheduled
// so that its bundle reaches every dev client before that client runs the
// tick: the client runs ahead of the server by about a round trip plus
// its queue, and the bundle needs another one-way trip plus the time to
// trickle through the datagrams' spare room.
func reloadLead(tickRate int, maxRTT time.Duration, bundleBytes int) uint32 {
	// bytesPerSecond is what the channel can count on at 64 packets a
	// second with half of each datagram taken by snapshots.
	const bytesPerSecond = 64 * transport.MaxDataPayload / 2
	lead := 2*maxRTT + 100*time.Millisecond + time.Duration(bundleBytes)*time.Second/bytesPerSecond
	return uint32(lead.Seconds()*float64(tickRate)+0.999) + 10 // + the queue's deepest
}

// readMessages takes what the server sent on the reliable channel.
func (c *Client) readMessages() {
	for {
		msg, ok := c.rel.Receive()
		if !ok {
			return
		}
		if len(msg) == 0 {
			continue
		}
		switch k := netmsg.KindOf(msg); k {
		case netmsg.KindNoReload:
			n, _ := netmsg.ParseNoReload(msg) // refuses only another kind
			c.end(n.Sentence)
			return
		case netmsg.KindBundle:
			if !c.dev {
				c.end("The server sent code to run, and this client did not join with --dev: it runs no code a server sends.")
				return
			}
			b, err := netmsg.ParseBundle(msg)
			if err != nil {
				c.end("The server sent a script bundle this client cannot read: " + err.Error())
				return
			}
			c.reloadAt = b
			if t := c.game.Tick(); t >= b.ClientTick {
				c.log.Warn("reload arrived late: applying it now", "tick", t, "due", b.ClientTick)
			}
		case netmsg.KindKicked:
			c.takeKicked(msg)
			return
		case netmsg.KindGuest:
			c.takeGuest(msg)
		case netmsg.KindDevNotice:
			c.takeDevNotice(msg)
		case netmsg.KindInspect:
			c.takeInspectReport(msg)
		case netmsg.KindChatLine:
			c.takeChatLine(msg)
			if c.ended {
				return
			}
		case netmsg.KindMessage:
			c.takeMessage(msg)
			if c.ended {
				return
			}
		case netmsg.KindVoice:
			c.takeVoice(msg)
		case netmsg.KindPlayers, netmsg.KindRoundTrips:
			c.takeRoster(msg)
			if c.ended {
				return
			}
		default:
			c.log.Debug("unknown message from the server", "kind", uint8(k))
		}
	}
}

// beforeTick runs at the top of every tick a client plays (not in
// replays): a reload takes effect before the tick it names.
func (c *Client) beforeTick() {
	g := c.game
	if c.oldCodeBefore != 0 {
		// A replayed tick from before the last reload runs the code, and
		// the prefab props, that ran it then; every other tick runs the
		// new ones.
		g.UseOldCode(g.IsReplaying() && g.Tick() < c.oldCodeBefore)
	}
	b := c.reloadAt
	if b == nil || g.IsReplaying() || g.Tick() < b.ClientTick {
		return
	}
	c.reloadAt = nil
	res, err := g.Reload(b.Files)
	if err != nil {
		c.log.Error("reload failed: the old code keeps running", "err", err)
		return
	}
	c.oldCodeBefore = g.Tick()
	if res.SchemaChanged {
		// Snapshots written before the server's reload tick are under
		// the old schema: they are dropped until the new ones arrive.
		// The old code read components the new schema has reshaped, so
		// a replay from before the reload runs the new code too.
		c.schemaFrom = b.ServerTick
		// The components were reshaped: what was predicted and said of
		// them before is in the old shapes. The word is taken again from
		// the store at the next frame, and ticks before this one are
		// judged by their pose alone.
		c.rec.wordOK = false
		for i := range c.rec.ticks {
			c.rec.ticks[i].ok = false
		}
		g.ForgetOldCode()
		c.oldCodeBefore = 0
	}
	c.reloads++
	c.reloadTick = g.Tick()
	c.log.Info("reloaded", "files", slices.Sorted(maps.Keys(b.Files)), "hash", fmt.Sprintf("%016x", b.Hash),
		"tick", g.Tick(), "server_tick", b.ServerTick, "schema_changed", res.SchemaChanged, "new_props", res.Props)
}

// end ends the session from this side with a sentence saying why.
func (c *Client) end(why string) {
	if c.ended {
		return
	}
	c.net.Leave(c.now)
	c.stop(why)
	c.log.Warn("session ended", "why", why)
	if c.onState != nil {
		c.onState("disconnected", why)
	}
}

// stop marks the session over, and why (kept if empty: a later ending
// with nothing to say does not erase the reason).
func (c *Client) stop(why string) {
	c.playing, c.ended = false, true
	if why != "" {
		c.why = why
	}
}

// MaxDevNotices bounds the dev notices a client keeps (DevNotices): the
// newest are what a developer reads.
const MaxDevNotices = 8

// takeDevNotice keeps a dev notice from the server and logs it; one this
// client cannot read is logged and skipped, as a notice changes nothing
// in the game.
func (c *Client) takeDevNotice(msg []byte) {
	n, err := netmsg.ParseDevNotice(msg)
	if err != nil {
		c.log.Warn("unreadable notice from the server", "err", err)
		return
	}
	c.log.Warn("the server says", "notice", n.Sentence)
	if len(c.notices) == MaxDevNotices {
		copy(c.notices, c.notices[1:])
		c.notices = c.notices[:MaxDevNotices-1]
	}
	c.notices = append(c.notices, n.Sentence)
	c.noticeCount++
}

// DevNotices returns the newest dev notices the server sent this client
// (at most MaxDevNotices, the newest last) and how many it has sent in
// all: reloads it refused, and why. Only a client that joined with --dev
// is sent any.
func (c *Client) DevNotices() ([]string, int) { return c.notices, c.noticeCount }
