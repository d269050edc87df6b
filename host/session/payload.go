package session

import (
	"errors"

	"vkm/transport"
)

// A session's data payload, both ways, is one flags byte, then — when
// flagReliable is set — a section of the reliable message channel
// (transport.Reliable), then — from the server, when flagRelay is set — a
// relay section (see relay.go), then the packet proper: a snapshot from
// the server, a command packet from a client. The snapshot or command
// packet and the relay are written first and keep priority: the channel
// gets the bytes they leave in the datagram.
const (
	flagReliable = 1 << 0
	flagRelay    = 1 << 1
	flagsKnown   = flagReliable | flagRelay
)

// payloadOverhead is what the framing costs a packet that carries no
// reliable section: its flags byte.
const payloadOverhead = 1

var errPayloadFlags = errors.New("session: payload flags not understood")

// framePayload returns dst with the framing around main: the flags, a
// section of rel's waiting messages in whatever room main leaves (none if
// rel is nil or has nothing to send), then main.
func framePayload(dst []byte, rel *transport.Reliable, main []byte, now transport.Time) []byte {
	return frameRelayed(dst, rel, nil, main, now)
}

// frameRelayed is framePayload with a relay section (none if relay is
// empty) between the channel's section and main.
func frameRelayed(dst []byte, rel *transport.Reliable, relay, main []byte, now transport.Time) []byte {
	dst = append(dst[:0], 0)
	if rel != nil {
		room := transport.MaxDataPayload - payloadOverhead - len(relay) - len(main)
		if n := len(dst); room > 0 {
			dst = rel.Append(dst, room, now)
			if len(dst) > n {
				dst[0] |= flagReliable
			}
		}
	}
	if len(relay) > 0 {
		dst[0] |= flagRelay
		dst = append(dst, relay...)
	}
	return append(dst, main...)
}

// unframePayload hands a received payload's reliable section to rel and
// returns the packet proper. A section for an end with no channel, flags
// this build does not know, a relay section (only a server sends one, and
// it reads none), and a section the channel refuses are errors: the peer
// speaks another protocol or lies.
func unframePayload(p []byte, rel *transport.Reliable) ([]byte, error) {
	if len(p) >= payloadOverhead && p[0]&flagRelay != 0 {
		return nil, errPayloadFlags
	}
	p, _, err := unframeRelayed(p, rel, nil)
	return p, err
}

// unframeRelayed is unframePayload for a payload that may carry a relay
// section: it returns the packet proper and the section's intents, read
// into relay[:0] (empty: none came).
func unframeRelayed(p []byte, rel *transport.Reliable, relay []intent) ([]byte, []intent, error) {
	relay = relay[:0]
	if len(p) < payloadOverhead {
		return nil, relay, errPayloadFlags
	}
	flags := p[0]
	p = p[payloadOverhead:]
	if flags&^flagsKnown != 0 {
		return nil, relay, errPayloadFlags
	}
	if flags&flagReliable != 0 {
		if rel == nil {
			return nil, relay, errPayloadFlags
		}
		n, err := rel.ReadSection(p)
		if err != nil {
			return nil, relay, err
		}
		p = p[n:]
	}
	if flags&flagRelay != 0 {
		var n int
		var err error
		if relay, n, err = decodeRelay(p, relay); err != nil {
			return nil, relay, err
		}
		p = p[n:]
	}
	return p, relay, nil
}

// seatReceiveWindow bounds what a server holds, for each player, of the
// player's messages in reassembly: clients send none, so this is only what
// a hostile client could make the server keep before its connection ends
// (the default window is 8 MiB, for the bundles the server sends).
// Tuning constant.
const seatReceiveWindow = 16 << 10

// seatReliable returns a seat's message channel: the default limits for
// what the server sends, seatReceiveWindow for what it receives.
func seatReliable() *transport.Reliable {
	rel, err := transport.NewReliable(transport.ReliableConfig{ReceiveWindow: seatReceiveWindow})
	if err != nil {
		panic(err)
	}
	return rel
}

// mustReliable returns a message channel with the default limits, which
// are valid.
func mustReliable() *transport.Reliable {
	rel, err := transport.NewReliable(transport.ReliableConfig{})
	if err != nil {
		panic(err)
	}
	return rel
}
