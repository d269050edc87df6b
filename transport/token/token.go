// Package token mints and opens connect tokens: the proof, handed to a
// player by the backend that authenticated them, that lets them join one of
// a game's servers (docs/protocol.md, "Connect tokens"; the netcode.io model
// of a backend and servers sharing a key).
//
// The backend and every server of a game share a 32-byte Key. Mint writes a
// Token: public fields anyone may read (the game's protocol id, when it was
// made, when it expires, the servers it is good for), the two session keys
// in the clear for the client, and Sealed, the bytes the client forwards to
// a server without being able to read or change them. Sealed repeats the
// public fields in the clear, authenticated, and holds the client's id, the
// session keys and the player's name under XChaCha20-Poly1305 with the
// shared key and a random 24-byte nonce. A server calls Open on the Sealed
// bytes a client sent and learns who the client is and the keys that seal
// the connection's datagrams (transport/seal); a Used cache refuses a token
// seen before.
//
// It is also the Go package a game's backend uses to hand out tokens: after
// it has authenticated a player its own way, it calls Mint with the shared
// key, ProtocolID of the project's name, the player's id and name, and the
// servers' public addresses, and gives the player the token's text form
// (MarshalText) to pass to the client (`client --token FILE`). `vkmd token`
// does the same from the command line.
//
// The package is sans-IO: the time and the randomness are arguments.
package token

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"golang.org/x/crypto/chacha20poly1305"

	"vkm/transport/handshake"
)

// Protocol constants: the token's layout. The offsets are documented in
// docs/protocol.md and on SealedSize and Size.
const (
	// Version is the format version, the first byte of Sealed. Raise it
	// whenever the layout or the meaning of a field changes.
	Version uint8 = 1

	// KeySize is the length of the shared key and of each session key.
	KeySize = chacha20poly1305.KeySize

	// NonceSize is the length of a token's nonce (XChaCha20's).
	NonceSize = chacha20poly1305.NonceSizeX

	// MaxServers is how many server addresses a token may name.
	MaxServers = 8

	// NameMax is the longest player name a token carries, in bytes of
	// UTF-8: the same bound, and the same rules, as a Hello's name.
	NameMax = handshake.NameMax

	// addrSize is one server address slot: family (4 or 6; 0 for an unused
	// slot), 16 bytes of IP (an IPv4 address in the first 4, the rest 0),
	// port (uint16).
	addrSize = 1 + 16 + 2

	// The public part of Sealed, in the clear and authenticated:
	//	0   version   u8
	//	1   protocol  u64  the game's protocol id
	//	9   created   i64  unix seconds
	//	17  expires   i64  unix seconds, after created
	//	25  nonce     24 bytes
	//	49  servers   u8   1..MaxServers
	//	50  addresses MaxServers slots of addrSize; unused slots all zero
	offProtocol = 1
	offCreated  = 9
	offExpires  = 17
	offNonce    = 25
	offServers  = 49
	offAddrs    = 50
	publicSize  = offAddrs + MaxServers*addrSize // 202

	// The private part, sealed after the public one:
	//	0   client id         u64
	//	8   client-to-server  KeySize bytes
	//	40  server-to-client  KeySize bytes
	//	72  name length       u8, 0..NameMax
	//	73  name              NameMax bytes, zero after the name
	privClient  = 0
	privToSrv   = 8
	privToCli   = privToSrv + KeySize
	privNameLen = privToCli + KeySize
	privName    = privNameLen + 1
	privateSize = privName + NameMax // 105

	// SealedSize is the length of the bytes a client forwards: the public
	// part, then the private part encrypted, then the 16-byte tag.
	SealedSize = publicSize + privateSize + chacha20poly1305.Overhead // 323

	// Size is the length of a Token's binary form: Sealed, then the
	// client-to-server key, then the server-to-client key.
	Size = SealedSize + 2*KeySize // 387
)

// The sealed token is what a Hello carries: the two packages agree on its
// length.
var _ [0]struct{} = [SealedSize - handshake.TokenSize]struct{}{}

// ProtocolID returns the protocol id of the game whose project is named
// name: FNV-1a 64 of "vkm:" and the name. A vkm server checks a token's
// Protocol against its project's, so a token for one game does not admit to
// another sharing the key; a backend mints with the same value.
func ProtocolID(name string) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range []byte("vkm:" + name) {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// Errors Open and Parse return, each wrapped with the detail. Only
// ErrMalformed comes from a decoder that reads no key; the others need the
// token to have been opened.
var (
	// ErrMalformed: not a token of this format: wrong length, another
	// version, or a field out of its bounds.
	ErrMalformed = errors.New("token: malformed")
	// ErrForged: the token does not authenticate under the key: forged,
	// altered, or minted with another key.
	ErrForged = errors.New("token: forged or garbled")
	// ErrExpired: the token is genuine but its time is up.
	ErrExpired = errors.New("token: expired")
	// ErrWrongServer: the token is genuine but does not name the address
	// it was presented to.
	ErrWrongServer = errors.New("token: not valid for this server")
	// ErrClaims: Mint was given claims a token cannot carry.
	ErrClaims = errors.New("token: bad claims")
)

// Key is the secret a game's backend and servers share. Anyone holding it
// can mint tokens for every server of the game: keep it off clients.
type Key [KeySize]byte

// Claims is what a token says about its client. Mint takes the fields a
// backend chooses; Open returns them all.
type Claims struct {
	// Protocol identifies the game (and its protocol generation), so a
	// token for one game does not admit to another sharing its key. The
	// server compares it with its own; Open does not.
	Protocol uint64
	// Client is the backend's id for the authenticated player.
	Client uint64
	// Created is when the token was made; Mint sets it to its now.
	Created time.Time
	// Expires is when the token stops being accepted, to the second. It
	// must be after Mint's now.
	Expires time.Time
	// Servers are the addresses the token is good for, 1 to MaxServers,
	// each with a port and without a zone. An IPv4-mapped IPv6 address is
	// kept as the IPv4 address.
	Servers []netip.AddrPort
	// Name is the player's name, as handshake.CleanName leaves it.
	Name string
	// Nonce is the token's own number, drawn by Mint; it is what Used
	// remembers.
	Nonce [NonceSize]byte
	// ClientToServer and ServerToClient are the session keys sealing the
	// connection's datagrams each way, drawn by Mint.
	ClientToServer, ServerToClient [KeySize]byte
}

// Token is what a backend hands a client: the public fields, read from
// Sealed, the session keys, and Sealed itself, which the client forwards to
// a server as it is. Its binary form (Append, Parse) is Size bytes; its text
// form (MarshalText, ParseText) is that in base64.
type Token struct {
	Protocol         uint64
	Created, Expires time.Time
	Servers          []netip.AddrPort
	ClientToServer   [KeySize]byte
	ServerToClient   [KeySize]byte
	Sealed           [SealedSize]byte
}

// Mint makes a token of claims c under key. It sets Created to now, draws
// the nonce and both session keys from rand (crypto/rand.Reader when nil;
// a fixed reader in tests), and ignores the values c has for them. It fails
// with ErrClaims when Expires is not after now, the servers are none, too
// many, repeated, or not addresses with a port and no zone, or the name is
// not one handshake.CleanName would leave as it is; and when rand fails.
func Mint(key *Key, c Claims, now time.Time, rand io.Reader) (Token, error) {
	if rand == nil {
		rand = crand.Reader
	}
	c.Created = time.Unix(now.Unix(), 0).UTC()
	c.Expires = time.Unix(c.Expires.Unix(), 0).UTC()
	if !c.Expires.After(c.Created) {
		return Token{}, fmt.Errorf("%w: expires %s, not after now %s", ErrClaims, c.Expires.Format(time.RFC3339), c.Created.Format(time.RFC3339))
	}
	servers, err := cleanServers(c.Servers)
	if err != nil {
		return Token{}, fmt.Errorf("%w: %v", ErrClaims, err)
	}
	c.Servers = servers
	if handshake.CleanName(c.Name) != c.Name {
		return Token{}, fmt.Errorf("%w: name %q is not a clean player name (at most %d bytes of UTF-8 that draws)", ErrClaims, c.Name, NameMax)
	}
	var drawn [NonceSize + 2*KeySize]byte
	if _, err := io.ReadFull(rand, drawn[:]); err != nil {
		return Token{}, fmt.Errorf("token: drawing nonce and keys: %w", err)
	}
	copy(c.Nonce[:], drawn[:NonceSize])
	copy(c.ClientToServer[:], drawn[NonceSize:])
	copy(c.ServerToClient[:], drawn[NonceSize+KeySize:])

	t := Token{
		Protocol:       c.Protocol,
		Created:        c.Created,
		Expires:        c.Expires,
		Servers:        c.Servers,
		ClientToServer: c.ClientToServer,
		ServerToClient: c.ServerToClient,
	}
	s := t.Sealed[:]
	s[0] = Version
	binary.LittleEndian.PutUint64(s[offProtocol:], c.Protocol)
	binary.LittleEndian.PutUint64(s[offCreated:], uint64(c.Created.Unix()))
	binary.LittleEndian.PutUint64(s[offExpires:], uint64(c.Expires.Unix()))
	copy(s[offNonce:], c.Nonce[:])
	s[offServers] = byte(len(c.Servers))
	for i, a := range c.Servers {
		putAddr(s[offAddrs+i*addrSize:], a)
	}

	var private [privateSize]byte
	binary.LittleEndian.PutUint64(private[privClient:], c.Client)
	copy(private[privToSrv:], c.ClientToServer[:])
	copy(private[privToCli:], c.ServerToClient[:])
	private[privNameLen] = byte(len(c.Name))
	copy(private[privName:], c.Name)

	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return Token{}, fmt.Errorf("token: %w", err)
	}
	aead.Seal(s[publicSize:publicSize], c.Nonce[:], private[:], s[:publicSize])
	return t, nil
}

// Open reads the Sealed bytes a client presented to the server at addr
// (this server's own address, as the client sent to it), at now. It
// returns the claims when the token authenticates under key, has not
// expired, and names addr; otherwise an error wrapping ErrMalformed,
// ErrForged, ErrExpired or ErrWrongServer, checked in that order, so that
// nothing a forger can change is believed before the tag has been checked.
// With ErrExpired and ErrWrongServer it returns the claims too: the token
// is genuine, so a server may seal its refusal under the token's keys.
// Open never panics on any input. It does not consult a Used cache: the
// caller does, with the claims' Nonce and Expires.
func Open(key *Key, sealed []byte, now time.Time, addr netip.AddrPort) (Claims, error) {
	if len(sealed) != SealedSize {
		return Claims{}, fmt.Errorf("%w: %d bytes, want %d", ErrMalformed, len(sealed), SealedSize)
	}
	var c Claims
	if err := readPublic(sealed, &c); err != nil {
		return Claims{}, err
	}
	aead, err := chacha20poly1305.NewX(key[:])
	if err != nil {
		return Claims{}, fmt.Errorf("token: %w", err)
	}
	var private [privateSize]byte
	if _, err := aead.Open(private[:0], c.Nonce[:], sealed[publicSize:], sealed[:publicSize]); err != nil {
		return Claims{}, ErrForged
	}
	c.Client = binary.LittleEndian.Uint64(private[privClient:])
	copy(c.ClientToServer[:], private[privToSrv:])
	copy(c.ServerToClient[:], private[privToCli:])
	n := int(private[privNameLen])
	if n > NameMax || !allZero(private[privName+n:]) {
		return Claims{}, fmt.Errorf("%w: name length %d or its padding", ErrMalformed, n)
	}
	c.Name = string(private[privName : privName+n])
	if handshake.CleanName(c.Name) != c.Name {
		return Claims{}, fmt.Errorf("%w: name %q", ErrMalformed, c.Name)
	}
	if !now.Before(c.Expires) {
		return c, fmt.Errorf("%w: at %s", ErrExpired, c.Expires.Format(time.RFC3339))
	}
	if !names(c.Servers, addr) {
		return c, fmt.Errorf("%w: %s", ErrWrongServer, addr)
	}
	return c, nil
}

// readPublic reads and checks the public part of sealed, which is
// SealedSize bytes, into c. Every field must be canonical, so one token has
// one encoding.
func readPublic(sealed []byte, c *Claims) error {
	if sealed[0] != Version {
		return fmt.Errorf("%w: format version %d, this build reads %d", ErrMalformed, sealed[0], Version)
	}
	c.Protocol = binary.LittleEndian.Uint64(sealed[offProtocol:])
	created := int64(binary.LittleEndian.Uint64(sealed[offCreated:]))
	expires := int64(binary.LittleEndian.Uint64(sealed[offExpires:]))
	if expires <= created {
		return fmt.Errorf("%w: expires (%d) not after created (%d)", ErrMalformed, expires, created)
	}
	c.Created = time.Unix(created, 0).UTC()
	c.Expires = time.Unix(expires, 0).UTC()
	copy(c.Nonce[:], sealed[offNonce:])
	n := int(sealed[offServers])
	if n < 1 || n > MaxServers {
		return fmt.Errorf("%w: %d servers, want 1 to %d", ErrMalformed, n, MaxServers)
	}
	c.Servers = make([]netip.AddrPort, n)
	for i := range MaxServers {
		slot := sealed[offAddrs+i*addrSize : offAddrs+(i+1)*addrSize]
		if i >= n {
			if !allZero(slot) {
				return fmt.Errorf("%w: unused server slot %d is not zero", ErrMalformed, i)
			}
			continue
		}
		a, ok := readAddr(slot)
		if !ok {
			return fmt.Errorf("%w: server %d is not an address", ErrMalformed, i)
		}
		c.Servers[i] = a
	}
	if _, err := cleanServers(c.Servers); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

// cleanServers checks a token's server list and returns it with each
// IPv4-mapped address unmapped, in a slice of its own. Its error says what
// is wrong; the caller says whose fault it is.
func cleanServers(servers []netip.AddrPort) ([]netip.AddrPort, error) {
	if len(servers) < 1 || len(servers) > MaxServers {
		return nil, fmt.Errorf("%d servers, want 1 to %d", len(servers), MaxServers)
	}
	out := make([]netip.AddrPort, len(servers))
	for i, a := range servers {
		ip := a.Addr().Unmap()
		switch {
		case !ip.IsValid() || ip.IsUnspecified():
			return nil, fmt.Errorf("server %d (%s) has no address", i, a)
		case ip.Zone() != "":
			return nil, fmt.Errorf("server %d (%s) has a zone", i, a)
		case a.Port() == 0:
			return nil, fmt.Errorf("server %d (%s) has no port", i, a)
		}
		out[i] = netip.AddrPortFrom(ip, a.Port())
		for _, b := range out[:i] {
			if b == out[i] {
				return nil, fmt.Errorf("server %s named twice", b)
			}
		}
	}
	return out, nil
}

// putAddr writes a's slot into b.
func putAddr(b []byte, a netip.AddrPort) {
	ip := a.Addr()
	if ip.Is4() {
		b[0] = 4
		v4 := ip.As4()
		copy(b[1:5], v4[:])
	} else {
		b[0] = 6
		v6 := ip.As16()
		copy(b[1:17], v6[:])
	}
	binary.LittleEndian.PutUint16(b[17:19], a.Port())
}

// readAddr reads a used slot. It refuses an unknown family, an IPv4 slot
// with bytes after the address, and an IPv6 slot holding an IPv4-mapped
// address (which Mint writes as IPv4); cleanServers checks the rest.
func readAddr(b []byte) (netip.AddrPort, bool) {
	port := binary.LittleEndian.Uint16(b[17:19])
	switch b[0] {
	case 4:
		if !allZero(b[5:17]) {
			return netip.AddrPort{}, false
		}
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[1:5])), port), true
	case 6:
		ip := netip.AddrFrom16([16]byte(b[1:17]))
		if ip.Is4In6() {
			return netip.AddrPort{}, false
		}
		return netip.AddrPortFrom(ip, port), true
	}
	return netip.AddrPort{}, false
}

// names reports whether servers holds addr, compared as Mint stores
// addresses: unmapped and without a zone.
func names(servers []netip.AddrPort, addr netip.AddrPort) bool {
	want := netip.AddrPortFrom(addr.Addr().Unmap().WithZone(""), addr.Port())
	for _, s := range servers {
		if s == want {
			return true
		}
	}
	return false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
