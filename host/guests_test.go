package host

import (
	"context"
	"log/slog"
	"regexp"
	"testing"
	"testing/synctest"
	"time"

	"vkm/host/bot"
	"vkm/host/game"
	"vkm/host/netio"
)

// TestAClientSeatsItsGuests plays a client with two guests, each a wander
// bot, against a served arena for 3 s: the server seats both guests on the
// client's connection and counts their seats, the client logs them seated,
// and the run ends well.
func TestAClientSeatsItsGuests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := loadArena(t)
		var serverLog, clientLog lockedBuffer
		n := netio.NewLoopback()
		addr, stop := servedLogging(t, n, p, slog.New(slog.NewTextHandler(&serverLog, nil)))
		var ins []game.Input
		for i := range 2 {
			b, err := bot.New("wander", uint64(50+i), len(p.Axes), len(p.Buttons))
			if err != nil {
				t.Fatal(err)
			}
			ins = append(ins, b)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		b, _ := bot.New("wander", 49, len(p.Axes), len(p.Buttons))
		rep, err := Play(ctx, PlayConfig{Project: p, Connect: addr, Net: n, Name: "ada", Duration: 3 * time.Second,
			Input: b, Guests: 2, GuestInputs: ins, Logger: slog.New(slog.NewTextHandler(&clientLog, nil))})
		stop()
		if err != nil || rep.Exit != "ok" {
			t.Fatalf("play: %v, exit %q (%s)", err, rep.Exit, rep.LastError)
		}
		joined := regexp.MustCompile(`msg="guest joined" player=\d+ name="ada [23]" owner=1`).FindAllString(serverLog.String(), -1)
		seated := regexp.MustCompile(`msg="guest seated" guest=[12] player=\d+ name="ada [23]" entity=\d+#\d+`).FindAllString(clientLog.String(), -1)
		t.Logf("server: %q; client: %q", joined, seated)
		if len(joined) != 2 || len(seated) != 2 {
			t.Fatalf("server log:\n%s\nclient log:\n%s", serverLog.String(), clientLog.String())
		}
	})
}
