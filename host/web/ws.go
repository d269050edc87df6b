package web

import (
	"context"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"vkm/transport"
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
// per datagram until the connection ends.
func (g *Gateway) serveWS(w http.ResponseWriter, r *http.Request) {
	p, status, why := g.admit(sourceOf(r), kindWS, g.now())
	if p == nil {
		g.refuse(w, r, status, why)
		return
	}
	defer g.forget(p)
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		g.refused.Add(1)
		g.log.Debug("web socket refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	defer ws.CloseNow()
	// A message over the largest datagram ends the connection: no vkm
	// client sends one.
	ws.SetReadLimit(transport.MaxDatagram)
	p.wsq = make(chan []byte, wsQueue)
	if !g.open(p) {
		return // the gateway is closing
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		defer p.close()
		g.writeWS(p, ws)
	}()
	for {
		typ, b, err := ws.Read(p.ctx)
		if err != nil {
			break
		}
		if typ != websocket.MessageBinary {
			break // not a vkm client: ended without a closing handshake
		}
		g.deliver(p.addr, b)
	}
	p.close()
	<-wrote
}

// writeWS sends a WebSocket peer's queue until the peer ends.
func (g *Gateway) writeWS(p *peer, ws *websocket.Conn) {
	for {
		select {
		case <-p.ctx.Done():
			return
		case b := <-p.wsq:
			ctx, cancel := context.WithTimeout(p.ctx, wsWriteTimeout)
			err := ws.Write(ctx, websocket.MessageBinary, b)
			cancel()
			p.wsUnsent.Add(-1)
			if err != nil {
				return
			}
		}
	}
}
