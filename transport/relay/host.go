package relay

import (
	"crypto/ecdh"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"vkm/transport"
)

// Host is a server's side of a relay: it registers under the server's
// key pair, keeps the registration fresh, and carries its peers'
// datagrams in and out of tunnel frames. It is sans-IO: the caller sends
// what it returns to the relay and hands it what the relay sends. Not
// safe for concurrent use.
type Host struct {
	key   *ecdh.PrivateKey
	pub   [KeySize]byte
	lease uint64
	code  Code
	// refresh is how long the relay said it keeps the registration;
	// registered when it last confirmed it.
	refresh    time.Duration
	registered transport.Time
	sent       transport.Time // when Register last ran
	peers      map[uint32]*hostPeer
	stats      HostStats
}

// HostStats counts what a Host dropped.
type HostStats struct {
	// Forged counts frames that did not open (altered, made up or
	// replayed on the way).
	Forged uint64
	// Other counts datagrams that were not for it (another lease, an
	// unknown kind, a malformed one).
	Other uint64
}

type hostPeer struct {
	joiner [KeySize]byte
	t      *tunnel
	seen   transport.Time
}

// MaxHostPeers bounds the tunnels a Host keeps; past it, a new joiner's
// first frames are dropped until an idle one is forgotten (PeerIdle).
const MaxHostPeers = 4096

// PeerIdle is how long a Host keeps a tunnel it has heard nothing on.
const PeerIdle = 2 * time.Minute

// RekeyIdle is how long a tunnel must have been quiet before a frame
// under another joiner key may replace it (the player's transport has
// timed out long before).
const RekeyIdle = 15 * time.Second

// NewHost returns a Host for a server with key pair key, drawing its
// registration's lease from rand.
func NewHost(key *ecdh.PrivateKey, rand io.Reader) (*Host, error) {
	if key.Curve() != ecdh.X25519() {
		return nil, errors.New("relay: a server's key is X25519")
	}
	var b [8]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return nil, fmt.Errorf("relay: drawing a lease: %w", err)
	}
	return &Host{key: key, pub: publicKey(key), lease: binary.LittleEndian.Uint64(b[:]) | 1, peers: map[uint32]*hostPeer{}}, nil
}

// Code returns the code the relay gave, 0 before it has.
func (h *Host) Code() Code { return h.code }

// Stats returns the counts so far.
func (h *Host) Stats() HostStats { return h.stats }

// Register appends a Register datagram (asking for the code it holds, if
// any, so a relay that restarted gives it back) and notes the time.
func (h *Host) Register(dst []byte, now transport.Time) []byte {
	h.sent = now
	m := Message{Kind: KindRegister, Key: h.pub, Lease: h.lease, Code: h.code}
	return m.Append(dst)
}

// Leave appends a Leave datagram: the relay forgets the code at once.
func (h *Host) Leave(dst []byte) []byte {
	m := Message{Kind: KindLeave, Lease: h.lease}
	return m.Append(dst)
}

// RegisterDue reports whether it is time to send Register again: every
// second until the relay answers, then three times within the time the
// relay keeps a registration.
func (h *Host) RegisterDue(now transport.Time) bool {
	every := time.Second
	if h.code != 0 && h.refresh/3 > every {
		every = h.refresh / 3
	}
	return now.Sub(h.sent) >= every
}

// Lost reports whether the relay has not confirmed the registration
// within the time it keeps one: the code may be gone.
func (h *Host) Lost(now transport.Time) bool {
	return h.code != 0 && now.Sub(h.registered) > h.refresh
}

// HostEvent is what a datagram from the relay brought: a registration
// (Registered, with the code), or a peer's datagram (Peer, Datagram;
// Datagram aliases the bytes handed to Receive).
type HostEvent struct {
	Registered bool
	Code       Code
	Peer       uint32
	Datagram   []byte
}

// Receive takes a datagram from the relay. It decrypts a peer's frame in
// place. A datagram it drops is counted and returns an error.
func (h *Host) Receive(b []byte, now transport.Time) (HostEvent, error) {
	m, err := Parse(b)
	if err != nil {
		h.stats.Other++
		return HostEvent{}, err
	}
	switch m.Kind {
	case KindRegistered:
		if m.Lease != h.lease {
			h.stats.Other++
			return HostEvent{}, errors.New("relay: a registration of another lease")
		}
		h.code, h.refresh, h.registered = m.Code, time.Duration(m.Refresh)*time.Second, now
		return HostEvent{Registered: true, Code: m.Code}, nil
	case KindFromPeer:
		d, err := h.open(m.Peer, m.Frame, now)
		if err != nil {
			h.stats.Forged++
			return HostEvent{}, err
		}
		return HostEvent{Peer: m.Peer, Datagram: d}, nil
	}
	h.stats.Other++
	return HostEvent{}, fmt.Errorf("relay: a server does not take kind %d", m.Kind)
}

// open finds or makes peer's tunnel and opens the frame. A frame carrying
// a key other than the tunnel's starts a new tunnel only if it opens
// under it, so a frame made up on the way cannot end a tunnel.
func (h *Host) open(peer uint32, frame []byte, now transport.Time) ([]byte, error) {
	key, sealed, err := splitFrame(frame)
	if err != nil {
		return nil, err
	}
	p := h.peers[peer]
	if p != nil && (key == nil || *key == p.joiner || now.Sub(p.seen) < RekeyIdle) {
		// A frame under another key for a tunnel in use is refused:
		// else whoever sits between could take a player's place.
		if key != nil && *key != p.joiner {
			return nil, fmt.Errorf("%w: another key for peer %d's tunnel in use", ErrFrame, peer)
		}
		d, err := p.t.open(sealed)
		if err == nil {
			p.seen = now
		}
		return d, err
	}
	if key == nil {
		return nil, fmt.Errorf("%w: peer %d has no tunnel", ErrFrame, peer)
	}
	if p == nil && len(h.peers) >= MaxHostPeers {
		h.forgetIdle(now)
		if len(h.peers) >= MaxHostPeers {
			return nil, fmt.Errorf("relay: %d tunnels open", len(h.peers))
		}
	}
	jk, err := ecdh.X25519().NewPublicKey(key[:])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrame, err)
	}
	secret, err := h.key.ECDH(jk)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrame, err)
	}
	toServer, toJoiner, err := tunnelKeys(secret, key, &h.pub)
	if err != nil {
		return nil, err
	}
	t, err := newTunnel(&toJoiner, &toServer)
	if err != nil {
		return nil, err
	}
	d, err := t.open(sealed)
	if err != nil {
		return nil, err
	}
	h.peers[peer] = &hostPeer{joiner: *key, t: t, seen: now}
	return d, nil
}

// forgetIdle drops the tunnels idle for PeerIdle.
func (h *Host) forgetIdle(now transport.Time) {
	for id, p := range h.peers {
		if now.Sub(p.seen) > PeerIdle {
			delete(h.peers, id)
		}
	}
}

// Poll forgets idle tunnels; call it now and then (once a second).
func (h *Host) Poll(now transport.Time) { h.forgetIdle(now) }

// Seal appends a ToPeer datagram carrying datagram to peer. It fails for
// a peer with no tunnel (one that has never sent anything that opened).
func (h *Host) Seal(dst []byte, peer uint32, datagram []byte) ([]byte, error) {
	p := h.peers[peer]
	if p == nil {
		return dst, fmt.Errorf("relay: no tunnel to peer %d", peer)
	}
	dst = AppendHeader(dst, KindToPeer)
	dst = binary.LittleEndian.AppendUint32(dst, peer)
	return p.t.seal(dst, nil, datagram), nil
}
