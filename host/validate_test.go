package host

import (
	"context"
	"strings"
	"testing"
	"time"
)

// checkValidate runs validate and wants an error saying want, or none
// when want is empty.
func checkValidate(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want no error", name, err)
	case want != "" && err == nil:
		t.Errorf("%s: no error, want one saying %q", name, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s: %q does not say %q", name, err, want)
	}
}

func TestServeConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ServeConfig
		want string
	}{
		{"zero: the project's port", ServeConfig{}, ""},
		{"a port", ServeConfig{Addr: ":9000"}, ""},
		{"a host and port 0", ServeConfig{Addr: "127.0.0.1:0"}, ""},
		{"an IPv6 host", ServeConfig{Addr: "[::1]:27960"}, ""},
		{"no port", ServeConfig{Addr: "127.0.0.1"}, `"127.0.0.1" is not host:port`},
		{"port out of range", ServeConfig{Addr: ":70000"}, "port 70000 is not a UDP port"},
		{"negative port", ServeConfig{Addr: ":-1"}, "port -1 is not a UDP port"},
		{"port not a number", ServeConfig{Addr: ":http"}, "port http is not a UDP port"},
		{"admin on loopback", ServeConfig{Admin: "127.0.0.1:9100"}, ""},
		{"admin on IPv6 loopback", ServeConfig{Admin: "[::1]:9100"}, ""},
		{"admin on localhost", ServeConfig{Admin: "localhost:0"}, ""},
		{"admin on every interface", ServeConfig{Admin: ":9100"}, `admin address ":9100" is not loopback`},
		{"admin on a public address", ServeConfig{Admin: "192.0.2.7:9100"}, "add --admin-public"},
		{"admin on a public address, allowed", ServeConfig{Admin: "0.0.0.0:9100", AdminPublic: true}, ""},
		{"admin with no port", ServeConfig{Admin: "127.0.0.1"}, `admin address "127.0.0.1" is not host:port`},
		{"admin-public alone", ServeConfig{AdminPublic: true}, "admin-public without an admin address"},
		{"a profile and its seed", ServeConfig{Sim: "awful", SimSeed: 7}, ""},
		{"a profile in capitals", ServeConfig{Sim: "Mobile", SimSeed: 7}, ""},
		{"an unknown profile", ServeConfig{Sim: "dialup", SimSeed: 7}, `unknown profile "dialup"`},
		{"a profile without a seed", ServeConfig{Sim: "awful"}, "needs a sim seed"},
		{"a seed without a profile", ServeConfig{SimSeed: 7}, "without a sim profile"},
		{"a duration", ServeConfig{Duration: time.Second}, ""},
		{"a negative duration", ServeConfig{Duration: -time.Second}, "duration -1s is negative"},
		{"webtransport beside the web", ServeConfig{Web: "127.0.0.1:8080", WebTransport: true}, ""},
		{"webtransport alone", ServeConfig{WebTransport: true}, "webtransport without a web address"},
	} {
		checkValidate(t, tc.name, tc.cfg.Validate(), tc.want)
	}
}

func TestPlayConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  PlayConfig
		want string
	}{
		{"zero: offline", PlayConfig{}, ""},
		{"a server without a port", PlayConfig{Connect: "10.0.0.4"}, ""},
		{"a server name with a port", PlayConfig{Connect: "example.org:27960"}, ""},
		{"a bare IPv6 server", PlayConfig{Connect: "::1"}, ""},
		{"a bracketed IPv6 server", PlayConfig{Connect: "[::1]:27960"}, ""},
		{"a server at port 0", PlayConfig{Connect: "10.0.0.4:0"}, "port 0 is not a UDP port (1 to 65535)"},
		{"a server port out of range", PlayConfig{Connect: "10.0.0.4:65536"}, "port 65536 is not a UDP port"},
		{"a server port not a number", PlayConfig{Connect: "10.0.0.4:x"}, "port x is not a UDP port"},
		{"a view", PlayConfig{View: "127.0.0.1:8080"}, ""},
		{"a view on any free port", PlayConfig{View: "127.0.0.1:0"}, ""},
		{"a view without a port", PlayConfig{View: "8080"}, `view address "8080" is not host:port`},
		{"a view port out of range", PlayConfig{View: ":80800"}, "port 80800 is not a TCP port"},
		{"a simulated link", PlayConfig{Connect: "10.0.0.4", Sim: "lan", SimSeed: 1}, ""},
		{"a simulated link offline", PlayConfig{Sim: "lan", SimSeed: 1}, "needs a server to connect to"},
		{"an unknown profile", PlayConfig{Connect: "10.0.0.4", Sim: "dialup", SimSeed: 1}, `unknown profile "dialup"`},
		{"a profile without a seed", PlayConfig{Connect: "10.0.0.4", Sim: "lan"}, "needs a sim seed"},
		{"a seed without a profile", PlayConfig{Connect: "10.0.0.4", SimSeed: 1}, "without a sim profile"},
		{"a negative duration", PlayConfig{Duration: -time.Millisecond}, "duration -1ms is negative"},
	} {
		checkValidate(t, tc.name, tc.cfg.Validate(), tc.want)
	}
}

func TestBotsConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  BotsConfig
		want string
	}{
		{"one wanderer", BotsConfig{Kind: "wander", Count: 1}, ""},
		{"idlers of a server, lite", BotsConfig{Kind: "idle", Count: 64, Lite: true, Play: PlayConfig{Connect: "10.0.0.4"}}, ""},
		{"no clients", BotsConfig{Kind: "wander"}, "0 bot clients: give 1 or more"},
		{"fewer than none", BotsConfig{Kind: "wander", Count: -1}, "-1 bot clients"},
		{"no kind", BotsConfig{Count: 1}, `unknown bot ""`},
		{"an unknown kind", BotsConfig{Kind: "sleeper", Count: 1}, `unknown bot "sleeper" (known: wander, idle)`},
		{"lite offline", BotsConfig{Kind: "wander", Count: 1, Lite: true}, "lite bot clients play only against a server"},
		{"with a view", BotsConfig{Kind: "wander", Count: 2, Play: PlayConfig{View: "127.0.0.1:8080"}}, "without a view"},
		{"what Play refuses", BotsConfig{Kind: "wander", Count: 1, Play: PlayConfig{Duration: -1}}, "is negative"},
	} {
		checkValidate(t, tc.name, tc.cfg.Validate(), tc.want)
	}
}

func TestServeAndPlayRefuseWhatValidateRefuses(t *testing.T) {
	p := loadArena(t)
	if _, err := Serve(context.Background(), ServeConfig{Project: p, Addr: "127.0.0.1:0", Sim: "dialup", SimSeed: 1}); err == nil || !strings.Contains(err.Error(), "dialup") {
		t.Errorf("Serve with an unknown profile: %v", err)
	}
	rep, err := Play(context.Background(), PlayConfig{Project: p, Duration: -time.Second})
	if err == nil || rep.Exit != "failed" || rep.LastError != err.Error() {
		t.Errorf("Play with a negative duration: %v, report %+v", err, rep)
	}
}
