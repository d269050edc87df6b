//go:build !js

package browser

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"vkm/host/web"
)

// A client refused with a Retry-After (its address's attempts all
// connecting) waits that long and tries again; here the attempt in its
// way has been closed by its handshake deadline meanwhile, and the second
// try connects.
func TestAWebClientToldToRetryTriesAgain(t *testing.T) {
	g, err := web.NewGateway(web.Config{MaxConnectingPerAddress: 1, WelcomeTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() {
		srv.Close()
		g.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first, err := web.DialWS(ctx, srv.URL, web.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	start := time.Now()
	s, err := Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"))
	if err != nil {
		t.Fatalf("a client told to retry: %v", err)
	}
	s.Close()
	if took := time.Since(start); took < time.Second {
		t.Errorf("connected after %v, before the Retry-After of 1s", took)
	}
	select {
	case <-first.Done():
	default:
		t.Error("the attempt in the way is still open")
	}
}
