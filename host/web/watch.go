package web

import (
	"math"
	"time"

	"vkm/transport/handshake"
)

// welcomes reports whether b, a datagram on its way to a peer, says that
// the vkm handshake has welcomed the peer: its header is of kind Welcome,
// or Data, which a server sends only to a seated player. The gateway reads
// nothing past the header, and need not: the serving loop wrote b, and a
// peer cannot make it send either kind without completing the handshake.
func welcomes(b []byte) bool {
	h, _, err := handshake.ParseHeader(b)
	return err == nil && (h.Kind == handshake.KindWelcome || h.Kind == handshake.KindData)
}

// startWatch arms p's deadlines as it is admitted: WelcomeTimeout from now
// until the handshake welcomes it, and IdleTimeout from the last datagram
// heard from it (its admission until the first).
func (g *Gateway) startWatch(p *peer) {
	now := g.since()
	p.admittedAt = now
	p.heard.Store(int64(now))
	p.timerMu.Lock()
	defer p.timerMu.Unlock()
	if p.ctx.Err() == nil {
		p.timer = g.clock.AfterFunc(min(g.cfg.WelcomeTimeout, g.cfg.IdleTimeout), func() { g.watch(p) })
	}
}

// watch ends p if one of its deadlines has passed, and otherwise waits
// for the nearer of the two.
func (g *Gateway) watch(p *peer) {
	if p.ctx.Err() != nil {
		return
	}
	now := g.since()
	next := time.Duration(math.MaxInt64)
	if !p.welcomed.Load() {
		left := p.admittedAt + g.cfg.WelcomeTimeout - now
		if left <= 0 {
			g.log.Debug("web peer not welcomed in time", "addr", p.addr.String(), "kind", kindName(p.kind))
			p.end(reasonHandshakeDeadline)
			return
		}
		next = left
	}
	left := time.Duration(p.heard.Load()) + g.cfg.IdleTimeout - now
	if left <= 0 {
		g.log.Debug("web peer idle", "addr", p.addr.String(), "kind", kindName(p.kind))
		p.end(reasonIdle)
		return
	}
	next = min(next, left)
	p.timerMu.Lock()
	defer p.timerMu.Unlock()
	if p.timer != nil {
		p.timer.Reset(next)
	}
}

// stopWatch disarms p's deadlines once it is forgotten.
func (p *peer) stopWatch() {
	p.timerMu.Lock()
	defer p.timerMu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// since is the time on g's clock since g was made: what a peer's times are
// kept as, so they fit an atomic integer.
func (g *Gateway) since() time.Duration { return g.clock.Now().Sub(g.epoch) }
