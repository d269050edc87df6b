//go:build !js

package netio

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"vkm/transport"
	"vkm/transport/relay"
)

// RelayTimeout is how long a server waits for the relay to give it a
// code, and a joiner for the relay to answer its code, before giving up.
const RelayTimeout = 5 * time.Second

// relayResend is how often an unanswered Register or Join is sent again.
const relayResend = 500 * time.Millisecond

// RelayServer is a server's socket with a relay behind it: what arrives
// on inner passes as before, and so do the players who join through the
// relay by code, each as an address of the fd76:6b6d:0:3::/64 range
// (relay.PeerAddr), so the serving loop and its sealed sessions see
// them as any other peer. Make one with ListenRelay. It is Direct (the
// serving loop reads it in its own time) when inner is, and delivers
// both inner's datagrams and the relay's on Incoming otherwise.
type RelayServer struct {
	inner Socket
	link  Socket
	to    netip.AddrPort
	start time.Time
	in    chan Datagram
	done  chan struct{}
	wg    sync.WaitGroup

	mu     sync.Mutex
	h      *relay.Host
	buf    []byte
	onCode func(relay.Code)
	// fn is the serving loop's receiver, and pass inner's datagrams to
	// it but those claiming a relayed peer's address (a Direct inner).
	fn, pass func(netip.AddrPort, []byte)
	// leaving is set once Close has sent the Leave.
	leaving bool
	closed  sync.Once
}

// ListenRelay registers the server behind inner with the relay at
// relayAddr ("host:port", on n if set) under the key pair key and waits
// (up to RelayTimeout, or until ctx ends) for its code, which it
// returns. It keeps the registration fresh from then on, calling onCode
// (if set) whenever the relay gives another code. Closing it leaves the
// relay and closes inner.
func ListenRelay(ctx context.Context, n *Loopback, inner Socket, relayAddr string, key *ecdh.PrivateKey, onCode func(relay.Code)) (Socket, relay.Code, error) {
	h, err := relay.NewHost(key, rand.Reader)
	if err != nil {
		return nil, 0, err
	}
	link, err := dial(n, relayAddr, relay.MaxDatagram)
	if err != nil {
		return nil, 0, fmt.Errorf("netio: the relay %q: %w", relayAddr, err)
	}
	s := &RelayServer{inner: inner, link: link, start: time.Now(), in: make(chan Datagram, IncomingDepth), done: make(chan struct{}), h: h}
	code, err := s.register(ctx)
	if err != nil {
		link.Close()
		return nil, 0, fmt.Errorf("netio: the relay %q: %w", relayAddr, err)
	}
	s.onCode = onCode
	s.wg.Add(1)
	go s.run()
	if _, direct := inner.(Direct); direct {
		// Bound once: a wake-up of the serving loop makes no closure.
		s.pass = fromInner(func(from netip.AddrPort, b []byte) { s.fn(from, b) })
		return relayDirect{s}, code, nil
	}
	s.wg.Add(1)
	go s.merge()
	return s, code, nil
}

// merge passes inner's datagrams on to Incoming, beside the relay's.
func (s *RelayServer) merge() {
	defer s.wg.Done()
	for d := range s.inner.Incoming() {
		if _, relayed := relay.IsPeerAddr(d.From); relayed {
			continue
		}
		select {
		case s.in <- d:
		case <-s.done:
			return
		}
	}
}

func (s *RelayServer) now() transport.Time { return transport.Time(time.Since(s.start)) }

// register sends Register until the relay answers.
func (s *RelayServer) register(ctx context.Context) (relay.Code, error) {
	give := time.NewTimer(RelayTimeout)
	defer give.Stop()
	again := time.NewTicker(relayResend)
	defer again.Stop()
	for {
		s.link.WriteTo(s.h.Register(nil, s.now()), s.to)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-give.C:
			return 0, fmt.Errorf("no code within %v", RelayTimeout)
		case <-again.C:
		case d, ok := <-s.link.Incoming():
			if !ok {
				return 0, fmt.Errorf("the link closed: %v", s.link.Err())
			}
			if ev, err := s.h.Receive(d.Bytes, s.now()); err == nil && ev.Registered {
				return ev.Code, nil
			}
		}
	}
}

// run takes in what the relay sends and keeps the registration fresh.
func (s *RelayServer) run() {
	defer s.wg.Done()
	tick := time.NewTicker(relayResend)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case d, ok := <-s.link.Incoming():
			if !ok {
				return
			}
			s.mu.Lock()
			was := s.h.Code()
			ev, err := s.h.Receive(d.Bytes, s.now())
			s.mu.Unlock()
			switch {
			case err != nil:
			case ev.Registered && ev.Code != was && s.onCode != nil:
				s.onCode(ev.Code)
			case ev.Datagram != nil:
				select {
				case s.in <- Datagram{From: relay.PeerAddr(ev.Peer), Bytes: ev.Datagram}:
				default: // the loop is behind: dropped, as the network would
				}
			}
		case <-tick.C:
			s.mu.Lock()
			now := s.now()
			if !s.leaving && s.h.RegisterDue(now) {
				s.link.WriteTo(s.h.Register(nil, now), s.to)
			}
			s.h.Poll(now)
			s.mu.Unlock()
		}
	}
}

// Code returns the code the relay gave last.
func (s *RelayServer) Code() relay.Code {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h.Code()
}

// Stats returns the relay side's counts.
func (s *RelayServer) Stats() relay.HostStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.h.Stats()
}

func (s *RelayServer) Incoming() <-chan Datagram { return s.in }
func (s *RelayServer) LocalAddr() netip.AddrPort { return s.inner.LocalAddr() }
func (s *RelayServer) Err() error                { return s.inner.Err() }

// fromInner passes on a datagram from inner unless it claims a relayed
// peer's address, which only the relay may give.
func fromInner(fn func(netip.AddrPort, []byte)) func(netip.AddrPort, []byte) {
	return func(from netip.AddrPort, b []byte) {
		if _, relayed := relay.IsPeerAddr(from); !relayed {
			fn(from, b)
		}
	}
}

// relayDirect is a RelayServer over a Direct socket, Direct itself.
type relayDirect struct{ *RelayServer }

func (relayDirect) Incoming() <-chan Datagram { return nil }

// ReadWaiting calls fn with every datagram waiting on inner and then
// every one the relay has brought.
func (s relayDirect) ReadWaiting(fn func(from netip.AddrPort, b []byte)) error {
	s.fn = fn
	if err := s.inner.(Direct).ReadWaiting(s.pass); err != nil {
		return err
	}
	for {
		select {
		case d := <-s.in:
			fn(d.From, d.Bytes)
		default:
			return nil
		}
	}
}

// WriteTo sends b to a relayed peer through the relay, sealed in its
// tunnel, and to anyone else on inner.
func (s *RelayServer) WriteTo(b []byte, to netip.AddrPort) error {
	if p, ok := relay.IsPeerAddr(to); ok {
		s.mu.Lock()
		var err error
		s.buf, err = s.h.Seal(s.buf[:0], p, b)
		if err == nil {
			err = s.link.WriteTo(s.buf, s.to)
		}
		s.mu.Unlock()
		return err
	}
	return s.inner.WriteTo(b, to)
}

// Queue sends b to a relayed peer at once and queues it on inner
// otherwise.
func (s relayDirect) Queue(b []byte, to netip.AddrPort) error {
	if _, ok := relay.IsPeerAddr(to); ok {
		return s.WriteTo(b, to)
	}
	return s.inner.(Direct).Queue(b, to)
}

// Flush sends what inner has queued.
func (s relayDirect) Flush() error { return s.inner.(Direct).Flush() }

// Close tells the relay the server is leaving (its code ends at once),
// then closes the link and inner.
func (s *RelayServer) Close() error {
	var err error
	s.closed.Do(func() {
		s.mu.Lock()
		s.leaving = true // no Register goes after the Leave
		s.link.WriteTo(s.h.Leave(nil), s.to)
		s.mu.Unlock()
		close(s.done)
		s.link.Close()
		err = s.inner.Close()
		s.wg.Wait()
	})
	return err
}

var _ Direct = relayDirect{}

// RelayRefused is the error DialRelay returns for a join the relay
// refused; Reason says why.
type RelayRefused struct{ Reason relay.Reason }

func (e *RelayRefused) Error() string { return "the relay refused the join code: " + e.Reason.String() }
func (e *RelayRefused) Unwrap() error { return relay.ErrRefused }

// relayClient is a joiner's socket through a relay: every datagram goes
// sealed in the tunnel to the server the code names, and what comes back
// is from tokenAddr.
type relayClient struct {
	link  Socket
	from  netip.AddrPort
	in    chan Datagram
	wg    sync.WaitGroup
	mu    sync.Mutex
	j     *relay.Joiner
	buf   []byte
	close sync.Once
	err   error
}

// DialRelay joins code at the relay at relayAddr ("host:port", on n if
// set): it asks the relay for the code and waits (up to RelayTimeout, or
// until ctx ends) for the server's key, or a refusal (a *RelayRefused,
// whose sentence says why). The socket's datagrams come from
// relay.TokenAddr(code, the relay's port), the address a connect token
// names such a server by.
func DialRelay(ctx context.Context, n *Loopback, relayAddr string, code relay.Code) (Socket, error) {
	j, err := relay.NewJoiner(code, rand.Reader)
	if err != nil {
		return nil, err
	}
	link, err := dial(n, relayAddr, relay.MaxDatagram)
	if err != nil {
		return nil, fmt.Errorf("netio: the relay %q: %w", relayAddr, err)
	}
	port, err := relayPort(relayAddr)
	if err != nil {
		link.Close()
		return nil, err
	}
	c := &relayClient{link: link, in: make(chan Datagram, IncomingDepth), j: j, from: relay.TokenAddr(code, port)}
	if err := c.join(ctx); err != nil {
		link.Close()
		return nil, fmt.Errorf("netio: the relay %q: %w", relayAddr, err)
	}
	c.wg.Add(1)
	go c.run()
	return c, nil
}

// join asks for the code until the relay answers. A refusal for asking
// too often (players behind one address joining at once) is waited out:
// the next attempts go at the resend pace, which the relay's rate allows.
func (c *relayClient) join(ctx context.Context) error {
	give := time.NewTimer(RelayTimeout)
	defer give.Stop()
	again := time.NewTicker(relayResend)
	defer again.Stop()
	var limited error
	c.link.WriteTo(c.j.Join(nil), netip.AddrPort{})
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-give.C:
			if limited != nil {
				return limited
			}
			return fmt.Errorf("no answer within %v", RelayTimeout)
		case <-again.C:
			c.link.WriteTo(c.j.Join(nil), netip.AddrPort{})
		case d, ok := <-c.link.Incoming():
			if !ok {
				return fmt.Errorf("the link closed: %v", c.link.Err())
			}
			ev, err := c.j.Receive(d.Bytes)
			switch {
			case err != nil:
			case ev.Joined:
				return nil
			case ev.Refused == relay.ReasonRate:
				limited = &RelayRefused{Reason: ev.Refused}
			case ev.Refused != 0:
				return &RelayRefused{Reason: ev.Refused}
			}
		}
	}
}

func (c *relayClient) run() {
	defer c.wg.Done()
	defer close(c.in)
	for d := range c.link.Incoming() {
		c.mu.Lock()
		ev, err := c.j.Receive(d.Bytes)
		c.mu.Unlock()
		if err != nil || ev.Datagram == nil {
			continue
		}
		select {
		case c.in <- Datagram{From: c.from, Bytes: ev.Datagram}:
		default:
		}
	}
	c.err = c.link.Err()
}

func (c *relayClient) Incoming() <-chan Datagram { return c.in }
func (c *relayClient) LocalAddr() netip.AddrPort { return c.link.LocalAddr() }
func (c *relayClient) Err() error                { return c.err }

func (c *relayClient) WriteTo(b []byte, _ netip.AddrPort) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	if c.buf, err = c.j.Seal(c.buf[:0], b); err != nil {
		return err
	}
	return c.link.WriteTo(c.buf, netip.AddrPort{})
}

func (c *relayClient) Close() error {
	var err error
	c.close.Do(func() {
		err = c.link.Close()
		c.wg.Wait()
	})
	return err
}

// relayPort is the port of a relay's address, "host:port".
func relayPort(addr string) (uint16, error) {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, fmt.Errorf("netio: the relay's address %q: %w", addr, err)
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("netio: the relay's address %q: a port of %q", addr, p)
	}
	return uint16(n), nil
}

// ListenRelayd opens a relay's socket at addr ("host:port", on n if
// set), which carries datagrams of up to relay.MaxDatagram bytes and
// which a goroutine of its own reads into Incoming (never Direct): the
// relay's loop waits on its datagrams rather than on a clock.
func ListenRelayd(n *Loopback, addr string) (Socket, error) {
	if n != nil {
		return n.listen(addr)
	}
	return listenUDPMax(addr, relay.MaxDatagram)
}
