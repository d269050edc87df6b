package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Description is a session description as the browser's
// RTCSessionDescription serializes it: the body of an offer and of its
// answer.
type Description struct {
	Type string `json:"type"`
	SDP  string `json:"sdp"`
}

// ParseOffer decodes and checks an offer's body: JSON with type "offer"
// and an SDP that starts as one does and offers a data channel
// ("m=application"). The WebRTC stack parses the SDP itself; this turns
// away what is plainly not an offer before a peer connection is made for
// it.
func ParseOffer(b []byte) (Description, error) {
	if len(b) > MaxOfferBytes {
		return Description{}, fmt.Errorf("offer: %d bytes, over %d", len(b), MaxOfferBytes)
	}
	var d Description
	if err := json.Unmarshal(b, &d); err != nil {
		return Description{}, fmt.Errorf("offer: not JSON {\"type\", \"sdp\"}: %v", err)
	}
	if d.Type != "offer" {
		return Description{}, fmt.Errorf("offer: type %q, want \"offer\"", d.Type)
	}
	if !strings.HasPrefix(d.SDP, "v=0\r\n") && !strings.HasPrefix(d.SDP, "v=0\n") {
		return Description{}, errors.New("offer: the sdp does not start with v=0")
	}
	if !strings.Contains(d.SDP, "\nm=application ") {
		return Description{}, errors.New("offer: the sdp offers no data channel (no m=application line)")
	}
	return d, nil
}
