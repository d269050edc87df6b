package web

import (
	"errors"
	"io"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// Voice rides on a browser's peer connection beside its data channel: the
// page offers one audio line it sends its microphone on (sendonly) and
// VoiceSlots audio lines it receives on (recvonly), and the gateway
// answers each receiving line with a track of its own. Nothing is
// renegotiated as speakers come and go: the serving loop decides, a few
// times a second, which speaker each listener's slot carries (a
// VoicePlan), and the gateway forwards each speaker's RTP packets, as
// they come, to the slots that carry it. It never mixes or decodes; it
// rewrites a forwarded packet's SSRC, payload type, sequence number and
// timestamp so that each slot is one unbroken stream, and drops its
// header extensions, which were negotiated for the speaker's line. A
// listener learns whose voice is on which slot from the serving loop
// (netmsg.Voice on the reliable channel), never from the media, and no
// peer learns another's address: every packet goes through the gateway.
//
// A speaker may send at most VoicePacketsPerSecond after a burst of
// VoiceBurst: Opus in 20 ms frames is 50 a second. What goes over, and
// what comes from a peer the plan does not let speak (not seated, or
// muted), is dropped and counted.

// VoiceSlots is how many voices a listener hears at once.
const VoiceSlots = 8

// The per-speaker cap.
const (
	VoicePacketsPerSecond = 60
	VoiceBurst            = 20
)

// opusFrame is the RTP timestamp step of a 20 ms Opus frame at 48 kHz:
// the gap a slot's stream is given when it changes speaker.
const opusFrame = 960

// VoicePlan is who may speak and who hears whom. The serving loop makes
// it from the seats and the project's rules, and hands the gateway a new
// one whenever it changes (SetVoicePlan); the gateway keeps it as given.
type VoicePlan struct {
	// Speakers are the peers whose voice is forwarded: seated players
	// not muted.
	Speakers map[netip.AddrPort]bool
	// Slots says, for each listener, which speaker each of its slots
	// carries; a zero address is an empty slot.
	Slots map[netip.AddrPort][VoiceSlots]netip.AddrPort
}

// VoiceStats counts the voice a gateway has relayed since it started.
type VoiceStats struct {
	// PacketsIn and BytesIn are the RTP packets (payload bytes) heard
	// from speakers; PacketsOut and BytesOut those forwarded to
	// listeners.
	PacketsIn, BytesIn, PacketsOut, BytesOut uint64
	// DroppedOverCap are packets over a speaker's cap; DroppedNotSpeaker
	// are packets from a peer the plan does not let speak.
	DroppedOverCap, DroppedNotSpeaker uint64
	// Tracks are the microphone tracks open now.
	Tracks int
}

// voiceRoute is one place a speaker's packets go: a listener's slot.
type voiceRoute struct {
	listener netip.AddrPort
	slot     int
}

// voiceRoutes is a plan as the forwarding reads it: by speaker.
type voiceRoutes struct {
	speakers map[netip.AddrPort]bool
	to       map[netip.AddrPort][]voiceRoute
}

// voiceState is the gateway's voice: its plan and counts.
type voiceState struct {
	routes                                   atomic.Pointer[voiceRoutes]
	packetsIn, bytesIn, packetsOut, bytesOut atomic.Uint64
	overCap, notSpeaker                      atomic.Uint64
	tracks                                   atomic.Int64
}

// peerVoice is one peer's voice: the slots it hears on and the cap on
// what it says.
type peerVoice struct {
	slots [VoiceSlots]*voiceSlot

	capMu  sync.Mutex
	tokens float64
	at     time.Time
}

// voiceSlot is one of a listener's slots: its track and how the packets
// of the speaker it carries now are renumbered onto it.
type voiceSlot struct {
	track *webrtc.TrackLocalStaticRTP

	mu      sync.Mutex
	from    netip.AddrPort // the speaker of the last packet sent
	started bool
	seqOff  uint16
	tsOff   uint32
	lastSeq uint16
	lastTS  uint32
}

// SetVoicePlan replaces the plan the gateway forwards voice by.
func (g *Gateway) SetVoicePlan(p VoicePlan) {
	r := &voiceRoutes{speakers: map[netip.AddrPort]bool{}, to: map[netip.AddrPort][]voiceRoute{}}
	for a, ok := range p.Speakers {
		if ok {
			r.speakers[a] = true
		}
	}
	for l, slots := range p.Slots {
		for i, s := range slots {
			if s.IsValid() && s != l {
				r.to[s] = append(r.to[s], voiceRoute{l, i})
			}
		}
	}
	g.voice.routes.Store(r)
}

// VoiceStats returns the gateway's voice counts so far.
func (g *Gateway) VoiceStats() VoiceStats {
	v := &g.voice
	return VoiceStats{
		PacketsIn: v.packetsIn.Load(), BytesIn: v.bytesIn.Load(),
		PacketsOut: v.packetsOut.Load(), BytesOut: v.bytesOut.Load(),
		DroppedOverCap: v.overCap.Load(), DroppedNotSpeaker: v.notSpeaker.Load(),
		Tracks: int(v.tracks.Load()),
	}
}

// offersVoice reports whether an offer has audio lines.
func offersVoice(sdp string) bool { return strings.Contains(sdp, "\nm=audio ") }

// opus is the one codec voice is carried in.
var opus = webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1"}

// prepareVoice gives p's connection, before it takes the offer, the
// tracks its receiving audio lines will be answered with, and reads the
// microphone track its sending line brings.
func (g *Gateway) prepareVoice(p *peer, pc *webrtc.PeerConnection) error {
	pv := &peerVoice{tokens: VoiceBurst, at: g.clock.Now()}
	for i := range pv.slots {
		t, err := webrtc.NewTrackLocalStaticRTP(opus, "voice"+string(rune('0'+i)), "vkm")
		if err != nil {
			return err
		}
		if _, err := pc.AddTransceiverFromTrack(t, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly}); err != nil {
			return err
		}
		pv.slots[i] = &voiceSlot{track: t}
	}
	p.voice.Store(pv)
	pc.OnTrack(func(t *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		if t.Kind() != webrtc.RTPCodecTypeAudio {
			return
		}
		g.voice.tracks.Add(1)
		defer g.voice.tracks.Add(-1)
		for {
			pkt, _, err := t.ReadRTP()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					g.log.Debug("voice track ended", "addr", p.addr.String(), "err", err)
				}
				return
			}
			g.forwardVoice(p, pv, pkt)
		}
	})
	return nil
}

// allow takes one packet from the speaker's cap at now, or says it is
// over.
func (pv *peerVoice) allow(now time.Time) bool {
	pv.capMu.Lock()
	defer pv.capMu.Unlock()
	pv.tokens = min(VoiceBurst, pv.tokens+now.Sub(pv.at).Seconds()*VoicePacketsPerSecond)
	pv.at = now
	if pv.tokens < 1 {
		return false
	}
	pv.tokens--
	return true
}

// forwardVoice sends a speaker's packet to every slot the plan puts it
// on, if the speaker may speak and is under its cap.
func (g *Gateway) forwardVoice(p *peer, pv *peerVoice, pkt *rtp.Packet) {
	v := &g.voice
	v.packetsIn.Add(1)
	v.bytesIn.Add(uint64(len(pkt.Payload)))
	r := v.routes.Load()
	if r == nil || !r.speakers[p.addr] || !p.welcomed.Load() {
		v.notSpeaker.Add(1)
		return
	}
	if !pv.allow(g.clock.Now()) {
		v.overCap.Add(1)
		return
	}
	routes := r.to[p.addr]
	if len(routes) == 0 {
		return
	}
	g.mu.RLock()
	var dst [VoiceSlots * 4]*voiceSlot
	n := 0
	for _, rt := range routes {
		if l := g.peers[rt.listener]; l != nil && n < len(dst) {
			if lv := l.voice.Load(); lv != nil {
				dst[n] = lv.slots[rt.slot]
				n++
			}
		}
	}
	g.mu.RUnlock()
	for _, s := range dst[:n] {
		if s.write(p.addr, pkt) == nil {
			v.packetsOut.Add(1)
			v.bytesOut.Add(uint64(len(pkt.Payload)))
		}
	}
}

// write sends a speaker's packet on the slot, renumbered to follow the
// slot's last packet when the speaker is not the one it carried last.
func (s *voiceSlot) write(from netip.AddrPort, pkt *rtp.Packet) error {
	s.mu.Lock()
	first := !s.started
	if first || s.from != from {
		next, nextTS := uint16(0), uint32(0)
		if s.started {
			next, nextTS = s.lastSeq+1, s.lastTS+opusFrame
		}
		s.seqOff, s.tsOff = next-pkt.SequenceNumber, nextTS-pkt.Timestamp
		s.from, s.started = from, true
	}
	out := rtp.Packet{Header: rtp.Header{
		Version: 2, Marker: pkt.Marker, PayloadType: pkt.PayloadType,
		SequenceNumber: pkt.SequenceNumber + s.seqOff, Timestamp: pkt.Timestamp + s.tsOff,
	}, Payload: pkt.Payload}
	if first || int16(out.SequenceNumber-s.lastSeq) > 0 {
		s.lastSeq, s.lastTS = out.SequenceNumber, out.Timestamp
	}
	s.mu.Unlock()
	return s.track.WriteRTP(&out)
}
