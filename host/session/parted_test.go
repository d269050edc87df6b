package session

import (
	"math"
	"testing"
	"time"

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
	h := newHarness(t, loadBall(t))
	a := h.join(loadBall(t), memnet.Broadband, 5)
	h.runUntil(5*time.Second, "the join", func() bool { return a.c.Playing() && !a.c.Game().Own().IsNone() })
	h.run(time.Second)
	g := a.c.Game()
	ball := g.World().Find("ball")
	if ball.IsNone() {
		t.Fatal("no ball")
	}
	// The client leases the ball, as a push would, and has it 3 m from
	// where it is, rolling away on the floor.
	a.c.leaseNow(ball)
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
