package session

import (
	"math"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/transport/memnet"
)

// TestALeaseThatPartsFromTheServerEnds has a client lease bench/ball's
// ball and predict it somewhere the server's ball is not, rolling, while
// its own character stands still and every prediction of it stands: the
// first snapshot whose word on the ball is far from the prediction for
// the tick it judges ends the lease, and the ball goes back to the
// server's word. Without that, a leased body that stays awake is
// predicted on for as long as the own character's predictions stand, and
// the character later meets it where the server's ball is not.
func TestALeaseThatPartsFromTheServerEnds(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	h, a, ball := ballLeased(t)
	g := a.c.Game()
	// The client has the ball 3 m from where it is, rolling away on the
	// floor.
	tr, rb := g.Store().Transform(ball), g.Store().Rigidbody(ball)
	tr.X += 3
	rb.VX, rb.Awake = 4, true
	g.Physics().Place(ball, tr, rb)
	h.run(300 * time.Millisecond)
	server := *h.server.Game().Store().Transform(ball)
	got := *g.Store().Transform(ball)
	if a.c.leases.Leased(ball, g.Tick()) {
		t.Errorf("the ball is still leased, %.2f m from the server's", math.Hypot(got.X-server.X, got.Y-server.Y))
	}
	if d := math.Hypot(got.X-server.X, got.Y-server.Y); d > 0.5 {
		t.Errorf("the client's ball is %.2f m from the server's; want it back on the server's word", d)
	}
	if a.c.partedLeases == 0 {
		t.Error("no lease ended for parting")
	}
	if n := a.c.rec.corrections; n > 1 {
		t.Errorf("%d corrections; want at most the join's 1", n)
	}
}

// TestALeasedBodyTheServerMovesIsReplayedFrom has a client lease bench/ball's
// ball at rest while the server's ball is set rolling (as another
// player's shot or push would, which this client could not predict), and
// its own character stands still, so every prediction of it stands. The
// first snapshots whose word on the ball is a few centimetres from the
// prediction for the tick they judge are replayed from: the client's ball
// rolls on as the server's does, still leased. Without that, the client
// keeps its ball at rest until it is LeaseParted from the server's word,
// and a character meeting it meanwhile meets it where the server's is not.
func TestALeasedBodyTheServerMovesIsReplayedFrom(t *testing.T) {
	t.Parallel() // its own sessions, game and link; nothing shared
	h, a, ball := ballLeased(t)
	g := a.c.Game()
	// The server's ball rolls away at 1 m/s: 0.2 m in the 200 ms below,
	// short of LeaseParted.
	srb := h.server.Game().Store().Rigidbody(ball)
	srb.VX, srb.Awake = 1, true
	corrections := a.c.rec.corrections
	h.run(200 * time.Millisecond)
	if !a.c.leases.Leased(ball, g.Tick()) {
		t.Fatal("the ball's lease ended; want it held")
	}
	if n := a.c.Stats(0).LeaseReplays; n == 0 || n != a.c.rec.leaseReplays {
		t.Errorf("the client's figures give %d replays from the server's word on the ball (%d made); want them, and at least one", n, a.c.rec.leaseReplays)
	}
	if vx := g.Store().Rigidbody(ball).VX; vx < 0.5 {
		t.Errorf("the client's ball rolls at %.2f m/s; want it rolling on as the server's, at about 1 m/s", vx)
	}
	// The client's prediction for the newest judged tick against the
	// server's word on it.
	p, _, ok := a.c.rec.pred.At(a.c.rec.judged, ball)
	w := a.c.lastWord[ball]
	if d := math.Hypot(p.X-w.t.X, p.Y-w.t.Y); !ok || d > LeaseStray {
		t.Errorf("the ball predicted %.3f m from the server's word for the judged tick (recorded %v); want at most %g", d, ok, LeaseStray)
	}
	if n := a.c.rec.corrections - corrections; n > 0 {
		t.Errorf("%d corrections; want none: the own character's predictions stood", n)
	}
}

// ballLeased starts bench/ball's server and one client over broadband,
// seated a second, with the ball leased by the client, as a push would.
func ballLeased(t *testing.T) (*harness, *peer, entity.ID) {
	t.Helper()
	h := newHarness(t, loadBall(t))
	a := h.join(loadBall(t), memnet.Broadband, 5)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(time.Second)
	ball := a.c.Game().World().Find("ball")
	if ball.IsNone() {
		t.Fatal("no ball")
	}
	a.c.leaseNow(ball)
	return h, a, ball
}
