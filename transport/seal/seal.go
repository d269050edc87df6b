// Package seal encrypts and authenticates the datagrams of a vkm connection
// once the handshake has given both ends their session keys (docs/protocol.md,
// "Sealed datagrams"; the netcode.io model of per-direction keys and a
// counter nonce).
//
// Each direction has its own 32-byte key, drawn by the backend that minted
// the player's connect token (transport/token): a Sender seals with it, the
// peer's Receiver opens with the same key. A sealed datagram is
//
//	header  (the caller's cleartext header, HeaderLen bytes; authenticated)
//	counter (uint64, little endian; authenticated; the AEAD nonce)
//	payload (encrypted, same length as the plaintext)
//	tag     (16 bytes, Poly1305)
//
// under ChaCha20-Poly1305 (RFC 8439) with the nonce 0x00000000 ‖ counter
// (little endian) and the header and counter as associated data. A Sender
// never uses a counter twice, so a nonce is never reused under a key. A
// Receiver keeps a window of the last WindowSize counters and accepts each
// at most once; a datagram that does not authenticate changes nothing.
//
// The package is sans-IO and keeps no clock: sealing and opening are pure
// functions of the key, the counter state and the bytes.
package seal

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Protocol constants: the sealed datagram's layout.
const (
	// KeySize is the length of a direction's session key.
	KeySize = chacha20poly1305.KeySize

	// CounterSize is the length of the counter written after the header.
	CounterSize = 8

	// TagSize is the length of the authentication tag at the end.
	TagSize = chacha20poly1305.Overhead

	// Overhead is how many bytes sealing adds to a datagram: the counter
	// and the tag.
	Overhead = CounterSize + TagSize

	// WindowSize is how many counters behind the newest one a Receiver
	// still accepts (once each). 256 datagrams is four seconds at 64 a
	// second: reordering on any real path is far shorter, and a datagram
	// older than that is of no use to the connection above anyway.
	WindowSize = 256

	// MaxHeader is the longest cleartext header a Sender or Receiver takes.
	MaxHeader = 64
)

// Errors Open returns. Each is a reason to drop the datagram; none of them
// changes the Receiver.
var (
	// ErrMalformed: too short to hold the header, counter and tag.
	ErrMalformed = errors.New("seal: malformed datagram")
	// ErrReplayed: a datagram with this counter was already accepted.
	ErrReplayed = errors.New("seal: replayed datagram")
	// ErrTooOld: the counter is WindowSize or more behind the newest
	// accepted, so whether it was seen is no longer known.
	ErrTooOld = errors.New("seal: datagram behind the replay window")
	// ErrForged: the tag does not match. The datagram was altered, forged
	// or sealed under another key.
	ErrForged = errors.New("seal: datagram fails authentication")
)

// Key is one direction's session key.
type Key = [KeySize]byte

// Sender seals the datagrams one end sends. Use NewSender; the zero value is
// not ready. A Sender is not safe for concurrent use: one goroutine, the one
// that sends, drives it.
type Sender struct {
	aead      cipher.AEAD
	headerLen int
	next      uint64 // the counter the next Seal uses
	nonce     [chacha20poly1305.NonceSize]byte
}

// NewSender returns a Sender that seals under key datagrams whose cleartext
// header is headerLen bytes (0 to MaxHeader). Its first counter is 0.
func NewSender(key *Key, headerLen int) (*Sender, error) {
	aead, err := newAEAD(key, headerLen)
	if err != nil {
		return nil, err
	}
	return &Sender{aead: aead, headerLen: headerLen}, nil
}

// Seal appends to dst the sealed datagram of header and payload and returns
// the extended slice. header must be exactly the Sender's header length (a
// different length is a bug in the caller, and panics). The datagram is
// len(header)+len(payload)+Overhead bytes; Seal does not bound its size,
// which is the caller's business. Seal allocates only when dst lacks the
// room.
//
// payload may not overlap the bytes Seal appends unless it starts exactly
// where the ciphertext goes, which seals in place: with the header at
// buf[:h] and the payload at buf[h+CounterSize:], call
// Seal(buf[:0], buf[:h], buf[h+CounterSize:h+CounterSize+n]).
func (s *Sender) Seal(dst, header, payload []byte) []byte {
	if len(header) != s.headerLen {
		panic(fmt.Sprintf("seal: header of %d bytes, want %d", len(header), s.headerLen))
	}
	if s.next == ^uint64(0) {
		// 2^64 datagrams at 64 a second is longer than the sun will shine;
		// the check keeps a nonce from repeating even so.
		panic("seal: counter exhausted")
	}
	counter := s.next
	s.next++
	start := len(dst)
	dst = append(dst, header...)
	dst = binary.LittleEndian.AppendUint64(dst, counter)
	binary.LittleEndian.PutUint64(s.nonce[4:], counter)
	// The associated data is the header and counter just appended: Seal
	// writes only past len(dst), so they do not overlap its output.
	return s.aead.Seal(dst, s.nonce[:], payload, dst[start:])
}

// Next returns the counter the next Seal will use, which is also how many
// datagrams the Sender has sealed.
func (s *Sender) Next() uint64 { return s.next }

// Receiver opens the datagrams one end receives and refuses any it has
// accepted before. Use NewReceiver; the zero value is not ready. A Receiver
// is not safe for concurrent use.
//
// The replay window is a bitmap of the WindowSize counters ending at the
// newest accepted one: bit (c mod WindowSize) is set when counter c, within
// the window, was accepted. Moving the window forward clears the bits it
// passes over.
type Receiver struct {
	aead      cipher.AEAD
	headerLen int
	newest    uint64 // the highest counter accepted; meaningful when any
	any       bool   // whether any datagram has been accepted
	seen      [WindowSize / 64]uint64
	nonce     [chacha20poly1305.NonceSize]byte
}

// NewReceiver returns a Receiver that opens datagrams sealed under key whose
// cleartext header is headerLen bytes (0 to MaxHeader).
func NewReceiver(key *Key, headerLen int) (*Receiver, error) {
	aead, err := newAEAD(key, headerLen)
	if err != nil {
		return nil, err
	}
	return &Receiver{aead: aead, headerLen: headerLen}, nil
}

// Open authenticates datagram and, when it passes and its counter has not
// been accepted before, appends the decrypted payload to dst. It returns
// the header (aliasing datagram) and the payload (dst's extension). On any
// error the Receiver is unchanged and the error is one of ErrMalformed,
// ErrTooOld, ErrReplayed or ErrForged; a counter is checked against the
// window before any cryptography, so a replay costs little.
//
// To decrypt in place pass datagram[len(header)+CounterSize:][:0] as dst
// (InPlace does); otherwise dst's spare capacity must not overlap datagram.
// Open allocates only when dst lacks the room.
func (r *Receiver) Open(dst, datagram []byte) (header, payload []byte, err error) {
	if len(datagram) < r.headerLen+Overhead {
		return nil, nil, ErrMalformed
	}
	authenticated := datagram[:r.headerLen+CounterSize]
	counter := binary.LittleEndian.Uint64(authenticated[r.headerLen:])
	if err := r.check(counter); err != nil {
		return nil, nil, err
	}
	binary.LittleEndian.PutUint64(r.nonce[4:], counter)
	out, err := r.aead.Open(dst, r.nonce[:], datagram[len(authenticated):], authenticated)
	if err != nil {
		return nil, nil, ErrForged
	}
	r.accept(counter)
	return datagram[:r.headerLen], out[len(dst):], nil
}

// InPlace returns the dst that makes Open decrypt datagram over its own
// ciphertext, so the payload it returns aliases datagram. The datagram's
// ciphertext is overwritten, and on ErrForged zeroed.
func (r *Receiver) InPlace(datagram []byte) []byte {
	at := min(len(datagram), r.headerLen+CounterSize)
	return datagram[at:at]
}

// Newest returns the highest counter accepted, and false when none has been.
func (r *Receiver) Newest() (uint64, bool) { return r.newest, r.any }

// check says whether counter may be accepted: ahead of the newest, or within
// the window and not yet seen.
func (r *Receiver) check(counter uint64) error {
	if !r.any || counter > r.newest {
		return nil
	}
	// counter <= newest here, so the subtraction cannot wrap.
	if r.newest-counter >= WindowSize {
		return ErrTooOld
	}
	if r.seen[counter/64%uint64(len(r.seen))]&(1<<(counter%64)) != 0 {
		return ErrReplayed
	}
	return nil
}

// accept records counter, which check has let through and which has
// authenticated, moving the window forward when it is the newest.
func (r *Receiver) accept(counter uint64) {
	switch {
	case !r.any:
		r.any = true
		r.newest = counter
	case counter > r.newest:
		if counter-r.newest >= WindowSize {
			r.seen = [len(r.seen)]uint64{}
		} else {
			// Clear the bits of the counters the window passes over:
			// newest+1 .. counter, which now stand for new counters.
			for c := r.newest + 1; c <= counter; c++ {
				r.seen[c/64%uint64(len(r.seen))] &^= 1 << (c % 64)
			}
		}
		r.newest = counter
	}
	r.seen[counter/64%uint64(len(r.seen))] |= 1 << (counter % 64)
}

// newAEAD checks the header length and makes the cipher for key.
func newAEAD(key *Key, headerLen int) (cipher.AEAD, error) {
	if headerLen < 0 || headerLen > MaxHeader {
		return nil, fmt.Errorf("seal: header length %d is not within 0..%d", headerLen, MaxHeader)
	}
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return aead, nil
}

// SealOnce appends to dst the sealed datagram of header and payload under
// key with the given counter, outside any Sender: for a message sent once,
// whose counter the caller keeps apart from every Sender's under the same
// key (vkm's sealed Refuse sets the counter's top bit, which a Sender never
// reaches). A counter must never be used twice under one key.
func SealOnce(dst []byte, key *Key, header []byte, counter uint64, payload []byte) []byte {
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic(err) // a Key is always the right length
	}
	var nonce [chacha20poly1305.NonceSize]byte
	binary.LittleEndian.PutUint64(nonce[4:], counter)
	start := len(dst)
	dst = append(dst, header...)
	dst = binary.LittleEndian.AppendUint64(dst, counter)
	return aead.Seal(dst, nonce[:], payload, dst[start:])
}

// OpenOnce opens a datagram SealOnce sealed under key with a cleartext
// header of headerLen bytes, appending the payload to dst; it returns the
// header (aliasing datagram), the counter and the payload. It keeps no
// replay window: a caller that must refuse a second copy checks the
// counter itself. Errors are ErrMalformed and ErrForged.
func OpenOnce(dst []byte, key *Key, headerLen int, datagram []byte) (header []byte, counter uint64, payload []byte, err error) {
	if headerLen < 0 || len(datagram) < headerLen+Overhead {
		return nil, 0, nil, ErrMalformed
	}
	aead, err := chacha20poly1305.New(key[:])
	if err != nil {
		panic(err)
	}
	authenticated := datagram[:headerLen+CounterSize]
	counter = binary.LittleEndian.Uint64(authenticated[headerLen:])
	var nonce [chacha20poly1305.NonceSize]byte
	binary.LittleEndian.PutUint64(nonce[4:], counter)
	out, err := aead.Open(dst, nonce[:], datagram[len(authenticated):], authenticated)
	if err != nil {
		return nil, 0, nil, ErrForged
	}
	return datagram[:headerLen], counter, out[len(dst):], nil
}
