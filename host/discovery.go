package host

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
	"vkm/host/browser"

	"vkm/host/lan"
)

// lanAnswerer answers LAN discovery requests (host/lan) on a socket of its
// own, from a goroutine of its own; the serving loop keeps players current.
type lanAnswerer struct {
	conn net.PacketConn
	// answer is what the server says of itself, but for the nonce and
	// players; loopbackOnly answers only this machine (a server that
	// listens on loopback).
	answer       lan.Answer
	loopbackOnly bool
	players      atomic.Int32
	done         chan struct{}
}

// startLAN listens for discovery requests on every interface at port,
// sharing the port with the other servers on this machine, and answers
// them with a. It returns nil (and logs once) if it cannot listen: a
// server that cannot be discovered still serves.
func startLAN(port int, a lan.Answer, loopbackOnly bool, log *slog.Logger) *lanAnswerer {
	lc := net.ListenConfig{Control: shareDiscoveryPort}
	conn, err := lc.ListenPacket(context.Background(), "udp4", net.JoinHostPort("0.0.0.0", strconv.Itoa(port)))
	if err != nil {
		log.Warn("LAN discovery is off: its port cannot be bound", "port", port, "err", err)
		return nil
	}
	l := &lanAnswerer{conn: conn, answer: a, loopbackOnly: loopbackOnly, done: make(chan struct{})}
	go l.serve()
	log.Info("answering LAN discovery", "port", port, "loopback_only", loopbackOnly)
	return l
}

func (l *lanAnswerer) serve() {
	defer close(l.done)
	start := time.Now()
	lim := lan.NewLimiter()
	buf := make([]byte, 2*lan.RequestSize)
	out := make([]byte, 0, lan.RequestSize)
	for {
		n, from, err := l.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		ua, ok := from.(*net.UDPAddr)
		if !ok {
			continue
		}
		src := ua.AddrPort()
		nonce, err := lan.ParseRequest(buf[:n])
		if err != nil || (l.loopbackOnly && !src.Addr().Unmap().IsLoopback()) || !lim.Allow(src.Addr().Unmap(), time.Since(start)) {
			continue
		}
		a := l.answer
		a.Nonce = nonce
		a.Players = uint16(max(0, min(int(l.players.Load()), 0xffff)))
		out = lan.AppendAnswer(out[:0], a)
		l.conn.WriteTo(out, from)
	}
}

// close stops answering and waits for the goroutine to end.
func (l *lanAnswerer) close() {
	l.conn.Close()
	<-l.done
}

// LANGame is one server that answered a LAN search: the address to play
// it at and what it said of itself.
type LANGame struct {
	Addr netip.AddrPort
	lan.Answer
}

// LANTargets are where a LAN search asks: the network (255.255.255.255)
// and this machine (127.255.255.255, which reaches every server sharing
// the port, where a datagram to 127.0.0.1 would reach one).
var LANTargets = []string{"255.255.255.255", "127.255.255.255"}

// SearchLAN broadcasts a discovery request on port (lan.Port for vkmd's
// default) to each of targets (LANTargets for a player's search; a test
// keeps to this machine's), and returns every distinct server that
// answered within wait, in the order they answered.
func SearchLAN(ctx context.Context, port int, wait time.Duration, targets []string) ([]LANGame, error) {
	lc := net.ListenConfig{Control: broadcastControl}
	conn, err := lc.ListenPacket(ctx, "udp4", "0.0.0.0:0")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var nb [8]byte
	rand.Read(nb[:])
	nonce := binary.BigEndian.Uint64(nb[:])
	req := lan.AppendRequest(nil, nonce)
	sent := 0
	var sendErr error
	for _, dst := range targets {
		ua, _ := net.ResolveUDPAddr("udp4", net.JoinHostPort(dst, strconv.Itoa(port)))
		if _, err := conn.WriteTo(req, ua); err != nil {
			sendErr = err
			continue
		}
		sent++
	}
	if sent == 0 {
		return nil, sendErr
	}
	deadline := time.Now().Add(wait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn.SetReadDeadline(deadline)
	var games []LANGame
	buf := make([]byte, 2*lan.RequestSize)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return games, nil
			}
			return games, err
		}
		a, err := lan.ParseAnswer(buf[:n])
		ua, ok := from.(*net.UDPAddr)
		if err != nil || a.Nonce != nonce || !ok {
			continue
		}
		g := LANGame{Addr: netip.AddrPortFrom(ua.AddrPort().Addr().Unmap(), a.Port), Answer: a}
		if !slices.ContainsFunc(games, func(o LANGame) bool { return o.Addr == g.Addr }) {
			games = append(games, g)
		}
	}
}

// pageLAN is the page's LAN search (browser.PageConfig.LAN): the
// network and this machine, on the server's discovery port; nil when the
// server answers no discovery.
func (c *ServeConfig) pageLAN() func(context.Context) ([]browser.LANGame, error) {
	if c.LAN == 0 || c.Net != nil {
		return nil
	}
	port, targets := c.LAN, LANTargets
	if c.lanTargets != nil {
		targets = c.lanTargets
	}
	return func(ctx context.Context) ([]browser.LANGame, error) {
		games, err := SearchLAN(ctx, port, lanSearchWait, targets)
		out := make([]browser.LANGame, 0, len(games))
		for _, g := range games {
			out = append(out, browser.LANGame{Addr: g.Addr.String(), Project: g.Project, Players: int(g.Players), Seats: int(g.Seats), Key: g.Key})
		}
		return out, err
	}
}

// lanSearchWait is how long the page's LAN search collects answers.
const lanSearchWait = time.Second
