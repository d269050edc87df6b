//go:build !js

package view

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vkm/internal/entity"
)

// MaxConns bounds the pages connected at once. One player watches one page;
// a few more cover reloads and a second window without letting a runaway
// script open connections without end.
const MaxConns = 8

// Tuning.
const (
	// writeTimeout is how long one message may take to write. A page that
	// takes nothing for this long is gone (a suspended laptop, a dead
	// route); its connection is closed and its held input released.
	writeTimeout = 10 * time.Second

	// readHeaderTimeout bounds how long an HTTP request's headers may take.
	readHeaderTimeout = 10 * time.Second

	// idleTimeout closes a kept-alive HTTP connection that has asked for
	// nothing this long.
	idleTimeout = time.Minute
)

// Config says where to serve the page and what it controls.
type Config struct {
	// Addr is the TCP address to listen on, e.g. "127.0.0.1:8080"; port 0
	// picks a free port (see Server.Addr). It is required.
	Addr string

	// Actions are the project's input actions in command order.
	Actions Actions

	// ViewWidth is how many metres of the world the page shows across
	// around the own entity; 0 leaves it to the page (32 m).
	ViewWidth float64

	// Title is the page's title (the project's); "" leaves the page's.
	Title string

	// Camera is how the page frames the world; the zero Camera follows
	// the own entity.
	Camera Camera

	// Icon is the page's icon, PNG bytes served as /favicon.ico; nil
	// serves DefaultIcon.
	Icon []byte

	// Sounds are the project's sounds, which the page plays for events.
	Sounds []Sound

	// Renderer is the project's renderer script under /asset/; "" draws
	// with the page's own drawing.
	Renderer string

	// Assets are the project's files the page's sprites and sounds are
	// read from, served at /asset/PATH (see ServeAsset); nil serves none.
	Assets fs.FS

	// Logger receives connection events; nil discards them.
	Logger *slog.Logger

	// OnLink, if set, is called with the link simulator's new setting when
	// the page's sliders change it, already clamped to MaxLatency,
	// MaxJitter and MaxLoss. It is called from a connection's goroutine,
	// one call at a time. When nil, the page shows no link sliders.
	OnLink func(Link)

	// OnChat, if set, is called with each chat line the page's player
	// types (chat.go), from a connection's goroutine. When nil, chat
	// messages from the page are ignored.
	OnChat func(text string)

	// OnSend, if set, is called with each project message the page's
	// code sends (vkm.send; send.go), from a connection's goroutine.
	// When nil, send messages from the page are ignored.
	OnSend func(PageSend)

	// OnInspect, if set, is called with the entity the developer picks
	// in the page to inspect (entity.None for none; inspect.go), from a
	// connection's goroutine.
	OnInspect func(entity.ID)
}

// Server serves the page and its WebSocket. Its methods are safe for
// concurrent use.
type Server struct {
	cfg    Config
	log    *slog.Logger
	opt    options
	ln     net.Listener
	http   *http.Server
	ctx    context.Context // ends when the server closes
	cancel context.CancelFunc
	stop   func() bool // undoes the AfterFunc on Start's context
	name   string      // the host name of Config.Addr, "" for an IP address
	wg     sync.WaitGroup

	actions *actionIndex
	hello   []byte
	in      *inputState
	linkMu  sync.Mutex // serialises Config.OnLink calls

	mu       sync.Mutex // guards what follows
	closed   bool
	active   int // WebSocket handlers running, for MaxConns
	conns    map[*conn]struct{}
	seq      uint64 // frames published
	scene    []byte // the scene message, nil before SetScene
	sceneVer uint64
	link     Link
	linkMsg  []byte
	linkVer  uint64
	board    []byte // the board message, nil before SetBoard
	boardVer uint64
	chat     chatState // the chat log's message (chat.go)
	// corr is the corrections message, nil before SetCorrections.
	corr    []byte
	corrVer uint64

	published, sent, dropped, bad, refused atomic.Uint64
}

// options are settings tests change.
type options struct {
	writeTimeout time.Duration
	// onMessage, if set, is called after each message from a page has been
	// handled, with the error that made it be ignored.
	onMessage func(error)
	// onClose, if set, is called when a page's connection has ended and
	// its input has been released.
	onClose func()
}

// Stats counts what a Server has done.
type Stats struct {
	Conns     int    // pages connected now
	Published uint64 // Publish calls made while a page was connected
	Sent      uint64 // frame messages written to pages
	Dropped   uint64 // frames replaced by a newer one before being written
	Bad       uint64 // messages from pages ignored as malformed or unknown
	Refused   uint64 // connections refused: over MaxConns, bad host or origin
}

// Start listens on cfg.Addr and serves the page at "/" and its WebSocket at
// "/ws" until ctx ends or Close is called.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	return start(ctx, cfg, options{writeTimeout: writeTimeout})
}

func start(ctx context.Context, cfg Config, opt options) (*Server, error) {
	if cfg.Addr == "" {
		return nil, errors.New("view: no address to listen on")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	s := &Server{cfg: cfg, opt: opt, ln: ln, log: cfg.Logger, conns: map[*conn]struct{}{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if h, _, err := net.SplitHostPort(cfg.Addr); err == nil {
		if _, err := netip.ParseAddr(h); err != nil {
			s.name = h
		}
	}
	s.actions = newActionIndex(&cfg.Actions)
	s.hello = encodeHello(&cfg.Actions, cfg.ViewWidth, pageHello{Title: cfg.Title, Camera: &cfg.Camera, Renderer: cfg.Renderer, Sounds: cfg.Sounds})
	s.in = newInputState(&cfg.Actions)
	s.linkMsg = encodeLink(Link{}, cfg.OnLink != nil)
	s.linkVer = 1
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.http = &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		// A keep-alive connection that asks for nothing more is closed:
		// the page's own connections are few, and nothing else may hold
		// connections open forever. WebSockets are hijacked and unaffected.
		IdleTimeout: idleTimeout,
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
		BaseContext: func(net.Listener) context.Context { return s.ctx },
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.http.Serve(ln)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("view server stopped", "err", err)
		}
	}()
	s.stop = context.AfterFunc(ctx, func() { s.Close() })
	s.log.Info("view listening", "addr", s.Addr())
	return s, nil
}

// Addr returns the address the server listens on, with the port it was
// given when Config.Addr asked for port 0.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Pages returns how many pages are connected and take frames. A page's
// WebSocket is open a moment before it takes frames: Publish before then
// reaches it not at all, only the next one does.
func (s *Server) Pages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Close stops serving, closes every page's connection and waits for their
// goroutines. Input held by a page is released. Close may be called more
// than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.cancel()
	err := s.http.Close()
	s.wg.Wait()
	return err
}

// Stats returns the server's counts so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.conns)
	s.mu.Unlock()
	return Stats{
		Conns:     n,
		Published: s.published.Load(),
		Sent:      s.sent.Load(),
		Dropped:   s.dropped.Load(),
		Bad:       s.bad.Load(),
		Refused:   s.refused.Load(),
	}
}

// TakeInput returns the page's input in command order: each axis's value
// in -1..1, whether each button is held, and whether each button went down
// at any time since the previous call (so a press and release between two
// ticks is not lost). With no page driving the input, everything is
// released. The slices are new on each call.
func (s *Server) TakeInput() (axes []float64, held, pressed []bool) {
	return s.in.take()
}

// TakeInputOf is TakeInput for local player player: 0 the page's own,
// 1..MaxLocal-1 a guest (see Actions.Guests).
func (s *Server) TakeInputOf(player int) (axes []float64, held, pressed []bool) {
	return s.in.takeOf(player)
}

// SetScene sets what entities look like. Every page is sent the scene when
// it connects and again after each change; a call that changes nothing
// sends nothing. sc is not kept.
func (s *Server) SetScene(sc Scene) {
	b := encodeScene(&sc)
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(b) == string(s.scene) {
		return
	}
	s.scene = b
	s.sceneVer++
	s.pokeLocked()
}

// SetBoard sets the scoreboard. Every page is sent it when it connects
// and again after each change; a call that changes nothing sends nothing.
// b is not kept.
func (s *Server) SetBoard(b Board) {
	msg := encodeBoard(&b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(msg) == string(s.board) {
		return
	}
	s.board = msg
	s.boardVer++
	s.pokeLocked()
}

// SetLink sets the link simulator's setting the page's sliders show, for
// example the profile the client started with. It does not call
// Config.OnLink. l is clamped like a setting from the page.
func (s *Server) SetLink(l Link) {
	l = clampLink(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLinkLocked(l)
}

func (s *Server) setLinkLocked(l Link) {
	s.link = l
	s.linkMsg = encodeLink(l, s.cfg.OnLink != nil)
	s.linkVer++
	s.pokeLocked()
}

// SetChat sets the chat log every page shows; a call that changes nothing
// sends nothing. lines is not kept.
func (s *Server) SetChat(lines []ChatLine) {
	if s.chat.set(encodeChat(lines)) {
		s.mu.Lock()
		s.pokeLocked()
		s.mu.Unlock()
	}
}

// Publish sends f to every connected page. It never blocks on a page: each
// connection holds the newest frame not yet written, and a frame replaced
// before it was written is dropped and counted. f is encoded before Publish
// returns, so the caller may reuse its slices.
func (s *Server) Publish(f Frame) {
	s.mu.Lock()
	n := len(s.conns)
	s.seq++
	seq := s.seq
	s.mu.Unlock()
	if n == 0 {
		return
	}
	s.published.Add(1)
	b := encodeFrame(seq, &f)
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.offer(b)
	}
}

// pokeLocked wakes every connection's writer. s.mu must be held.
func (s *Server) pokeLocked() {
	for c := range s.conns {
		c.poke()
	}
}

// state returns the scene and link messages and their versions.
func (s *Server) state() (scene []byte, sceneVer uint64, link []byte, linkVer uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scene, s.sceneVer, s.linkMsg, s.linkVer
}

// SetCorrections sets the network panel's list of the client's latest
// corrections, oldest first. Every page is sent it when it connects and
// again after each change; a call that changes nothing sends nothing.
func (s *Server) SetCorrections(list []Correction) {
	msg := encodeCorrections(list)
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(msg) == string(s.corr) {
		return
	}
	s.corr = msg
	s.corrVer++
	s.pokeLocked()
}

// corrState returns the corrections message and its version.
func (s *Server) corrState() ([]byte, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.corr, s.corrVer
}

// boardState returns the board message and its version.
func (s *Server) boardState() ([]byte, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.board, s.boardVer
}

// hostOK reports whether a request's Host names this server as an IP
// address, localhost or Config.Addr's host name. A page from any other name
// that resolves to this address (DNS rebinding) is refused, since the
// WebSocket's origin check compares the origin with that very name.
func (s *Server) hostOK(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return false
		}
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return strings.EqualFold(host, "localhost") || (s.name != "" && strings.EqualFold(host, s.name))
}
