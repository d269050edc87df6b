package relay

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"vkm/transport/seal"
)

// A tunnel frame is what a relay carries between a joiner and its server:
//
//	flags u8 (bit 0: the joiner's public key follows; other bits 0)
//	[the joiner's public key, 32 bytes]
//	counter u64, the datagram encrypted, Poly1305 tag (transport/seal
//	with no cleartext header)
//
// The joiner sends its key on every frame until it has heard from the
// server, so the first to arrive tells the server the keys. Frames from
// the server never carry a key.
const (
	frameHead    = 1
	flagKey      = 1
	sealOverhead = seal.Overhead
)

// tunnelInfo binds the keys to this use of them.
const tunnelInfo = "vkm relay tunnel 1"

// ErrFrame is returned for a tunnel frame that does not open.
var ErrFrame = errors.New("relay: a tunnel frame that does not open")

// tunnelKeys derives the two directions' keys from the X25519 secret the
// joiner (key joiner) and the server (key server) agree on.
func tunnelKeys(secret []byte, joiner, server *[KeySize]byte) (toServer, toJoiner seal.Key, err error) {
	salt := make([]byte, 0, 2*KeySize)
	salt = append(append(salt, joiner[:]...), server[:]...)
	k, err := hkdf.Key(sha256.New, secret, salt, tunnelInfo, 2*seal.KeySize)
	if err != nil {
		return toServer, toJoiner, err
	}
	copy(toServer[:], k)
	copy(toJoiner[:], k[seal.KeySize:])
	return toServer, toJoiner, nil
}

// tunnel is one end's state of one joiner's tunnel.
type tunnel struct {
	send *seal.Sender
	recv *seal.Receiver
}

func newTunnel(sendKey, recvKey *seal.Key) (*tunnel, error) {
	s, err := seal.NewSender(sendKey, 0)
	if err != nil {
		return nil, err
	}
	r, err := seal.NewReceiver(recvKey, 0)
	if err != nil {
		return nil, err
	}
	return &tunnel{send: s, recv: r}, nil
}

// seal appends a frame carrying datagram (and key, when not nil).
func (t *tunnel) seal(dst []byte, key *[KeySize]byte, datagram []byte) []byte {
	if key != nil {
		dst = append(dst, flagKey)
		dst = append(dst, key[:]...)
	} else {
		dst = append(dst, 0)
	}
	return t.send.Seal(dst, nil, datagram)
}

// open opens a frame's sealed part in place and returns the datagram.
func (t *tunnel) open(sealed []byte) ([]byte, error) {
	_, p, err := t.recv.Open(t.recv.InPlace(sealed), sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFrame, err)
	}
	return p, nil
}

// splitFrame reads a frame's flags and key.
func splitFrame(f []byte) (key *[KeySize]byte, sealed []byte, err error) {
	if len(f) < frameHead {
		return nil, nil, ErrFrame
	}
	switch f[0] {
	case 0:
		return nil, f[frameHead:], nil
	case flagKey:
		if len(f) < frameHead+KeySize {
			return nil, nil, ErrFrame
		}
		return (*[KeySize]byte)(f[frameHead : frameHead+KeySize]), f[frameHead+KeySize:], nil
	}
	return nil, nil, fmt.Errorf("%w: flags %#x", ErrFrame, f[0])
}

// NewKey draws an X25519 key pair from rand: a server's key, which its
// joiners are handed by the relay.
func NewKey(rand io.Reader) (*ecdh.PrivateKey, error) {
	return ecdh.X25519().GenerateKey(rand)
}

// publicKey returns k's public key as an array.
func publicKey(k *ecdh.PrivateKey) [KeySize]byte {
	return [KeySize]byte(k.PublicKey().Bytes())
}
