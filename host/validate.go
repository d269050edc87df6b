package host

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"vkm/host/bot"
	"vkm/transport/memnet"
)

// Validate reports the first setting Serve would refuse, before anything is
// loaded or opened: a listen address that is not host:port with a UDP port,
// a link simulator profile that does not exist or has no seed, a negative
// duration or drain time, an admin address that is not host:port, or is not loopback
// without AdminPublic. It does not look at Project (LoadProject has checked it), so a
// program can validate what its command line asked for before it loads the
// project. Serve calls it first.
func (c *ServeConfig) Validate() error {
	if c.Addr != "" {
		if err := checkAddr("listen address", c.Addr, "UDP", 0); err != nil {
			return err
		}
	}
	if c.Web != "" {
		if err := checkAddr("web address", c.Web, "TCP", 0); err != nil {
			return err
		}
	} else if c.WebTransport {
		return fmt.Errorf("host: webtransport without a web address (it serves the page's players beside --web)")
	}
	if err := checkSim(c.Sim, c.SimSeed); err != nil {
		return err
	}
	if err := c.checkSecurity(); err != nil {
		return err
	}
	if err := checkAdmin(c.Admin, c.AdminPublic); err != nil {
		return err
	}
	if c.DrainTime < 0 {
		return fmt.Errorf("host: drain %v is negative (0 stops at once)", c.DrainTime)
	}
	return checkDuration(c.Duration)
}

// checkAdmin checks the admin listener's address: host:port, and a
// loopback host (an IP address or "localhost") unless public says the
// listener may be reached from elsewhere: it serves the process's profiles
// and its command line to whoever asks.
func checkAdmin(addr string, public bool) error {
	if addr == "" {
		if public {
			return errors.New("host: admin-public without an admin address: give --admin")
		}
		return nil
	}
	if err := checkAddr("admin address", addr, "TCP", 0); err != nil {
		return err
	}
	if public {
		return nil
	}
	h, _, _ := net.SplitHostPort(addr)
	if ip, err := netip.ParseAddr(h); h == "localhost" || err == nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("host: admin address %q is not loopback: the admin listener serves profiles and metrics to whoever reaches it; add --admin-public to serve it there anyway", addr)
}

// Validate reports the first setting Play would refuse, before anything is
// loaded or opened: a server address that is not host or host:port with a
// port to send to, a view address that is not host:port, a link simulator
// profile that does not exist, has no seed or has no server to simulate the
// link to, a negative duration. Like ServeConfig.Validate it does not look
// at Project. Play calls it first.
func (c *PlayConfig) Validate() error {
	if c.Connect != "" {
		// No port means the project's, which is not known here; any valid
		// port stands in for it.
		if err := checkAddr("server address", withPort(c.Connect, 1), "UDP", 1); err != nil {
			return err
		}
	}
	if c.View != "" {
		if err := checkAddr("view address", c.View, "TCP", 0); err != nil {
			return err
		}
	}
	if c.Web != "" {
		if err := checkWebURL(c.Web); err != nil {
			return err
		}
		if c.Net != nil {
			return errors.New("host: web and an in-process network: the web listener is reached over the real one; drop one")
		}
	}
	if err := checkSim(c.Sim, c.SimSeed); err != nil {
		return err
	}
	if c.Sim != "" && c.Connect == "" && c.Web == "" {
		return errors.New("host: sim simulates the link to a server: it needs a server to connect to")
	}
	if err := c.checkGuests(); err != nil {
		return err
	}
	return checkDuration(c.Duration)
}

// Validate reports the first setting PlayBots would refuse: fewer than one
// client, a bot kind NewBot does not build, lite clients with no server,
// and whatever Play.Validate refuses. PlayBots calls it first.
func (c *BotsConfig) Validate() error {
	switch {
	case c.Count < 1:
		return fmt.Errorf("host: %d bot clients: give 1 or more", c.Count)
	case c.Lite && c.Play.Connect == "" && c.Play.Web == "" && c.Join == nil:
		return errors.New("host: lite bot clients play only against a server: give Connect")
	case c.Play.View != "":
		return errors.New("host: bot clients run without a view: each would serve the same address")
	}
	if err := bot.CheckKind(c.Kind); err != nil {
		return err
	}
	return c.Play.Validate()
}

// checkWebURL reports a web listener's URL that is not http, https, ws,
// wss or wt with a host.
func checkWebURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("host: web URL %q: %v", s, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss", "wt":
	default:
		return fmt.Errorf("host: web URL %q: the scheme is not http, https (WebRTC), ws, wss (WebSocket) or wt (WebTransport)", s)
	}
	if u.Host == "" {
		return fmt.Errorf("host: web URL %q names no host", s)
	}
	return nil
}

// checkAddr reports an address that is not host:port with a port number
// from minPort to 65535. what names the address and proto its port's
// protocol in the message.
func checkAddr(what, addr, proto string, minPort int) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("host: %s %q is not host:port", what, addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < minPort || n > 65535 {
		return fmt.Errorf("host: %s %q: port %s is not a %s port (%d to 65535)", what, addr, port, proto, minPort)
	}
	return nil
}

// checkSim checks a link simulator's profile and seed: the profile must be
// one memnet names, and a profile needs a seed, since a simulated link is
// reproducible only from it, and a seed needs a profile.
func checkSim(profile string, seed uint64) error {
	if profile == "" {
		if seed != 0 {
			return errors.New("host: a sim seed without a sim profile: name the profile")
		}
		return nil
	}
	if _, err := memnet.ProfileByName(profile); err != nil {
		return err
	}
	if seed == 0 {
		return fmt.Errorf("host: sim %q needs a sim seed: a simulated link is reproducible only from its seed", profile)
	}
	return nil
}

// checkDuration refuses a negative run length (0 means no limit).
func checkDuration(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("host: duration %v is negative (0 runs until stopped)", d)
	}
	return nil
}
