package web

import (
	"net/netip"
	"strconv"
	"time"
)

// door is the gateway's admission, in front of the vkm handshake: the
// offer rate of each source, how many of a source's attempts are still
// connecting and how many hold a slot, and the slots held in all. A source
// is an IPv4 address or an IPv6 /64 (sourceKey).
//
// An attempt goes through it as
//
//	enter ──▶ admit ──▶ welcome ──▶ leave
//	  │          │                    ▲
//	  └──────────┴────────────────────┘ (leave at any point)
//
// enter when its request arrives (before an offer's body is read), admit
// when it takes a slot and an address, welcome when the vkm handshake has
// welcomed it, and leave once it has ended. An attempt is connecting from
// enter to welcome.
//
// door is sans-IO: the time is an argument. It is not safe for concurrent
// use (the gateway holds its mutex); the zero value is not ready, newDoor
// makes one.
type door struct {
	maxPeers, maxPeersPerSource, maxConnectingPerSource int
	rate                                                float64 // offers a second per source
	slots                                               int
	sources                                             map[netip.Addr]sourceCount
	offers                                              map[netip.Addr]bucket
	// swept is when the offer table was last swept of refilled buckets.
	swept time.Time
}

// sourceCount is one source's attempts: those connecting (entered, not
// yet welcomed) and those admitted (holding a slot, welcomed or not).
type sourceCount struct{ connecting, admitted int }

func newDoor(cfg Config) *door {
	return &door{
		maxPeers: cfg.MaxPeers, maxPeersPerSource: cfg.MaxPeersPerAddress, maxConnectingPerSource: cfg.MaxConnectingPerAddress,
		rate: float64(cfg.OffersPerIPPerSecond), sources: map[netip.Addr]sourceCount{}, offers: map[netip.Addr]bucket{},
	}
}

// enter lets one more attempt of src in at now, or says why not: over the
// offer rate, or src has as many attempts connecting, or peers admitted,
// as one source may.
func (d *door) enter(src netip.Addr, now time.Time) reason {
	c := d.sources[src]
	if c.connecting >= d.maxConnectingPerSource || c.admitted >= d.maxPeersPerSource {
		// Checked before the rate: a source at its cap does not spend
		// its allowance on attempts that cannot come in.
		return reasonAddressCap
	}
	if !d.allowOffer(src, now) {
		return reasonRate
	}
	c.connecting++
	d.sources[src] = c
	return reasonNone
}

// peersFull reports whether src has as many peers admitted as one
// source may: its refusal then lasts until one of them leaves, not only
// until an attempt connecting is welcomed.
func (d *door) peersFull(src netip.Addr) bool {
	return d.sources[src].admitted >= d.maxPeersPerSource
}

// admit gives an entered attempt of src a slot, or says why not: the
// gateway has its peers, or src has as many admitted as one source may
// (others of its attempts were admitted since it entered).
func (d *door) admit(src netip.Addr) reason {
	c := d.sources[src]
	if d.slots >= d.maxPeers {
		return reasonFull
	}
	if c.admitted >= d.maxPeersPerSource {
		return reasonAddressCap
	}
	c.admitted++
	d.sources[src] = c
	d.slots++
	return reasonNone
}

// welcome moves an admitted attempt of src from connecting to welcomed.
func (d *door) welcome(src netip.Addr) {
	c := d.sources[src]
	c.connecting--
	d.sources[src] = c
}

// leave forgets an attempt of src that ended: admitted or not, welcomed
// or not. A source with nothing left is forgotten, so the table holds only
// the sources of attempts under way.
func (d *door) leave(src netip.Addr, admitted, welcomed bool) {
	c := d.sources[src]
	if !welcomed {
		c.connecting--
	}
	if admitted {
		c.admitted--
		d.slots--
	}
	if c == (sourceCount{}) {
		delete(d.sources, src)
		return
	}
	d.sources[src] = c
}

// bucket is one source's offer allowance: a token bucket.
type bucket struct {
	tokens float64
	at     time.Time
}

// maxTracked bounds the sources the offer limit remembers; past it, the
// ones whose allowance has refilled are forgotten.
const maxTracked = 4096

// sweepEvery is how often a full offer table may be swept: a sweep reads
// every bucket, and one that could not refill since the last cannot have
// now, so a flood of new sources costs one sweep a second, not one per
// request.
const sweepEvery = time.Second

// allowOffer takes one offer from src's allowance at now.
func (d *door) allowOffer(src netip.Addr, now time.Time) bool {
	burst := d.rate * OfferBurst
	if len(d.offers) >= maxTracked && now.Sub(d.swept) >= sweepEvery {
		d.swept = now
		for a, b := range d.offers {
			if b.tokens+now.Sub(b.at).Seconds()*d.rate >= burst {
				delete(d.offers, a)
			}
		}
	}
	b, ok := d.offers[src]
	if !ok {
		if len(d.offers) >= maxTracked {
			return false // every tracked source is busy: an attack
		}
		b = bucket{tokens: burst, at: now}
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*d.rate)
	b.at = now
	if b.tokens < 1 {
		d.offers[src] = b
		return false
	}
	b.tokens--
	d.offers[src] = b
	return true
}

// sourceKey is what the door counts an address under: an IPv4 address
// (or an IPv4-mapped IPv6 one) as itself, an IPv6 address as its /64. A
// household or a phone is given a whole /64 and may take any address in
// it, so one IPv6 host's peers are only held together by their prefix.
func sourceKey(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is4() || !a.IsValid() {
		return a
	}
	p, err := a.WithZone("").Prefix(64)
	if err != nil {
		return a
	}
	return p.Addr()
}

// reason says why a web connection attempt ended: turned away at the door,
// or closed once it was in. Its String is the label /metrics counts it
// under (vkm_web_closed_total{reason}).
type reason uint8

const (
	reasonNone reason = iota
	// reasonRate: over the offers and upgrades a second one source may
	// make (429).
	reasonRate
	// reasonAddressCap: its source already has as many attempts
	// connecting, or peers admitted, as one source may (429).
	reasonAddressCap
	// reasonFull: the gateway has its MaxPeers (503).
	reasonFull
	// reasonBadRequest: not an offer, another site's page, over 32 KiB,
	// not a WebSocket upgrade (400, 403, 413, 426).
	reasonBadRequest
	// reasonOfferTimeout: the offer's body had not arrived within
	// OfferTimeout (408).
	reasonOfferTimeout
	// reasonHandshakeDeadline: the vkm handshake had not welcomed the
	// peer within WelcomeTimeout of its admission.
	reasonHandshakeDeadline
	// reasonIdle: nothing heard from the peer for IdleTimeout.
	reasonIdle
	// reasonClientClosed: the peer ended it: its channel or socket
	// closed, or its request went away before the answer.
	reasonClientClosed
	// reasonProtocol: the peer broke the gateway's rules: another
	// channel, a text message, a message over the largest datagram.
	reasonProtocol
	// reasonFailed: the connection failed (ICE, DTLS, a write that timed
	// out), or the gateway could not make or answer it.
	reasonFailed
	// reasonShutdown: the gateway closed, or was closing.
	reasonShutdown
	numReasons
)

var reasonNames = [numReasons]string{
	reasonNone: "none", reasonRate: "rate", reasonAddressCap: "address_cap", reasonFull: "full",
	reasonBadRequest: "bad_request", reasonOfferTimeout: "offer_timeout", reasonHandshakeDeadline: "handshake_deadline",
	reasonIdle: "idle", reasonClientClosed: "client_closed", reasonProtocol: "protocol", reasonFailed: "failed",
	reasonShutdown: "shutdown",
}

// String returns the reason's label, or "reason(N)" for a number out of
// range. Not made by stringer, which would spell that reason(N) too but
// not give the labels.
func (r reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "reason(" + strconv.Itoa(int(r)) + ")"
}
