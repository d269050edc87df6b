package web

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pion/sdp/v3"
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
