package web

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"vkm/transport/handshake"
)

func welcomeHeader() []byte {
	return handshake.Header{Version: handshake.Version, Kind: handshake.KindWelcome}.Append(nil)
}

// voicePeer is a test's browser with voice: the data channel, a
// microphone track it sends on and VoiceSlots lines it receives on, as
// the page offers them, with the packets each slot has received counted.
type voicePeer struct {
	pc   *webrtc.PeerConnection
	dc   *webrtc.DataChannel
	mic  *webrtc.TrackLocalStaticRTP
	recv [VoiceSlots]*webrtc.RTPTransceiver
	got  [VoiceSlots]atomic.Int64
	addr netip.AddrPort
	seq  uint16
	// arrived hears every packet received (for waiting).
	arrived chan int
	// in hears the datagrams the gateway sends.
	in chan []byte
	// seqs and stamps are what each slot received: the packets'
	// sequence numbers and timestamps, and their payloads' first bytes.
	mu     sync.Mutex
	seqs   [VoiceSlots][]uint16
	stamps [VoiceSlots][]uint32
	firsts [VoiceSlots][]byte
}

// dialVoice connects a voice peer to the gateway at url and learns its
// address there (one datagram each way), welcoming it.
func dialVoice(t *testing.T, g *Gateway, url string) *voicePeer {
	t.Helper()
	v := dialVoiceAt(t, url)
	v.addr = receive(t, g).From
	if err := g.WriteTo(welcomeHeader(), v.addr); err != nil {
		t.Fatal(err)
	}
	v.welcomed(t)
	return v
}

// welcomed waits for the gateway's first datagram to the peer.
func (v *voicePeer) welcomed(t *testing.T) {
	t.Helper()
	select {
	case <-v.in:
	case <-time.After(testTimeout):
		t.Fatal("the welcome did not arrive")
	}
}

// dialVoiceAt connects a voice peer to the gateway at url, as a page
// does, and sends it one datagram.
func dialVoiceAt(t *testing.T, url string) *voicePeer {
	t.Helper()
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	pc, err := webrtc.NewAPI(webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	v := &voicePeer{pc: pc, arrived: make(chan int, 4096)}
	none, ordered := uint16(0), false
	if v.dc, err = pc.CreateDataChannel(Label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none}); err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{})
	v.dc.OnOpen(func() { close(opened) })
	v.in = make(chan []byte, 16)
	v.dc.OnMessage(func(m webrtc.DataChannelMessage) {
		select {
		case v.in <- m.Data:
		default:
		}
	})
	if v.mic, err = webrtc.NewTrackLocalStaticRTP(opus, "mic", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.AddTransceiverFromTrack(v.mic, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly}); err != nil {
		t.Fatal(err)
	}
	for i := range v.recv {
		if v.recv[i], err = pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
			t.Fatal(err)
		}
	}
	pc.OnTrack(func(tr *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
		slot := -1
		for i, x := range v.recv {
			if x.Receiver() == r {
				slot = i
			}
		}
		for {
			pkt, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			if slot >= 0 {
				v.mu.Lock()
				v.seqs[slot] = append(v.seqs[slot], pkt.SequenceNumber)
				v.stamps[slot] = append(v.stamps[slot], pkt.Timestamp)
				v.firsts[slot] = append(v.firsts[slot], pkt.Payload[0])
				v.mu.Unlock()
				v.got[slot].Add(1)
				select {
				case v.arrived <- slot:
				default:
				}
			}
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	ctx := ctxFor(t)
	answer, err := postOffer(ctx, nil, url, Description{Type: "offer", SDP: pc.LocalDescription().SDP})
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer.SDP}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-opened:
	case <-ctx.Done():
		t.Fatal("the data channel did not open")
	}
	if err := v.dc.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	return v
}

// say sends n voice packets from the peer's microphone.
func (v *voicePeer) say(t *testing.T, n int) { v.sayAs(t, n, 0xf8) }

// sayAs is say with the payloads' first byte.
func (v *voicePeer) sayAs(t *testing.T, n int, first byte) {
	t.Helper()
	for range n {
		v.seq++
		pkt := &rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 111, SequenceNumber: v.seq, Timestamp: uint32(v.seq) * opusFrame}, Payload: []byte{first, 0xff, 0xfe}}
		if err := v.mic.WriteRTP(pkt); err != nil {
			t.Fatal(err)
		}
	}
}

// heard waits until the peer's slots have received want packets in all.
func (v *voicePeer) heard(t *testing.T, want int64) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		var n int64
		for i := range v.got {
			n += v.got[i].Load()
		}
		if n >= want {
			return
		}
		select {
		case <-v.arrived:
		case <-deadline:
			t.Fatalf("the peer heard %d packets, want %d", n, want)
		}
	}
}

// voiceUntil waits until the gateway's voice counts satisfy cond.
func voiceUntil(t *testing.T, g *Gateway, what string, cond func(VoiceStats) bool) VoiceStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for {
		s := g.VoiceStats()
		if cond(s) {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: never; voice %+v", what, s)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func threeVoices(t *testing.T) (*Gateway, *voicePeer, *voicePeer, *voicePeer) {
	t.Helper()
	g, srv, _, _ := start(t, Config{Voice: true})
	return g, dialVoice(t, g, srv.URL), dialVoice(t, g, srv.URL), dialVoice(t, g, srv.URL)
}

func slots(speakers ...netip.AddrPort) (s [VoiceSlots]netip.AddrPort) {
	copy(s[:], speakers)
	return s
}

func TestVoiceGoesWhereTheRoutesSay(t *testing.T) {
	g, a, b, c := threeVoices(t)
	// a speaks; b hears a on its slot 2; c hears nobody.
	var s2 [VoiceSlots]netip.AddrPort
	s2[2] = a.addr
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{a.addr: true, b.addr: true, c.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{b.addr: s2, c.addr: {}},
	})
	a.say(t, 10)
	b.heard(t, 10)
	st := voiceUntil(t, g, "ten forwarded", func(s VoiceStats) bool { return s.PacketsOut == 10 })
	if got := b.got[2].Load(); got != 10 {
		t.Errorf("b's slot 2 got %d packets, want 10", got)
	}
	for i := range c.got {
		if n := c.got[i].Load(); n != 0 {
			t.Errorf("c, routed nobody, got %d packets on slot %d", n, i)
		}
	}
	if st.DroppedOverCap != 0 || st.DroppedNotSpeaker != 0 {
		t.Errorf("drops %+v, want none", st)
	}

	// The plan changes: c hears a on slot 0 and b hears nobody.
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{a.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{c.addr: slots(a.addr)},
	})
	a.say(t, 5)
	c.heard(t, 5)
	voiceUntil(t, g, "fifteen forwarded", func(s VoiceStats) bool { return s.PacketsOut == 15 })
	if got := b.got[2].Load(); got != 10 {
		t.Errorf("b, no longer routed a, has %d packets, want the 10 of before", got)
	}
	if got := c.got[0].Load(); got != 5 {
		t.Errorf("c's slot 0 got %d, want 5", got)
	}
}

func TestAnUnseatedPeerCannotSendVoice(t *testing.T) {
	g, a, b, _ := threeVoices(t)
	// a is routed to b, but the plan does not let a speak: the serving
	// loop lists seated players alone.
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{b.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{b.addr: slots(a.addr)},
	})
	a.say(t, 8)
	st := voiceUntil(t, g, "eight dropped", func(s VoiceStats) bool { return s.DroppedNotSpeaker == 8 })
	if st.PacketsOut != 0 {
		t.Errorf("%d packets of an unseated peer forwarded, want 0", st.PacketsOut)
	}
}

func TestAVoiceOverItsCapIsDroppedAndCounted(t *testing.T) {
	g, a, b, _ := threeVoices(t)
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{a.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{b.addr: slots(a.addr)},
	})
	// The gateway's clock stands still: the burst passes and nothing
	// refills it.
	a.say(t, 100)
	st := voiceUntil(t, g, "100 heard", func(s VoiceStats) bool { return s.PacketsIn == 100 })
	if st.PacketsOut != VoiceBurst || st.DroppedOverCap != 100-VoiceBurst {
		t.Errorf("forwarded %d and dropped %d over the cap, want %d and %d", st.PacketsOut, st.DroppedOverCap, VoiceBurst, 100-VoiceBurst)
	}
	b.heard(t, VoiceBurst)
}

// TestASlotIsOneStreamWhoeverSpeaks: when a listener's slot passes from
// one speaker to another, the packets it receives go on numbered one
// after the other, their timestamps a frame apart, whatever numbers each
// speaker's own stream had; and each packet is the speaker's, unchanged.
func TestASlotIsOneStreamWhoeverSpeaks(t *testing.T) {
	g, a, b, c := threeVoices(t)
	b.seq = 30000 // b's stream numbers its packets far from a's
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{a.addr: true, b.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{c.addr: slots(a.addr)},
	})
	a.sayAs(t, 5, 0xaa)
	c.heard(t, 5)
	g.SetVoicePlan(VoicePlan{
		Speakers: map[netip.AddrPort]bool{a.addr: true, b.addr: true},
		Slots:    map[netip.AddrPort][VoiceSlots]netip.AddrPort{c.addr: slots(b.addr)},
	})
	b.sayAs(t, 5, 0xbb)
	c.heard(t, 10)
	c.mu.Lock()
	defer c.mu.Unlock()
	seqs, stamps, firsts := c.seqs[0], c.stamps[0], c.firsts[0]
	if len(seqs) != 10 {
		t.Fatalf("slot 0 received %d packets, want 10", len(seqs))
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 || stamps[i] != stamps[i-1]+opusFrame {
			t.Errorf("packet %d: sequence %d and timestamp %d after %d and %d; want the next of each", i, seqs[i], stamps[i], seqs[i-1], stamps[i-1])
		}
	}
	if string(firsts) != "\xaa\xaa\xaa\xaa\xaa\xbb\xbb\xbb\xbb\xbb" {
		t.Errorf("the payloads' first bytes % x, want a's five then b's", firsts)
	}
}

// TestAnOfferWithTooManyAudioLinesIsRefused: a page offers one line to
// send on and VoiceSlots to hear on; more is not a page.
func TestAnOfferWithTooManyAudioLinesIsRefused(t *testing.T) {
	_, srv, _, _ := start(t, Config{Voice: true})
	pc, err := webrtc.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.CreateDataChannel(Label, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 + VoiceSlots {
		if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
			t.Fatal(err)
		}
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = postOffer(ctxFor(t), nil, srv.URL, Description{Type: "offer", SDP: offer.SDP})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Status != http.StatusBadRequest || !strings.Contains(refused.Reason, "10 audio lines") {
		t.Fatalf("an offer of %d audio lines: %v", 2+VoiceSlots, err)
	}
}
