package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pion/webrtc/v4"
)

// Label is the one data channel's label; a channel of any other label, or
// ordered, or retransmitting, is closed.
const Label = "vkm"

// serveOffer answers POST /vkm/offer: it admits the source, checks the
// offer, makes a peer connection for it, gathers, and answers. The peer
// then lives on its own goroutine until its channel closes, its connection
// fails, it never opens (ConnectTimeout) or the gateway closes.
func (g *Gateway) serveOffer(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		g.refuse(w, r, http.StatusForbidden, "the offer comes from another site's page")
		return
	}
	p, status, why := g.admit(sourceOf(r), kindRTC, g.now())
	if p == nil {
		g.refuse(w, r, status, why)
		return
	}
	live := false
	defer func() {
		if !live {
			g.forget(p)
		}
	}()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxOfferBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			g.refuse(w, r, http.StatusRequestEntityTooLarge, "the offer is over 32 KiB")
		} else {
			g.refuse(w, r, http.StatusBadRequest, "reading the offer: "+err.Error())
		}
		return
	}
	offer, err := ParseOffer(body)
	if err != nil {
		g.refuse(w, r, http.StatusBadRequest, err.Error())
		return
	}
	pc, err := g.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		g.refuse(w, r, http.StatusInternalServerError, "making a peer connection: "+err.Error())
		return
	}
	defer func() {
		if !live {
			pc.Close()
		}
	}()
	opened := make(chan struct{})
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		mr := dc.MaxRetransmits()
		if dc.Label() != Label || dc.Ordered() || mr == nil || *mr != 0 || p.dc.Load() != nil {
			// A vkm page opens one channel, as told; a peer that opens
			// another is not one, and goes.
			g.log.Debug("web channel refused", "addr", p.addr.String(), "label", dc.Label(), "ordered", dc.Ordered())
			dc.Close()
			p.close()
			return
		}
		// The peer opens now, not in OnOpen: its first message may be
		// handed on before that runs, and WriteTo must know its sender.
		if !p.dc.CompareAndSwap(nil, dc) || !g.open(p) {
			p.close()
			return
		}
		close(opened)
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			if m.IsString {
				g.drops.Add(1)
				return
			}
			g.deliver(p.addr, m.Data)
		})
		dc.OnClose(p.close)
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed {
			p.close()
		}
	})
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer.SDP}); err != nil {
		g.refuse(w, r, http.StatusBadRequest, "the offer: "+err.Error())
		return
	}
	answer, err := pc.CreateAnswer(nil)
	if err != nil {
		g.refuse(w, r, http.StatusBadRequest, "answering the offer: "+err.Error())
		return
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(answer); err != nil {
		g.refuse(w, r, http.StatusInternalServerError, "the answer: "+err.Error())
		return
	}
	timer := time.NewTimer(GatherTimeout)
	defer timer.Stop()
	select {
	case <-gathered:
	case <-timer.C:
		g.refuse(w, r, http.StatusServiceUnavailable, "gathering candidates took too long")
		return
	case <-r.Context().Done():
		g.refused.Add(1)
		return
	case <-p.ctx.Done():
		g.refuse(w, r, http.StatusServiceUnavailable, "the gateway is closing")
		return
	}
	out, err := json.Marshal(Description{Type: "answer", SDP: pc.LocalDescription().SDP})
	if err != nil {
		g.refuse(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	live = true
	go g.runRTC(p, pc, opened)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(out)
}

// runRTC waits for a peer's channel to open (at most ConnectTimeout) and
// then for its end, and forgets it.
func (g *Gateway) runRTC(p *peer, pc *webrtc.PeerConnection, opened <-chan struct{}) {
	defer g.forget(p)
	defer pc.Close()
	timer := time.NewTimer(ConnectTimeout)
	defer timer.Stop()
	select {
	case <-opened:
	case <-p.ctx.Done():
		return
	case <-timer.C:
		g.log.Debug("web peer never opened its channel", "addr", p.addr.String())
		return
	}
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
