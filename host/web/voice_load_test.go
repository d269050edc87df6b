//go:build linux

package web

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// The voice relay's load, as BENCHMARKS.md reports it ("Voice"): a gateway
// in a process of its own (so that its CPU time is its own), N browser
// peers in this one, every one of them hearing up to VoiceSlots others.
// One of them speaks, then all of them, for voiceLoadFor each: 50 packets
// a second of an 80-byte payload, Opus at 32 kbit/s. It reports the
// gateway's CPU, the bytes per speaker and per listener, and the time a
// packet takes from a speaker's track to a listener's over loopback, and
// first the same between two peers connected directly, with no gateway.
//
//	VKM_VOICE_LOAD=1 go test -run TestVoiceLoad -v ./host/web/

const voiceLoadFor = 5 * time.Second

// TestVoiceLoadServer is the gateway's process: it serves a gateway with
// voice on 127.0.0.1, prints its URL, welcomes every peer, plans that
// everyone hears everyone (the lowest numbers first, VoiceSlots at most)
// and answers GET /stats with its voice counts and CPU ticks, until its
// standard input closes.
func TestVoiceLoadServer(t *testing.T) {
	if os.Getenv("VKM_VOICE_LOAD_SERVER") == "" {
		t.Skip("the gateway's process of TestVoiceLoad")
	}
	g, err := NewGateway(Config{Voice: true, MaxPeersPerAddress: 64, MaxConnectingPerAddress: 64, OffersPerIPPerSecond: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	mux := http.NewServeMux()
	mux.Handle("/vkm/", g.Handler())
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(struct {
			Voice VoiceStats
			Ticks int64
		}{g.VoiceStats(), cpuTicks(os.Getpid())})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	fmt.Println("URL", srv.URL)
	stop := make(chan struct{})
	go func() {
		bufio.NewReader(os.Stdin).ReadString('\n')
		close(stop)
	}()
	var mu sync.Mutex
	var peers []netip.AddrPort
	go func() {
		for d := range g.Incoming() {
			g.WriteTo(welcomeHeader(), d.From)
			mu.Lock()
			if !slices.Contains(peers, d.From) {
				peers = append(peers, d.From)
			}
			mu.Unlock()
		}
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		mu.Lock()
		p := VoicePlan{Speakers: map[netip.AddrPort]bool{}, Slots: map[netip.AddrPort][VoiceSlots]netip.AddrPort{}}
		for _, l := range peers {
			p.Speakers[l] = true
			var s [VoiceSlots]netip.AddrPort
			n := 0
			for _, o := range peers {
				if o != l && n < VoiceSlots {
					s[n] = o
					n++
				}
			}
			p.Slots[l] = s
		}
		mu.Unlock()
		g.SetVoicePlan(p)
	}
}

// cpuTicks is a process's user and system CPU time, in clock ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

// clockTick is the kernel's clock tick (getconf CLK_TCK): 1/100 s on
// Linux.
const clockTick = 10 * time.Millisecond

type loadStats struct {
	Voice VoiceStats
	Ticks int64
}

func TestVoiceLoad(t *testing.T) {
	if os.Getenv("VKM_VOICE_LOAD") == "" {
		t.Skip("set VKM_VOICE_LOAD=1 to measure the voice relay (BENCHMARKS.md, \"Voice\")")
	}
	directDelay(t)
	for _, n := range []int{4, 16} {
		for _, all := range []bool{false, true} {
			voiceLoad(t, n, all)
		}
	}
}

// directDelay measures the same packets' time from one peer to another
// connected directly, with no gateway between: the baseline the relay's
// delay adds to.
func directDelay(t *testing.T) {
	api := func() *webrtc.API {
		se := webrtc.SettingEngine{}
		se.SetIncludeLoopbackCandidate(true)
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		return webrtc.NewAPI(webrtc.WithSettingEngine(se))
	}
	a, err := api().NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := api().NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mic, err := webrtc.NewTrackLocalStaticRTP(opus, "mic", "direct")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddTransceiverFromTrack(mic, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly}); err != nil {
		t.Fatal(err)
	}
	p := &loadPeer{pc: a, mic: mic}
	b.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			pkt, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			if len(pkt.Payload) < 4 {
				continue
			}
			if at, ok := loadSent.Load(binary.LittleEndian.Uint32(pkt.Payload)); ok {
				p.mu.Lock()
				p.delays = append(p.delays, time.Since(at.(time.Time)))
				p.mu.Unlock()
			}
		}
	})
	offer, err := a.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ga := webrtc.GatheringCompletePromise(a)
	a.SetLocalDescription(offer)
	<-ga
	if err := b.SetRemoteDescription(*a.LocalDescription()); err != nil {
		t.Fatal(err)
	}
	answer, err := b.CreateAnswer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gb := webrtc.GatheringCompletePromise(b)
	b.SetLocalDescription(answer)
	<-gb
	if err := a.SetRemoteDescription(*b.LocalDescription()); err != nil {
		t.Fatal(err)
	}
	connected := make(chan struct{})
	var once sync.Once
	a.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateConnected {
			once.Do(func() { close(connected) })
		}
	})
	if a.ConnectionState() == webrtc.PeerConnectionStateConnected {
		once.Do(func() { close(connected) })
	}
	select {
	case <-connected:
	case <-time.After(testTimeout):
		t.Fatal("the direct peers did not connect")
	}
	p.speak(t, time.Now(), voiceLoadFor)
	time.Sleep(200 * time.Millisecond) // the last packets land; polling another process
	p.mu.Lock()
	d := slices.Sorted(slices.Values(p.delays))
	p.mu.Unlock()
	if len(d) == 0 {
		t.Fatal("no packet went directly")
	}
	t.Logf("direct, no gateway: speaker to listener p50 %v p99 %v over %d packets", d[len(d)/2].Round(time.Microsecond), d[int(0.99*float64(len(d)-1))].Round(time.Microsecond), len(d))
}

// voiceLoad measures n peers with one speaker, or all.
func voiceLoad(t *testing.T, n int, all bool) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestVoiceLoadServer$")
	cmd.Env = append(os.Environ(), "VKM_VOICE_LOAD_SERVER=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	url := ""
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "URL "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("the gateway's process did not say its URL")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	stats := func() loadStats {
		r, err := http.Get(url + "/stats")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var s loadStats
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The peers, each sending its number in a packet's payload so a
	// listener can tell when it was sent.
	peers := make([]*loadPeer, n)
	for i := range peers {
		peers[i] = dialLoad(t, url)
	}
	time.Sleep(300 * time.Millisecond) // the plan's next round names every peer; polling another process
	speakers := peers[:1]
	if all {
		speakers = peers
	}
	before := stats()
	start := time.Now()
	var wg sync.WaitGroup
	for _, p := range speakers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.speak(t, start, voiceLoadFor)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	time.Sleep(200 * time.Millisecond) // the last packets land; polling another process
	after := stats()
	var delays []time.Duration
	for _, p := range peers {
		p.mu.Lock()
		delays = append(delays, p.delays...)
		p.mu.Unlock()
	}
	slices.Sort(delays)
	cpu := time.Duration(after.Ticks-before.Ticks) * clockTick
	in1, out1 := after.Voice.PacketsIn-before.Voice.PacketsIn, after.Voice.PacketsOut-before.Voice.PacketsOut
	bin, bout := after.Voice.BytesIn-before.Voice.BytesIn, after.Voice.BytesOut-before.Voice.BytesOut
	secs := took.Seconds()
	// On the wire each packet carries its RTP header (12 bytes), SRTP's
	// tag (10) and UDP and IPv4's (28) besides its payload.
	const overhead = 12 + 10 + 28
	wireIn := (float64(bin) + float64(in1)*overhead) / secs
	wireOut := (float64(bout) + float64(out1)*overhead) / secs
	who, listeners := "1 speaking", n-1
	if all {
		listeners = n
		who = fmt.Sprintf("%d speaking", n)
	}
	pct := func(q float64) time.Duration {
		if len(delays) == 0 {
			return 0
		}
		return delays[int(q*float64(len(delays)-1))]
	}
	t.Logf("%2d players, %-11s: gateway CPU %5.1f%% of a core (%.2f%% a speaker); in %5.0f pkt/s %6.1f kB/s (%.1f kB/s a speaker); out %5.0f pkt/s %6.1f kB/s (%.1f kB/s a listener); dropped %d; speaker to listener p50 %v p99 %v over %d packets",
		n, who, 100*cpu.Seconds()/secs, 100*cpu.Seconds()/secs/float64(len(speakers)),
		float64(in1)/secs, wireIn/1000, wireIn/1000/float64(len(speakers)),
		float64(out1)/secs, wireOut/1000, wireOut/1000/float64(listeners),
		after.Voice.DroppedOverCap+after.Voice.DroppedNotSpeaker-before.Voice.DroppedOverCap-before.Voice.DroppedNotSpeaker,
		pct(0.5).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), len(delays))
	if out1 == 0 {
		t.Error("nothing was forwarded")
	}
	for _, p := range peers {
		p.pc.Close()
	}
}

// loadPeer is a voice peer of the load test: it times each packet it
// hears from the moment its speaker sent it.
type loadPeer struct {
	pc  *webrtc.PeerConnection
	mic *webrtc.TrackLocalStaticRTP
	mu  sync.Mutex
	// delays are the packets' times from speaker to listener.
	delays []time.Duration
}

// loadSent is every speaker's send times, by stamp (one map, for every
// listener to look up).
var loadSent sync.Map

func dialLoad(t *testing.T, url string) *loadPeer {
	t.Helper()
	// The voice peer of the tests, with the listener's side timed.
	v := dialVoiceAt(t, url)
	v.welcomed(t)
	p := &loadPeer{pc: v.pc, mic: v.mic}
	v.pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		for {
			pkt, _, err := tr.ReadRTP()
			if err != nil {
				return
			}
			if len(pkt.Payload) < 4 {
				continue
			}
			if at, ok := loadSent.Load(binary.LittleEndian.Uint32(pkt.Payload)); ok {
				d := time.Since(at.(time.Time))
				p.mu.Lock()
				p.delays = append(p.delays, d)
				p.mu.Unlock()
			}
		}
	})
	return p
}

// loadStamp numbers the packets of every speaker.
var (
	loadStampMu sync.Mutex
	loadStamp   uint32
)

// speak sends 50 packets a second of 80 bytes for d, from start.
func (p *loadPeer) speak(t *testing.T, start time.Time, d time.Duration) {
	payload := make([]byte, 80)
	var seq uint16
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * 20 * time.Millisecond)
		if at.Sub(start) >= d {
			return
		}
		time.Sleep(time.Until(at)) // pacing the packets as a microphone does
		loadStampMu.Lock()
		loadStamp++
		stamp := loadStamp
		loadStampMu.Unlock()
		binary.LittleEndian.PutUint32(payload, stamp)
		seq++
		loadSent.Store(stamp, time.Now())
		if err := p.mic.WriteRTP(&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: 111, SequenceNumber: seq, Timestamp: uint32(seq) * opusFrame}, Payload: payload}); err != nil {
			t.Error(err)
			return
		}
	}
}
