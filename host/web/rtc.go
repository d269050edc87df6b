package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pion/datachannel"
	"github.com/pion/webrtc/v4"

	"vkm/transport"
)

// Label is the one data channel's label; a channel of any other label, or
// ordered, or retransmitting, is closed.
const Label = "vkm"

// serveOffer answers POST /vkm/offer: it counts the attempt at the door,
// reads and checks the offer under OfferTimeout, admits it (a slot and an
// address), makes a peer connection for it, gathers, and answers. The
// peer then lives on its own goroutine until its channel closes, its
// connection fails, a deadline of its passes (watch) or the gateway
// closes.
func (g *Gateway) serveOffer(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		g.refuse(w, r, nil, refusal{http.StatusForbidden, "the offer comes from another site's page", reasonBadRequest, 0})
		return
	}
	p, no := g.enter(sourceOf(r), kindRTC)
	if no != nil {
		g.refuse(w, r, nil, *no)
		return
	}
	live := false
	defer func() {
		if !live {
			g.forget(p)
		}
	}()
	body, no := g.readOffer(w, r, p)
	if no != nil {
		g.refuse(w, r, p, *no)
		return
	}
	offer, err := ParseOffer(body)
	if err != nil {
		g.refuse(w, r, p, refusal{http.StatusBadRequest, err.Error(), reasonBadRequest, 0})
		return
	}
	if no := g.admit(p); no != nil {
		g.refuse(w, r, p, *no)
		return
	}
	voice := g.cfg.Voice && offersVoice(offer.SDP)
	api := g.dataAPI
	if voice {
		api = g.api
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		g.refuse(w, r, p, refusal{http.StatusInternalServerError, "making a peer connection: " + err.Error(), reasonFailed, 0})
		return
	}
	defer func() {
		if !live {
			pc.Close()
		}
	}()
	g.handleChannel(p, pc)
	if n := strings.Count(offer.SDP, "\nm=audio "); n > 1+VoiceSlots {
		g.refuse(w, r, p, refusal{http.StatusBadRequest, fmt.Sprintf("the offer has %d audio lines; a page offers %d at most", n, 1+VoiceSlots), reasonBadRequest, 0})
		return
	}
	if voice {
		if err := g.prepareVoice(p, pc); err != nil {
			g.refuse(w, r, p, refusal{http.StatusInternalServerError, "the voice tracks: " + err.Error(), reasonFailed, 0})
			return
		}
	}
	answer, no := g.answer(r, p, pc, offer)
	if no != nil {
		g.refuse(w, r, p, *no)
		return
	}
	if answer == nil {
		return // the request went away
	}
	live = true
	go g.runRTC(p, pc)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(answer)
}

// aLongTimeAgo is a read deadline that has passed: setting it ends a read
// under way.
var aLongTimeAgo = time.Unix(1, 0)

// readOffer reads an offer's body, at most MaxOfferBytes, within
// OfferTimeout of now on the gateway's clock (or until p ends, with the
// gateway), or says why not. The deadline ends a read under way by
// setting the connection's read deadline in the past.
func (g *Gateway) readOffer(w http.ResponseWriter, r *http.Request, p *peer) ([]byte, *refusal) {
	rc := http.NewResponseController(w)
	var timedOut atomic.Bool
	t := g.clock.AfterFunc(g.cfg.OfferTimeout, func() {
		timedOut.Store(true)
		rc.SetReadDeadline(aLongTimeAgo)
	})
	defer t.Stop()
	stop := context.AfterFunc(p.ctx, func() { rc.SetReadDeadline(aLongTimeAgo) })
	defer stop()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxOfferBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &tooLarge):
		return nil, &refusal{http.StatusRequestEntityTooLarge, "the offer is over 32 KiB", reasonBadRequest, 0}
	case timedOut.Load():
		return nil, &refusal{http.StatusRequestTimeout, fmt.Sprintf("the offer did not arrive within %v", g.cfg.OfferTimeout), reasonOfferTimeout, 0}
	case p.ctx.Err() != nil:
		return nil, &closing
	}
	return nil, &refusal{http.StatusBadRequest, "reading the offer: " + err.Error(), reasonClientClosed, 0}
}

// handleChannel opens p as its channel arrives, if it is the one a vkm
// page opens, and ends p with its connection.
func (g *Gateway) handleChannel(p *peer, pc *webrtc.PeerConnection) {
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		mr := dc.MaxRetransmits()
		if dc.Label() != Label || dc.Ordered() || mr == nil || *mr != 0 || p.dc.Load() != nil {
			// A vkm page opens one channel, as told; a peer that opens
			// another is not one, and goes.
			g.log.Debug("web channel refused", "addr", p.addr.String(), "label", dc.Label(), "ordered", dc.Ordered())
			dc.Close()
			p.end(reasonProtocol)
			return
		}
		// The peer opens now, not in OnOpen: its first message may be
		// handed on before that runs, and WriteTo must know its sender.
		if !p.dc.CompareAndSwap(nil, dc) || !g.open(p) {
			p.end(reasonShutdown)
			return
		}
		// The channel is detached (the gateway's SettingEngine): its
		// messages are read here, once it is open, into one buffer.
		dc.OnOpen(func() {
			ch, err := dc.Detach()
			if err != nil {
				g.log.Debug("web channel not detached", "addr", p.addr.String(), "err", err)
				p.end(reasonFailed)
				return
			}
			go g.readChannel(p, ch)
		})
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		switch s {
		case webrtc.PeerConnectionStateFailed:
			p.end(reasonFailed)
		case webrtc.PeerConnectionStateClosed:
			p.end(reasonClientClosed)
		}
	})
}

// readChannel hands on every binary message of p's channel until it
// closes; a text message is dropped, and one over transport.MaxDatagram
// ends p, as the answer told the browser the largest it may send.
func (g *Gateway) readChannel(p *peer, ch datachannel.ReadWriteCloser) {
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, isString, err := ch.ReadDataChannel(buf)
		switch {
		case errors.Is(err, io.ErrShortBuffer):
			g.drops.Add(1)
			p.end(reasonProtocol)
			return
		case err != nil:
			p.end(reasonClientClosed)
			return
		case isString:
			g.drops.Add(1)
			continue
		}
		g.deliver(p, append([]byte(nil), buf[:n]...))
	}
}

// answer takes the offer, gathers and returns the answer's body, or says
// why not; nil and no refusal when the request went away first.
func (g *Gateway) answer(r *http.Request, p *peer, pc *webrtc.PeerConnection, offer Description) ([]byte, *refusal) {
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer.SDP}); err != nil {
		return nil, &refusal{http.StatusBadRequest, "the offer: " + err.Error(), reasonBadRequest, 0}
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		return nil, &refusal{http.StatusBadRequest, "answering the offer: " + err.Error(), reasonBadRequest, 0}
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(answer); err != nil {
		return nil, &refusal{http.StatusInternalServerError, "the answer: " + err.Error(), reasonFailed, 0}
	}
	timer := time.NewTimer(GatherTimeout)
	defer timer.Stop()
	select {
	case <-gathered:
	case <-timer.C:
		return nil, &refusal{http.StatusServiceUnavailable, "gathering candidates took too long", reasonFailed, 0}
	case <-r.Context().Done():
		g.refused.Add(1)
		p.end(reasonClientClosed)
		return nil, nil
	case <-p.ctx.Done():
		// Closing, or past its handshake deadline while gathering.
		return nil, &closing
	}
	out, err := json.Marshal(Description{Type: "answer", SDP: pc.LocalDescription().SDP})
	if err != nil {
		return nil, &refusal{http.StatusInternalServerError, err.Error(), reasonFailed, 0}
	}
	return out, nil
}

// runRTC waits for an answered peer's end, and forgets it.
func (g *Gateway) runRTC(p *peer, pc *webrtc.PeerConnection) {
	defer g.forget(p)
	defer pc.Close()
	<-p.ctx.Done()
}

// sameOrigin reports whether a request comes from a page of the site it
// is sent to, or from no page at all (no Origin header: a native client):
// the rule the WebSocket library keeps for upgrades, so another site's
// page cannot make a player's browser connect.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
