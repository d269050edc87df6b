//go:build !js

package view

import (
	"context"
	"embed"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

//go:embed page
var pageFS embed.FS

// pageFiles are the page's files by URL path, with their content types.
var pageFiles = map[string]struct{ file, ctype string }{
	"/":                {"page/index.html", "text/html; charset=utf-8"},
	"/vkm.js":          {"page/vkm.js", "text/javascript; charset=utf-8"},
	"/chat.js":         {"page/chat.js", "text/javascript; charset=utf-8"},
	"/vkm.css":         {"page/vkm.css", "text/css; charset=utf-8"},
	"/vkm-hud.js":      {"page/vkm-hud.js", "text/javascript; charset=utf-8"},
	"/vkm-controls.js": {"page/vkm-controls.js", "text/javascript; charset=utf-8"},
	"/vkm-camera.js":   {"page/vkm-camera.js", "text/javascript; charset=utf-8"},
	"/vkm-looks.js":    {"page/vkm-looks.js", "text/javascript; charset=utf-8"},
	"/vkm-sprites.js":  {"page/vkm-sprites.js", "text/javascript; charset=utf-8"},
	"/vkm-sound.js":    {"page/vkm-sound.js", "text/javascript; charset=utf-8"},
}

// contentSecurityPolicy lets the page load only itself and talk only to its
// own server, and keeps it out of other sites' frames.
const contentSecurityPolicy = "default-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	for path := range pageFiles {
		pattern := "GET " + path
		if path == "/" {
			pattern = "GET /{$}"
		}
		mux.HandleFunc(pattern, s.servePage)
	}
	mux.HandleFunc("GET /ws", s.serveWS)
	mux.HandleFunc("GET /asset/{path...}", func(w http.ResponseWriter, r *http.Request) {
		ServeAsset(w, r, s.cfg.Assets, r.PathValue("path"))
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		ServeIcon(w, s.cfg.Icon)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostOK(r.Host) {
			s.refused.Add(1)
			http.Error(w, "view: this server is reached as localhost or by its address", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// ServeIcon writes icon (PNG bytes; nil for DefaultIcon) as the page's
// /favicon.ico.
func ServeIcon(w http.ResponseWriter, icon []byte) {
	if icon == nil {
		icon = DefaultIcon()
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	w.Write(icon)
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	f := pageFiles[r.URL.Path]
	b, err := pageFS.ReadFile(f.file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	w.Write(b)
}

// serveWS runs one page's connection: this goroutine reads the page's
// messages while another writes to it, until either fails or the server
// closes.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		s.refused.Add(1)
		http.Error(w, "view: too many pages connected", http.StatusServiceUnavailable)
		return
	}
	defer s.leave()
	// No AcceptOptions: the library refuses an Origin other than the
	// request's own host, which is what keeps other sites' pages out.
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.refused.Add(1)
		s.log.Debug("view connection refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	ws.SetReadLimit(maxMessageBytes)
	c := &conn{s: s, ws: ws, wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(s.ctx)
	s.add(c)
	s.log.Info("view connected", "remote", r.RemoteAddr)
	done := make(chan error, 1)
	go func() {
		done <- c.writeLoop(ctx)
		cancel()
	}()
	err = c.readLoop(ctx)
	cancel()
	werr := <-done
	s.remove(c)
	s.in.release(c)
	ws.CloseNow()
	s.log.Info("view disconnected", "remote", r.RemoteAddr, "read_err", err, "write_err", werr)
	if s.opt.onClose != nil {
		s.opt.onClose()
	}
}

// enter reserves a connection, or reports false when the server is closed
// or MaxConns pages are connected.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.active >= MaxConns {
		return false
	}
	s.active++
	s.wg.Add(1)
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) add(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns[c] = struct{}{}
}

func (s *Server) remove(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// conn is one page's WebSocket.
type conn struct {
	s    *Server
	ws   *websocket.Conn
	wake chan struct{} // capacity 1: a pending wake-up covers any number of pokes

	mu    sync.Mutex // guards frame
	frame []byte     // newest frame not yet written; nil when none

	// Versions of the scene and link messages this page was last sent;
	// only the writer goroutine uses them.
	sceneVer, linkVer, boardVer, corrVer, chatVer uint64
}

// offer makes b the frame to write next, dropping the one it replaces.
func (c *conn) offer(b []byte) {
	c.mu.Lock()
	if c.frame != nil {
		c.s.dropped.Add(1)
	}
	c.frame = b
	c.mu.Unlock()
	c.poke()
}

// poke wakes the writer without waiting.
func (c *conn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) takeFrame() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.frame
	c.frame = nil
	return b
}

// writeLoop sends the hello, then whatever is new each time it is woken:
// the scene, the link setting, the board and the newest frame, in that
// order.
func (c *conn) writeLoop(ctx context.Context) error {
	if err := c.write(ctx, c.s.hello); err != nil {
		return err
	}
	for {
		if err := c.flush(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.wake:
		}
	}
}

func (c *conn) flush(ctx context.Context) error {
	// The frame is taken before the state is read, so a scene set before
	// that frame was published goes out ahead of it.
	frame := c.takeFrame()
	scene, sv, link, lv := c.s.state()
	if sv != c.sceneVer && scene != nil {
		if err := c.write(ctx, scene); err != nil {
			return err
		}
		c.sceneVer = sv
	}
	if lv != c.linkVer {
		if err := c.write(ctx, link); err != nil {
			return err
		}
		c.linkVer = lv
	}
	if board, bv := c.s.boardState(); bv != c.boardVer && board != nil {
		if err := c.write(ctx, board); err != nil {
			return err
		}
		c.boardVer = bv
	}
	if chat, cv := c.s.chat.get(); cv != c.chatVer && chat != nil {
		if err := c.write(ctx, chat); err != nil {
			return err
		}
		c.chatVer = cv
	}
	if corr, cv := c.s.corrState(); cv != c.corrVer && corr != nil {
		if err := c.write(ctx, corr); err != nil {
			return err
		}
		c.corrVer = cv
	}
	if frame == nil {
		return nil
	}
	if err := c.write(ctx, frame); err != nil {
		return err
	}
	c.s.sent.Add(1)
	return nil
}

func (c *conn) write(ctx context.Context, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.s.opt.writeTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// readLoop handles the page's messages until the connection fails.
func (c *conn) readLoop(ctx context.Context) error {
	for {
		typ, b, err := c.ws.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			err = errMalformed
		} else {
			err = c.s.handle(c, b)
		}
		if err != nil {
			c.s.bad.Add(1)
			c.s.log.Debug("view message ignored", "err", err)
		}
		if c.s.opt.onMessage != nil {
			c.s.opt.onMessage(err)
		}
	}
}

// handle acts on one message from c.
func (s *Server) handle(c *conn, b []byte) error {
	m, err := parseMessage(b, s.actions)
	if err != nil {
		return err
	}
	switch m.kind {
	case msgInput:
		s.in.apply(c, &m)
	case msgChat:
		if s.cfg.OnChat != nil && m.text != "" {
			s.cfg.OnChat(m.text)
		}
	case msgSend:
		if s.cfg.OnSend != nil {
			s.cfg.OnSend(m.send)
		}
	case msgInspect:
		if s.cfg.OnInspect != nil {
			s.cfg.OnInspect(m.id)
		}
	case msgLink:
		if s.cfg.OnLink == nil {
			return errNoLink
		}
		s.linkMu.Lock()
		defer s.linkMu.Unlock()
		s.mu.Lock()
		l := m.link.apply(s.link)
		s.mu.Unlock()
		s.cfg.OnLink(l)
		s.mu.Lock()
		s.setLinkLocked(l)
		s.mu.Unlock()
	}
	return nil
}
