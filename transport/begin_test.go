package transport_test

import (
	"testing"
	"time"

	"vkm/transport"
)

// A client made before its link opened (a web dial that waited out a
// gateway's Retry-After for longer than the join's timeout) joins from
// Begin: its first Hello goes out, and it gives up Timeout after that,
// not at once.
func TestAJoinBegunLateWaitsItsTimeoutFromThen(t *testing.T) {
	for _, begin := range []bool{false, true} {
		c := transport.NewClient(transport.ClientConfig{Hello: clientHello("ada")}, 0)
		late := transport.Time(12 * time.Second) // the dial took 12 s
		if begin {
			c.Begin(late)
		}
		c.Poll(late)
		_, hello := c.NextDatagram()
		if got := c.State() == transport.StateJoining && hello; got != begin {
			t.Errorf("begun %v: joining with a Hello out at 12 s: %v (%v %q); want %v", begin, got, c.State(), c.LastError(), begin)
		}
		if !begin {
			continue
		}
		c.Poll(late + transport.Time(transport.DefaultTimeout) - 1)
		if c.State() != transport.StateJoining {
			t.Errorf("gave up %v after its first Hello: %v", transport.DefaultTimeout-1, c.State())
		}
		c.Poll(late + transport.Time(transport.DefaultTimeout))
		if c.State() != transport.StateDisconnected || c.LastError() != "The server did not answer (10 s)." {
			t.Errorf("at its timeout: %v %q", c.State(), c.LastError())
		}
		c.Begin(late + transport.Time(20*time.Second)) // ended: nothing to begin
		if c.State() != transport.StateDisconnected {
			t.Errorf("Begin after the end: %v", c.State())
		}
	}
}
