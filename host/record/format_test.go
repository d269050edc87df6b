package record

import (
	"math"
	"math/rand/v2"
	"testing"

	"vkm/host/session"
	"vkm/prediction"
	"vkm/wire"
)

// TestSeatResidualsRoundTrip writes a seated player's commands through
// every case the residual says (axes on their codes and off them, held
// and pressed buttons, a held seat and its return, the client tick
// jumping, the drawn tick absent, one tick on, still, off by 256ths and
// not in 256ths at all) and reads them back to the same bits.
func TestSeatResidualsRoundTrip(t *testing.T) {
	seed := uint64(7)
	rng := rand.New(rand.NewPCG(seed, 1))
	var w, r seatState
	w.player, r.player = 3, 3
	var e enc
	var want []session.TickCommand
	cmd := session.TickCommand{Player: 3}
	sizes := map[string]int{}
	for i := range 5000 {
		c := cmd
		c.Command.Pressed = 0
		switch rng.IntN(12) {
		case 0:
			c.Command.Axes[rng.IntN(prediction.MaxAxes)] = wire.Axis.Decode(uint64(1 + rng.IntN(255)))
		case 1:
			c.Command.Axes[rng.IntN(3)] = rng.Float64()*2 - 1 // not on a code
		case 2:
			c.Command.Held = rng.Uint32()
			c.Command.Pressed = c.Command.Held &^ cmd.Command.Held
		case 3:
			c.Away = !c.Away
		case 4:
			c.ClientTick += uint32(rng.IntN(5))
		case 5:
			c.Drawn, c.DrawnAt = true, float64(rng.IntN(1<<20))/256
		case 6:
			c.Drawn, c.DrawnAt = true, rng.Float64()*1000
		case 7:
			c.Command.Axes[0] = math.Copysign(0, -1)
		}
		if !c.Away {
			c.ClientTick++
			if c.Drawn && rng.IntN(3) > 0 {
				c.DrawnAt += 1 + float64(rng.IntN(9)-4)/256
			}
		}
		cmd = c
		at := len(e.b)
		if !e.seat(&w, &c) {
			t.Fatalf("command %d not written: %+v", i, c)
		}
		sizes["bytes"] += len(e.b) - at
		want = append(want, c)
	}
	d := dec{b: e.b}
	for i, c := range want {
		var got session.TickCommand
		d.seat(&r, &got)
		if d.err != nil {
			t.Fatalf("seed %d: command %d: %v", seed, i, d.err)
		}
		if !c.Away {
			if got.ClientTick != c.ClientTick {
				t.Fatalf("seed %d: command %d: client tick %d, want %d", seed, i, got.ClientTick, c.ClientTick)
			}
		}
		got.ClientTick, c.ClientTick = 0, 0
		if math.Float64bits(got.DrawnAt) != math.Float64bits(c.DrawnAt) || got.Drawn != c.Drawn || got.Away != c.Away ||
			got.Command.Held != c.Command.Held || got.Command.Pressed != c.Command.Pressed {
			t.Fatalf("seed %d: command %d: got %+v, want %+v", seed, i, got, c)
		}
		for a := range prediction.MaxAxes {
			if math.Float64bits(got.Command.Axes[a]) != math.Float64bits(c.Command.Axes[a]) {
				t.Fatalf("seed %d: command %d axis %d: %v, want %v", seed, i, a, got.Command.Axes[a], c.Command.Axes[a])
			}
		}
	}
	if len(d.b) != 0 {
		t.Fatalf("%d bytes left over", len(d.b))
	}
	t.Logf("seed %d: %d commands in %d bytes", seed, len(want), sizes["bytes"])
}
