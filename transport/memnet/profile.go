package memnet

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"vkm/transport"
)

// Profile is a named pair of link configs: Up for the client's datagrams to
// the server, Down for the server's to the client. Uplinks are usually the
// weaker half of a consumer connection, so the two may differ.
type Profile struct {
	Name     string
	Up, Down LinkConfig
}

// The named profiles, mildest first. Each says what kind of connection it
// stands for; the figures are one-way. Loss is independent per datagram.
var (
	// Perfect does nothing: no delay, nothing lost. For tests that want the
	// protocol without the network.
	Perfect = Profile{Name: "perfect"}

	// Lan is one wired switch or a good Wi-Fi access point in one building:
	// 1 ms each way and 0.5 ms of jitter, which is the operating systems and
	// network cards rather than distance, and nothing lost.
	Lan = symmetric("lan", LinkConfig{Latency: time.Millisecond, Jitter: 500 * time.Microsecond})

	// Broadband is home cable or fibre to a server in the same region, the
	// profile development runs with: 35 ms each way, 8 ms of jitter and
	// 0.5 % loss, as the design fixes. The rare duplicate (0.1 %) and
	// reordering (0.1 %) are our addition, so the stale-packet path is
	// exercised in everyday development rather than only under Awful.
	Broadband = symmetric("broadband", LinkConfig{
		Latency: 35 * time.Millisecond, Jitter: 8 * time.Millisecond,
		Loss: 0.005, Duplicate: 0.001, Reorder: 0.001,
	})

	// Mobile is a phone on 4G/5G with middling signal: radio scheduling adds
	// delay and a wide spread (60 ± 20 ms), and retransmissions in the radio
	// layer show as duplicates and reordering. The uplink, the weaker radio
	// leg, loses 3 %; the downlink 1.5 %.
	Mobile = Profile{
		Name: "mobile",
		Up: LinkConfig{
			Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond,
			Loss: 0.03, Duplicate: 0.005, Reorder: 0.01,
		},
		Down: LinkConfig{
			Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond,
			Loss: 0.015, Duplicate: 0.005, Reorder: 0.01,
		},
	}

	// Awful is congested hotel Wi-Fi or a satellite hop: 150 ± 50 ms each
	// way, 10 % loss, 2 % duplicated, 5 % reordered. Nobody enjoys a game
	// here; it is for checking that nothing breaks, stalls or diverges.
	Awful = symmetric("awful", LinkConfig{
		Latency: 150 * time.Millisecond, Jitter: 50 * time.Millisecond,
		Loss: 0.10, Duplicate: 0.02, Reorder: 0.05,
	})
)

// Profiles lists the named profiles, mildest first.
func Profiles() []Profile { return []Profile{Perfect, Lan, Broadband, Mobile, Awful} }

func symmetric(name string, c LinkConfig) Profile { return Profile{Name: name, Up: c, Down: c} }

// ProfileByName returns the profile called name, ignoring case, or an error
// that lists the names there are (for a --sim flag).
func ProfileByName(name string) (Profile, error) {
	names := make([]string, 0, 5)
	for _, p := range Profiles() {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("memnet: unknown profile %q (have %s)", name, strings.Join(names, ", "))
}

// Validate reports a profile either of whose links fails LinkConfig.Validate.
func (p Profile) Validate() error {
	if err := p.Up.Validate(); err != nil {
		return fmt.Errorf("memnet: profile %q up: %w", p.Name, err)
	}
	if err := p.Down.Validate(); err != nil {
		return fmt.Errorf("memnet: profile %q down: %w", p.Name, err)
	}
	return nil
}

// ErrNoSeed is returned by NewPipe for seed 0. A simulation whose seed was
// chosen for the user cannot be run again to reproduce what it did, so the
// caller must choose one (and print it).
var ErrNoSeed = errors.New("memnet: a simulated link needs a seed (--sim-seed)")

// Pipe joins two ends, A (the client) and B (the server), through two
// simulated links: AtoB behaves as the profile's Up, BtoA as its Down. The
// caller moves the clock, sends into one link and receives from the other;
// see NextArrival. Make one with NewPipe (the zero value has no links). A
// Pipe is not safe for concurrent use.
type Pipe struct {
	AtoB, BtoA *Link
}

// NewPipe returns a pipe for profile p whose two links draw from
// independent streams derived from seed. Seed 0 is refused with ErrNoSeed:
// it is what an unset flag gives.
func NewPipe(p Profile, seed uint64) (*Pipe, error) {
	if seed == 0 {
		return nil, ErrNoSeed
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// Different seeds per direction, so the two links do not lose the same
	// datagrams in lockstep. The odd constant is the 64-bit golden ratio.
	return &Pipe{
		AtoB: NewLink(p.Up, seed),
		BtoA: NewLink(p.Down, seed^0x9e3779b97f4a7c15),
	}, nil
}

// NextArrival returns the earlier of the two links' next arrivals, and false
// when nothing is in flight either way.
func (p *Pipe) NextArrival() (t transport.Time, ok bool) {
	ta, oka := p.AtoB.NextArrival()
	tb, okb := p.BtoA.NextArrival()
	switch {
	case oka && okb:
		return min(ta, tb), true
	case oka:
		return ta, true
	default:
		return tb, okb
	}
}
