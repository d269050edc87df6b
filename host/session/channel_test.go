package session

import (
	"errors"
	"testing"

	"vkm/host/session/netmsg"
	"vkm/transport"
)

// TestSeatRefusesLargeMessages: a client's message past the seat's receive
// window ends the channel (the server kicks the player) instead of being
// held, while a small one is read; the seat still sends bundles of the
// default size.
func TestSeatRefusesLargeMessages(t *testing.T) {
	for _, c := range []struct {
		size int
		ok   bool
	}{{seatReceiveWindow, true}, {seatReceiveWindow + 1, false}, {1 << 20, false}} {
		client := mustReliable()
		if err := client.Send(make([]byte, c.size)); err != nil {
			t.Fatal(err)
		}
		seat := seatReliable()
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			p := netmsg.AppendPayload(nil, client, nil, []byte{0xC0}, 0)
			client.Sent(0)
			_, err = netmsg.ParseClientPayload(p, seat)
			if _, got := seat.Receive(); got {
				break
			}
		}
		if gotErr := errors.Is(err, transport.ErrReliableProtocol); gotErr == c.ok {
			t.Errorf("a %d-byte message: %v", c.size, err)
		}
		if seat.Buffered() > seatReceiveWindow {
			t.Errorf("a %d-byte message: the seat holds %d bytes", c.size, seat.Buffered())
		}
	}
	if err := seatReliable().Send(make([]byte, transport.DefaultReliableMaxMessage)); err != nil {
		t.Errorf("a seat sending a bundle of the largest size: %v", err)
	}
}
