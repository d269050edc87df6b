//go:build !js

// Package relayd runs a relay (transport/relay) on a UDP socket and the
// wall clock: the program cmd/relay, and the tests that put one between
// a server and its players.
package relayd

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"vkm/host/netio"
	"vkm/transport"
	"vkm/transport/relay"
	"vkm/transport/udp"
)

// DefaultPort is the relay's UDP port when an address names none.
const DefaultPort = 27900

// Config says where and how a relay runs.
type Config struct {
	// Addr is the UDP address to listen on, "host:port" (":27900": every
	// interface).
	Addr string
	// Net, if set, is the in-process network to serve on instead of UDP.
	Net *netio.Loopback
	// Limits are the relay's (zero fields take relay's defaults); its
	// Rand is crypto/rand when not set.
	Limits relay.Config
	Logger *slog.Logger
	// Status receives a status line every StatusEvery (nil: none).
	Status io.Writer
	// Ready, if set, is called with the address listened on.
	Ready func(netip.AddrPort)
	// Tap, if set, is shown every datagram the relay receives and sends,
	// as the relay sees it (tests hold the relay's view with it).
	Tap func(in bool, peer netip.AddrPort, b []byte)
}

// StatusEvery is how often the status line is written, and the relay's
// Poll runs.
const StatusEvery = time.Second

// Serve runs a relay until ctx ends and returns its counts.
func Serve(ctx context.Context, cfg Config) (relay.Stats, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Limits.Rand == nil {
		cfg.Limits.Rand = rand.Reader
	}
	r, err := relay.New(cfg.Limits)
	if err != nil {
		return relay.Stats{}, err
	}
	if cfg.Net == nil {
		return serveUDP(ctx, cfg, r, log)
	}
	sock, err := netio.ListenRelayd(cfg.Net, cfg.Addr)
	if err != nil {
		return relay.Stats{}, fmt.Errorf("relayd: %w", err)
	}
	defer sock.Close()
	start := time.Now()
	now := func() transport.Time { return transport.Time(time.Since(start)) }
	log.Info("relay listening", "addr", sock.LocalAddr().String())
	if cfg.Ready != nil {
		cfg.Ready(sock.LocalAddr())
	}
	tick := time.NewTicker(StatusEvery)
	defer tick.Stop()
	in := sock.Incoming()
	for {
		select {
		case <-ctx.Done():
			st := r.Stats()
			log.Info("relay stopped", "stats", st.String())
			return st, nil
		case d, ok := <-in:
			if !ok {
				return r.Stats(), fmt.Errorf("relayd: the socket closed: %v", sock.Err())
			}
			if cfg.Tap != nil {
				cfg.Tap(true, d.From, d.Bytes)
			}
			r.Receive(d.From, d.Bytes, now())
			for {
				to, b, ok := r.Next()
				if !ok {
					break
				}
				if cfg.Tap != nil {
					cfg.Tap(false, to, b)
				}
				if err := sock.WriteTo(b, to); err != nil {
					log.Debug("send failed", "err", err)
				}
			}
		case <-tick.C:
			r.Poll(now())
			if cfg.Status != nil {
				fmt.Fprintf(cfg.Status, "relay %s\n", r.Stats())
			}
		}
	}
}

// serveUDP runs r on a UDP socket read by one goroutine that forwards
// each datagram as it reads it, with no hand-off to another: a
// datagram's cost is its read and its write. A ticker's goroutine polls
// r and writes the status line; a mutex keeps the two apart.
func serveUDP(ctx context.Context, cfg Config, r *relay.Relay, log *slog.Logger) (relay.Stats, error) {
	sock, err := udp.Listen(cfg.Addr)
	if err != nil {
		return relay.Stats{}, fmt.Errorf("relayd: %w", err)
	}
	sock.WithMax(relay.MaxDatagram)
	start := time.Now()
	now := func() transport.Time { return transport.Time(time.Since(start)) }
	log.Info("relay listening", "addr", sock.LocalAddr().String())
	if cfg.Ready != nil {
		cfg.Ready(sock.LocalAddr())
	}
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(StatusEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				sock.Close() // ends Serve
				return
			case <-done:
				return
			case <-tick.C:
				mu.Lock()
				r.Poll(now())
				st := r.Stats()
				mu.Unlock()
				if cfg.Status != nil {
					fmt.Fprintf(cfg.Status, "relay %s\n", st)
				}
			}
		}
	}()
	err = sock.Serve(func(from netip.AddrPort, b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if cfg.Tap != nil {
			cfg.Tap(true, from, b)
		}
		r.Receive(from, b, now())
		for {
			to, out, ok := r.Next()
			if !ok {
				return
			}
			if cfg.Tap != nil {
				cfg.Tap(false, to, out)
			}
			if err := sock.WriteTo(out, to); err != nil {
				log.Debug("send failed", "err", err)
			}
		}
	})
	close(done)
	wg.Wait()
	mu.Lock()
	st := r.Stats()
	mu.Unlock()
	if ctx.Err() != nil {
		log.Info("relay stopped", "stats", st.String())
		return st, nil
	}
	return st, fmt.Errorf("relayd: the socket failed: %w", err)
}
