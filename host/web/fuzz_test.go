package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/sdp/v3"

	"vkm/transport/handshake"
)

// browserOffer is an offer as a browser makes it for one data channel,
// with its candidates gathered.
const browserOffer = "v=0\r\n" +
	"o=- 4215045271402939562 2 IN IP4 127.0.0.1\r\n" +
	"s=-\r\n" +
	"t=0 0\r\n" +
	"a=group:BUNDLE 0\r\n" +
	"a=extmap-allow-mixed\r\n" +
	"a=msid-semantic: WMS\r\n" +
	"m=application 50943 UDP/DTLS/SCTP webrtc-datachannel\r\n" +
	"c=IN IP4 192.168.1.20\r\n" +
	"a=candidate:1467250027 1 udp 2122260223 192.168.1.20 50943 typ host generation 0 network-id 1\r\n" +
	"a=candidate:3022135523 1 udp 2122194687 127.0.0.1 50944 typ host generation 0 network-id 2\r\n" +
	"a=ice-ufrag:Ws3Q\r\n" +
	"a=ice-pwd:wgXAbcd0nfe8nqYb0ztq8Aop\r\n" +
	"a=ice-options:trickle\r\n" +
	"a=fingerprint:sha-256 4A:2B:91:AD:3D:0F:62:1B:9E:0C:71:5D:45:2A:C1:38:5E:6B:6A:A9:88:AF:65:3E:02:0A:7C:4B:1D:3C:7E:11\r\n" +
	"a=setup:actpass\r\n" +
	"a=mid:0\r\n" +
	"a=sctp-port:5000\r\n" +
	"a=max-message-size:262144\r\n"

// FuzzParseOffer feeds the offer decoder arbitrary bodies: it must not
// panic, what it accepts is an offer of a data channel within the size
// bound, and the SDP parser the WebRTC stack applies next takes it
// without panicking either.
func FuzzParseOffer(f *testing.F) {
	good, _ := json.Marshal(Description{Type: "offer", SDP: browserOffer})
	f.Add(good)
	f.Add([]byte(`{"type":"offer","sdp":"v=0\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\n"}`))
	f.Add([]byte(`{"type":"answer","sdp":"v=0\r\nm=application 9 x\r\n"}`))
	f.Add([]byte(`{"type":"offer","sdp":"v=0\r\n"}`))
	f.Add([]byte(`{"type":"offer","sdp":"v=0\r\nm=application \r\na=candidate:\r\nc=IN IP4\r\n"}`))
	f.Add([]byte(`{"type":"offer"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseOffer(b)
		if err != nil {
			return
		}
		if d.Type != "offer" || len(b) > MaxOfferBytes || !strings.Contains(d.SDP, "\nm=application ") {
			t.Fatalf("accepted %q", b)
		}
		var s sdp.SessionDescription
		_ = s.UnmarshalString(d.SDP)
	})
}

// FuzzWelcomes feeds the welcome check arbitrary datagrams: it must not
// panic, and it says welcomed exactly for a vkm header of kind Welcome or
// Data, whatever follows.
func FuzzWelcomes(f *testing.F) {
	for _, k := range []handshake.Kind{handshake.KindHello, handshake.KindChallenge, handshake.KindWelcome, handshake.KindRefuse, handshake.KindGoodbye, handshake.KindData, 0, 7, 255} {
		f.Add(handshake.Header{Version: handshake.Version, Kind: k, Token: 0x0102030405060708}.Append(nil))
	}
	f.Add(append(handshake.Header{Version: handshake.Version, Kind: handshake.KindWelcome}.Append(nil), 1, 2, 3))
	f.Add([]byte("vk\x07\x03"))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{7}, 1200))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := welcomes(b)
		want := len(b) >= handshake.HeaderSize && b[0] == 'v' && b[1] == 'k' && (b[3] == byte(handshake.KindWelcome) || b[3] == byte(handshake.KindData))
		if got != want {
			t.Fatalf("welcomes(%x) = %v, want %v", b, got, want)
		}
	})
}

// FuzzParseRetryAfter feeds the dialer's reading of a refusal's
// Retry-After arbitrary header values: it must not panic, and what it
// gives is a whole number of seconds within maxRetryAfter.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "1", "5", " 5 ", "60", "61", "999999", "9999999", "-1", "1.5", "Wed, 21 Oct 2026 07:28:00 GMT", "0x10", "+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := parseRetryAfter(s)
		if d < 0 || d > maxRetryAfter || d%time.Second != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v", s, d)
		}
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 && len(strings.TrimSpace(s)) <= 6 && !strings.HasPrefix(strings.TrimSpace(s), "+") {
			if want := min(time.Duration(n)*time.Second, maxRetryAfter); d != want {
				t.Fatalf("parseRetryAfter(%q) = %v, want %v", s, d, want)
			}
		}
	})
}

// FuzzParseWebTransportInfo feeds the dialer's reading of GET
// /vkm/webtransport arbitrary bodies: it must not panic, and what it
// accepts has a port in range and is the hash its text says.
func FuzzParseWebTransportInfo(f *testing.F) {
	h := bytes.Repeat([]byte{0xab}, 32)
	good, _ := json.Marshal(WebTransportInfo{Port: 4433, Hash: base64.StdEncoding.EncodeToString(h)})
	f.Add(good)
	for _, s := range []string{"", "{}", "null", `{"port":0,"hash":""}`, `{"port":65536,"hash":"q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="}`,
		`{"port":1,"hash":"q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s"}`, `{"port":1,"hash":"q6s="}`, `{"port":"1"}`, `[1,2]`, `{"port":1e3,"hash":"` + strings.Repeat("A", 2000) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		info, hash, err := ParseWebTransportInfo(b)
		if err != nil {
			return
		}
		if info.Port < 1 || info.Port > 65535 || len(b) > 1024 {
			t.Fatalf("accepted %q: port %d", b, info.Port)
		}
		if raw, err := base64.StdEncoding.DecodeString(info.Hash); err != nil || !bytes.Equal(raw, hash[:]) {
			t.Fatalf("accepted %q: the hash %x is not its text %q", b, hash, info.Hash)
		}
	})
}
