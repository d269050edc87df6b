package relay

import (
	"crypto/ecdh"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Joiner is a player's side of a relay: it asks for a code, takes the
// server's key from the answer, and carries the player's datagrams in
// tunnel frames. Sans-IO and not safe for concurrent use.
type Joiner struct {
	code  Code
	nonce uint64
	key   *ecdh.PrivateKey
	pub   [KeySize]byte
	// server is the server's key once Joined has brought it; t the tunnel.
	server [KeySize]byte
	t      *tunnel
	// heard: a frame from the server has opened, so it has the keys and
	// frames stop carrying the joiner's key.
	heard  bool
	forged uint64
}

// NewJoiner returns a Joiner for code, drawing its nonce and key pair
// from rand.
func NewJoiner(code Code, rand io.Reader) (*Joiner, error) {
	if code == 0 || code > MaxCode {
		return nil, ErrCode
	}
	var b [8]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return nil, fmt.Errorf("relay: drawing a nonce: %w", err)
	}
	k, err := NewKey(rand)
	if err != nil {
		return nil, err
	}
	return &Joiner{code: code, nonce: binary.LittleEndian.Uint64(b[:]), key: k, pub: publicKey(k)}, nil
}

// Join appends a Join datagram; send it until Receive says Joined or
// Refused.
func (j *Joiner) Join(dst []byte) []byte {
	m := Message{Kind: KindJoin, Code: j.code, Nonce: j.nonce}
	return m.Append(dst)
}

// Joined reports whether the relay has handed over the server's key.
func (j *Joiner) Joined() bool { return j.t != nil }

// ServerKey returns the server's public key the relay handed over.
func (j *Joiner) ServerKey() [KeySize]byte { return j.server }

// Forged counts frames from the relay that did not open.
func (j *Joiner) Forged() uint64 { return j.forged }

// JoinerEvent is what a datagram from the relay brought: the join
// answered (Joined), refused (Refused, with its reason), or a datagram
// from the server (Datagram, aliasing the bytes given to Receive).
type JoinerEvent struct {
	Joined   bool
	Refused  Reason
	Datagram []byte
}

// ErrRefused wraps a refusal's reason.
var ErrRefused = errors.New("relay: the join was refused")

// Receive takes a datagram from the relay.
func (j *Joiner) Receive(b []byte) (JoinerEvent, error) {
	m, err := Parse(b)
	if err != nil {
		return JoinerEvent{}, err
	}
	switch m.Kind {
	case KindJoined:
		if m.Nonce != j.nonce {
			return JoinerEvent{}, errors.New("relay: an answer to another join")
		}
		if j.t != nil {
			if m.Key != j.server {
				return JoinerEvent{}, errors.New("relay: a second answer with another key")
			}
			return JoinerEvent{}, nil // a repeat
		}
		sk, err := ecdh.X25519().NewPublicKey(m.Key[:])
		if err != nil {
			return JoinerEvent{}, err
		}
		secret, err := j.key.ECDH(sk)
		if err != nil {
			return JoinerEvent{}, fmt.Errorf("relay: the server's key: %w", err)
		}
		toServer, toJoiner, err := tunnelKeys(secret, &j.pub, &m.Key)
		if err != nil {
			return JoinerEvent{}, err
		}
		if j.t, err = newTunnel(&toServer, &toJoiner); err != nil {
			return JoinerEvent{}, err
		}
		j.server = m.Key
		return JoinerEvent{Joined: true}, nil
	case KindRefused:
		if m.Nonce != j.nonce || j.t != nil {
			return JoinerEvent{}, errors.New("relay: a refusal of another join")
		}
		return JoinerEvent{Refused: m.Reason}, nil
	case KindFromServer:
		if j.t == nil {
			return JoinerEvent{}, errors.New("relay: a frame before the join")
		}
		key, sealed, err := splitFrame(m.Frame)
		if err == nil && key != nil {
			err = fmt.Errorf("%w: a key from the server's side", ErrFrame)
		}
		var d []byte
		if err == nil {
			d, err = j.t.open(sealed)
		}
		if err != nil {
			j.forged++
			return JoinerEvent{}, err
		}
		j.heard = true
		return JoinerEvent{Datagram: d}, nil
	}
	return JoinerEvent{}, fmt.Errorf("relay: a joiner does not take kind %d", m.Kind)
}

// Seal appends a ToServer datagram carrying datagram; it carries the
// joiner's key until the server has answered through the tunnel.
func (j *Joiner) Seal(dst []byte, datagram []byte) ([]byte, error) {
	if j.t == nil {
		return dst, errors.New("relay: not joined yet")
	}
	dst = AppendHeader(dst, KindToServer)
	var key *[KeySize]byte
	if !j.heard {
		key = &j.pub
	}
	return j.t.seal(dst, key, datagram), nil
}
