package host

import (
	"bytes"
	"context"
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/netio"
	"vkm/transport/token"
)

// testKeys are a game's key and another one.
var testKeys = [2]token.Key{{0: 'k', 31: 1}, {0: 'x', 31: 2}}

// playWith plays cfg (Project, Connect and Net set by the caller) until its
// session is playing or refused, and returns the report.
func playWith(t *testing.T, cfg PlayConfig) ClientReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	cfg.OnState = func(state, why string) {
		if state == "playing" || state == "refused" {
			cancel()
		}
	}
	rep, err := Play(ctx, cfg)
	if err != nil && !strings.Contains(err.Error(), "refused") {
		t.Fatal(err)
	}
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the session never ended its join: %+v", rep)
	}
	return rep
}

// A server with a key on the in-process Loopback: a client given the key
// mints its own token and plays, as do bots (each its own client id); a
// client without a token, and one whose token was minted with another key,
// are refused and get no seat.
func TestSealedServerOnLoopback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := netio.NewLoopback()
		p := loadArena(t)
		addr, stop := servedWith(t, n, ServeConfig{Project: p, Key: &testKeys[0]})
		rep := playWith(t, PlayConfig{Project: p, Connect: addr, Net: n, Name: "keyed", Key: &testKeys[0]})
		none := playWith(t, PlayConfig{Project: p, Connect: addr, Net: n})
		other := playWith(t, PlayConfig{Project: p, Connect: addr, Net: n, Key: &testKeys[1]})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		bots, err := PlayBots(ctx, BotsConfig{Play: PlayConfig{Project: p, Connect: addr, Net: n, Key: &testKeys[0]}, Kind: "wander", Seed: 1, Count: 2})
		srv := stop()
		t.Logf("keyed: %s %q; none: %s %q; other key: %s %q; bots %v %v; server joins %d refused %d",
			rep.State, rep.LastError, none.State, none.Refusal, other.State, other.Refusal, bots.Failed, err, srv.Joins, srv.Refused)
		if rep.State != "playing" || none.Refusal != "no_token" || other.Refusal != "bad_token" {
			t.Fatal("wrong outcomes")
		}
		if err != nil || len(bots.Failed) != 0 || srv.Joins != 3 {
			t.Fatalf("bots %+v, %v; joins %d", bots.Failed, err, srv.Joins)
		}
	})
}

// Over real UDP on 127.0.0.1: a token minted as `vkmd token` does, read as
// `client --token -` does, seats its player; the same token again is
// refused as used.
func TestSealedServerOverUDP(t *testing.T) {
	p := loadArena(t)
	addr, stop := servedWith(t, nil, ServeConfig{Project: p, Key: &testKeys[0]})
	text, err := MintToken(&testKeys[0], TokenRequest{Game: p.Name, Servers: []string{addr}, Client: 9, Name: "udp", Life: time.Hour}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ReadTokenFile("-", bytes.NewReader(append(text, '\n')))
	if err != nil {
		t.Fatal(err)
	}
	first := playWith(t, PlayConfig{Project: p, Connect: addr, Token: &tok})
	again := playWith(t, PlayConfig{Project: p, Connect: addr, Token: &tok})
	srv := stop()
	t.Logf("first: %s; again: %s %q; server joins %d refused %d", first.State, again.State, again.Refusal, srv.Joins, srv.Refused)
	if first.State != "playing" || again.Refusal != "token_used" || srv.Joins != 1 {
		t.Fatal("wrong outcomes")
	}
}

// Without a key a server serves only on loopback unless told Insecure; a
// key and Insecure contradict; public addresses need a key. The status
// line says when a server is insecure.
func TestServeSecurityRules(t *testing.T) {
	key := &testKeys[0]
	for _, c := range []struct {
		cfg  ServeConfig
		want string
	}{
		{ServeConfig{Addr: "0.0.0.0:9000"}, "not loopback, and the server has no key"},
		{ServeConfig{Addr: "10.1.2.3:9000"}, "not loopback"},
		{ServeConfig{Addr: "0.0.0.0:9000", Insecure: true}, ""},
		{ServeConfig{Addr: "0.0.0.0:9000", Key: key}, ""},
		{ServeConfig{Addr: ":9000"}, ""},
		{ServeConfig{Addr: "localhost:9000"}, ""},
		{ServeConfig{Key: key, Insecure: true}, "drop one of --key and --insecure"},
		{ServeConfig{Public: []netip.AddrPort{netip.MustParseAddrPort("192.0.2.1:1")}}, "need a key"},
	} {
		err := c.cfg.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	for _, c := range []struct {
		cfg        ServeConfig
		addr, note string
	}{
		{ServeConfig{}, "127.0.0.1:27960", statusLoopback},
		{ServeConfig{Addr: ":9000"}, "127.0.0.1:9000", statusLoopback},
		{ServeConfig{Insecure: true}, ":27960", statusInsecure},
		{ServeConfig{Key: key}, ":27960", ""},
	} {
		addr := c.cfg.listenAddr(27960)
		bound := netip.MustParseAddrPort("127.0.0.1:27960")
		if c.cfg.Insecure || c.cfg.Key != nil {
			bound = netip.MustParseAddrPort("[::]:27960")
		}
		if addr != c.addr || c.cfg.securityNote(bound) != c.note {
			t.Errorf("%+v: listens on %q noting %q, want %q and %q", c.cfg, addr, c.cfg.securityNote(bound), c.addr, c.note)
		}
	}
}
