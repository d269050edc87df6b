package netmsg

import "vkm/transport"

// The payload's flags byte (docs/protocol.md, "Data: the payload").
// Protocol constants.
const (
	// flagReliable says a reliable section follows the flags.
	flagReliable = 1 << 0
	// flagRelay says a relay section follows the reliable one, if any;
	// only a server sets it.
	flagRelay = 1 << 1
	// flagGuests says a guest section ends the payload, after the packet
	// proper; only a server sets it.
	flagGuests = 1 << 2
	// flagsKnown are the bits this version defines; every other is 0.
	flagsKnown = flagReliable | flagRelay | flagGuests
)

// PayloadOverhead is what the framing costs a payload that carries no
// section: its flags byte. A writer planning the packet proper gives it
// transport.MaxDataPayload less this and the relay section's length.
const PayloadOverhead = 1

// AppendPayload appends to dst the Data payload around main, the packet
// proper: the flags, then a reliable section of rel's waiting messages in
// the room relay and main leave in transport.MaxDataPayload (none when rel
// is nil, has nothing to send or there is no room), then relay, a relay
// section as Relay.Append writes it (empty: none; only a server writes
// one), then main. The packet proper and the relay are written whole; only
// the reliable section is cut to fit. The caller calls rel.Sent with the
// sequence the payload goes out under.
func AppendPayload(dst []byte, rel *transport.Reliable, relay, main []byte, now transport.Time) []byte {
	return AppendServerPayload(dst, rel, relay, main, nil, now)
}

// AppendServerPayload is AppendPayload with a guest section after main
// (guests as GuestSection.Append writes it; empty: none): a server's
// payload to a connection with guests.
func AppendServerPayload(dst []byte, rel *transport.Reliable, relay, main, guests []byte, now transport.Time) []byte {
	at := len(dst)
	dst = append(dst, 0)
	if rel != nil {
		room := transport.MaxDataPayload - PayloadOverhead - len(relay) - len(main) - len(guests)
		if n := len(dst); room > 0 {
			dst = rel.Append(dst, room, now)
			if len(dst) > n {
				dst[at] |= flagReliable
			}
		}
	}
	if len(relay) > 0 {
		dst[at] |= flagRelay
		dst = append(dst, relay...)
	}
	dst = append(dst, main...)
	if len(guests) > 0 {
		dst[at] |= flagGuests
		dst = append(dst, guests...)
	}
	return dst
}

// ParseServerPayload reads a payload a server sent: it hands the reliable
// section to rel, reads the relay section into *relay (reusing its
// storage; empty: none came), and returns the packet proper (a subslice of
// p). It refuses an empty payload, flag bits this version does not define, a
// reliable section for an end with no channel (rel nil), and a relay
// section ParseRelay refuses, each with a *ParseError; a reliable section
// the channel refuses returns rel.ReadSection's error, which wraps
// transport.ErrReliableProtocol: the connection must end, since the
// datagram is already acknowledged and its fragments will not come again.
func ParseServerPayload(p []byte, rel *transport.Reliable, relay *Relay) ([]byte, error) {
	var guests GuestSection
	return ParseServerPayloadGuests(p, rel, relay, &guests)
}

// ParseServerPayloadGuests is ParseServerPayload that also reads a guest
// section into *guests (reusing its storage; empty: none came), refusing
// one ParseGuestSection refuses.
func ParseServerPayloadGuests(p []byte, rel *transport.Reliable, relay *Relay, guests *GuestSection) ([]byte, error) {
	*relay = (*relay)[:0]
	*guests = (*guests)[:0]
	if len(p) < PayloadOverhead {
		return nil, failf(FormatPayload, "empty")
	}
	flags := p[0]
	p = p[PayloadOverhead:]
	if flags&^flagsKnown != 0 {
		return nil, failf(FormatPayload, "flags %#02x not understood", flags)
	}
	if flags&flagReliable != 0 {
		if rel == nil {
			return nil, failf(FormatPayload, "a reliable section to an end with no channel")
		}
		n, err := rel.ReadSection(p)
		if err != nil {
			return nil, err
		}
		p = p[n:]
	}
	if flags&flagRelay != 0 {
		r, n, err := ParseRelay(p, *relay)
		*relay = r
		if err != nil {
			return nil, err
		}
		p = p[n:]
	}
	if flags&flagGuests != 0 {
		g, head, err := ParseGuestSection(p, *guests)
		*guests = g
		if err != nil {
			return nil, err
		}
		p = head
	}
	return p, nil
}

// ParseClientPayload reads a payload a client sent: it hands the reliable
// section to rel and returns the packet proper (a subslice of p). It
// refuses what ParseServerPayload refuses, and a relay section, which only
// a server sends; such a payload's reliable section is not read.
func ParseClientPayload(p []byte, rel *transport.Reliable) ([]byte, error) {
	if len(p) >= PayloadOverhead && p[0]&flagRelay != 0 {
		return nil, failf(FormatPayload, "a relay section from a client")
	}
	if len(p) >= PayloadOverhead && p[0]&flagGuests != 0 {
		return nil, failf(FormatPayload, "a guest section from a client")
	}
	var none Relay // never filled: a relay section was refused above
	return ParseServerPayload(p, rel, &none)
}
