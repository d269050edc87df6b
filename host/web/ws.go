package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"vkm/transport"
	"vkm/transport/udp"
)

// Limits of a WebSocket peer.
const (
	// wsQueue is how many datagrams may wait for a WebSocket peer's
	// writer; past it they are dropped (TCP is already behind).
	wsQueue = 64
	// wsWriteTimeout ends a peer whose connection takes no datagram for
	// this long.
	wsWriteTimeout = 10 * time.Second
)

// serveWS answers GET /vkm/ws: it admits the source, upgrades (the
// library refuses another site's page), and carries one binary message
// per datagram until the connection ends or a deadline of the peer's
// passes (watch).
func (g *Gateway) serveWS(w http.ResponseWriter, r *http.Request) {
	p, no := g.enter(sourceOf(r), kindWS)
	if no != nil {
		g.refuse(w, r, nil, *no)
		return
	}
	defer g.forget(p)
	if no := g.admit(p); no != nil {
		g.refuse(w, r, p, *no)
		return
	}
	// net/http clears the server's deadlines (ReadTimeout) on the
	// connection it hands over: the socket's silence is judged by the
	// peer's deadlines (watch) instead.
	ws, err := websocket.Accept(hijacking{w}, r, nil)
	if err != nil {
		g.refused.Add(1)
		p.end(reasonBadRequest)
		g.log.Debug("web socket refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	defer ws.CloseNow()
	// A message over the largest datagram ends the connection: no vkm
	// client sends one.
	ws.SetReadLimit(transport.MaxDatagram)
	p.q = make(chan []byte, wsQueue)
	if !g.open(p) {
		return // the gateway is closing
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		g.writeWS(p, ws)
	}()
	p.end(g.readWS(p, ws))
	<-wrote
}

// hijacking is a WebSocket request's ResponseWriter as the library is
// given it: the connection it takes over is udp.PollerStreamConn's.
type hijacking struct{ http.ResponseWriter }

// Hijack takes the connection over from the HTTP server, as
// http.Hijacker's does.
func (h hijacking) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	wc := udp.PollerStreamConn(c)
	// The library writes through brw's writer, which net/http made on the
	// plain connection: it is pointed at wc, what it holds sent first.
	if err := brw.Flush(); err != nil {
		c.Close()
		return nil, nil, err
	}
	brw.Writer.Reset(wc)
	return wc, brw, nil
}

// readWS hands on a WebSocket peer's messages until its connection ends,
// and says why it did.
func (g *Gateway) readWS(p *peer, ws *websocket.Conn) reason {
	for {
		typ, b, err := ws.Read(p.ctx)
		switch {
		case err == nil && typ != websocket.MessageBinary:
			return reasonProtocol // not a vkm client: ended without a closing handshake
		case err == nil:
			g.deliver(p, b)
		case errors.Is(err, websocket.ErrMessageTooBig):
			return reasonProtocol
		case websocket.CloseStatus(err) != -1 || errors.Is(err, io.EOF):
			return reasonClientClosed
		default:
			return reasonFailed // or ended already, whose reason stands
		}
	}
}

// writeWS sends a WebSocket peer's queue until the peer ends.
func (g *Gateway) writeWS(p *peer, ws *websocket.Conn) {
	for {
		select {
		case <-p.ctx.Done():
			return
		case b := <-p.q:
			ctx, cancel := context.WithTimeout(p.ctx, wsWriteTimeout)
			err := ws.Write(ctx, websocket.MessageBinary, b) // framed into its buffer before it returns
			cancel()
			p.unsent.Add(-1)
			putDatagram(b)
			if err != nil {
				p.end(reasonFailed)
				return
			}
		}
	}
}
