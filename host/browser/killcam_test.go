package browser

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/view"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
	"vkm/transport/memnet"
)

// hunter is a player's input that, after four seconds, walks toward the
// other player's character, aims at it and fires four times a second.
type hunter struct {
	g    *game.Game
	n    int
	stop bool
}

func (h *hunter) Next() prediction.Command {
	var c prediction.Command
	h.n++
	if h.g == nil || h.n < 4*64 || h.stop {
		return c // four seconds of peace first: the killcam has them to show
	}
	own := h.g.Own()
	st := h.g.Store()
	if own.IsNone() || !st.Alive(own) {
		return c
	}
	var prey entity.ID
	for _, p := range h.g.Players() {
		if p.Entity != own && st.Alive(p.Entity) {
			prey = p.Entity
		}
	}
	if prey.IsNone() {
		return c
	}
	a, b := st.WorldTransform(own), st.WorldTransform(prey)
	dx, dy := b.X-a.X, b.Y-(a.Y+0.4)
	d := math.Hypot(dx, dy)
	if d > 4 {
		c.Axes[0] = math.Copysign(1, dx)
		if h.n%48 == 0 {
			c.Pressed |= 1 // jump what stands between
		}
	}
	if d > 0 {
		c.Axes[1], c.Axes[2] = dx/d, dy/d
	}
	if h.n%16 == 0 {
		c.Held, c.Pressed = c.Held|1<<1, c.Pressed|1<<1
	}
	return c
}

// keepingPage keeps a copy of every frame's entities (the viewer reuses
// its buffers).
type keepingPage struct{ fakePage }

func (k *keepingPage) Publish(fr view.Frame) {
	fr.Entities = slices.Clone(fr.Entities)
	k.fakePage.Publish(fr)
}

// TestArenaShotDeadShowsTheKillcam: one player hunts another across the
// arena and shoots them dead. The server names the killer in the victim's
// Life.killer, and the victim's client, told of its death, asks its view
// for the arena's three-second killcam: the page is then shown the frames
// it drew over the seconds before, again, with the camera on the killer's
// character, and then the live game once more.
func TestArenaShotDeadShowsTheKillcam(t *testing.T) {
	const seed = 21
	t.Logf("seed %d", seed)
	h := serveInProcess(t, crateless(t))
	victim := h.join(memnet.Broadband, seed, nil)
	hunt := &hunter{}
	shooter := h.join(memnet.Broadband, seed+1, hunt)
	hunt.g = shooter.c.Game()
	page := &keepingPage{}
	v := newViewer(victim.c.Game(), page, ViewerConfig{})
	v.Watch(victim.c, func() transport.Time { return h.now })
	const publishEvery = 8 // a frame every 16 ms of the synthetic clock
	steps := 0
	for v.Killcams() == 0 {
		h.step()
		if steps++; steps%publishEvery == 0 {
			v.Publish()
		}
		if steps > 30*500 {
			t.Fatalf("no killcam within 30 s; the victim died %d times", deaths(t, victim.c.Game()))
		}
	}
	started := len(page.frames) - 1
	killer := shooter.c.Net().Player()
	kf := page.frames[started]
	t.Logf("the killcam started after %.1f s of play, following player %d", float64(steps)*0.002, kf.Killcam)
	if kf.Killcam != killer || kf.Own != shooter.c.Game().Own() {
		t.Fatalf("the killcam follows player %d's entity %v, want player %d's %v", kf.Killcam, kf.Own, killer, shooter.c.Game().Own())
	}
	srv := h.srv.Game()
	lifeType := -1
	for i, ty := range srv.Schema().Types {
		if ty.Name == "Life" {
			lifeType = i
		}
	}
	victimEnt := victim.c.Game().Own()
	if life := srv.Store().Component(victimEnt, lifeType); len(life) < 2 || life[1] != float64(killer) {
		t.Fatalf("the server's Life of the victim is %v, want killer %d", life, killer)
	}
	// The killcam's first frame is the frame drawn three seconds before
	// (187 frames of 16 ms), not the live one.
	const back = 187
	match := -1
	for _, d := range []int{back - 1, back, back + 1} {
		if started-d >= 0 && slices.Equal(page.frames[started-d].Entities, kf.Entities) {
			match = d
		}
	}
	t.Logf("its first frame is the one drawn %d frames before", match)
	if match < 0 {
		t.Fatal("the killcam's first frame is not the one drawn three seconds before")
	}
	if slices.Equal(page.frames[started-1].Entities, kf.Entities) {
		t.Fatal("the killcam shows the live world")
	}
	// It plays through, then the live game is shown again.
	hunt.stop = true
	for i := 0; i < back+10; i++ {
		for range publishEvery {
			h.step()
		}
		v.Publish()
	}
	last := page.frames[len(page.frames)-1]
	if last.Killcam != 0 || last.Own != victimEnt {
		t.Fatalf("after the killcam the page follows player %d's %v, want the victim's own %v", last.Killcam, last.Own, victimEnt)
	}
	if n := v.Killcams(); n != 1 {
		t.Fatalf("%d killcams shown for one death", n)
	}
}

// deaths reads the own character's Score.deaths.
func deaths(t *testing.T, g *game.Game) int {
	for i, ty := range g.Schema().Types {
		if ty.Name == "Score" {
			if v := g.Store().Component(g.Own(), i); len(v) > 1 {
				return int(v[1])
			}
		}
	}
	return -1
}

// crateless is the arena without its crates, which stand between the
// spawn points and take the shots.
func crateless(t *testing.T) *project.Project {
	dir := copyProject(t, filepath.Join("..", "..", "projects", "arena"))
	scene := filepath.Join(dir, "scenes", "arena.toml")
	b, err := os.ReadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "\n[[entity]]\n")
	kept := blocks[:1]
	for _, bl := range blocks[1:] {
		if !strings.Contains(bl, `name = "crate`) {
			kept = append(kept, bl)
		}
	}
	if len(kept) == len(blocks) {
		t.Fatal("the arena's scene has no crates to take out")
	}
	if err := os.WriteFile(scene, []byte(strings.Join(kept, "\n[[entity]]\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
