package browser

import (
	"cmp"
	"slices"
	"time"

	"vkm/host/game"
	"vkm/host/view"
	"vkm/internal/entity"
)

// A killcam (net.killcam) plays back what this view drew over the last
// seconds, with the camera on another player's character. The view keeps
// every frame's poses for the last game.MaxKillcamSeconds, as a
// recording's Timeline keeps its frames, and a killcam copies out the last
// seconds of them and publishes them again one a frame, the rest of each
// frame (the HUD, the network panel) live. The game plays on meanwhile;
// when the copy runs out the view is live again.

// killcam is a view's kept frames and the killcam playing, if any.
type killcam struct {
	ring []keptFrame
	// playing is the killcam's frames; at the next to show; player and
	// subject whose character it follows.
	playing []keptFrame
	at      int
	player  uint16
	subject entity.ID
	// shown counts the killcams played, for tests and the console.
	shown int
	epoch time.Time
}

// keptFrame is one frame's poses and when it was drawn, on the view's
// clock (killClock).
type keptFrame struct {
	at    time.Duration
	poses []view.Pose
}

// killClock is the time frames are kept by: the session's, when the view
// watches one, else the wall clock's since the first frame.
func (v *Viewer) killClock() time.Duration {
	if v.now != nil {
		return time.Duration(v.now())
	}
	if v.kc.epoch.IsZero() {
		v.kc.epoch = time.Now()
	}
	return time.Since(v.kc.epoch)
}

// killcam keeps f's poses and, while a killcam plays, puts the kept frame
// in its place with the camera on the killcam's character.
func (v *Viewer) killcam(f *view.Frame) {
	k := &v.kc
	f.Killcam = 0 // the frame is reused: a killcam's mark is each frame's own
	now := v.killClock()
	keep := now - game.MaxKillcamSeconds*time.Second
	drop := 0
	for drop < len(k.ring) && k.ring[drop].at < keep {
		drop++
	}
	// Reuse the oldest frame's slice for the newest.
	var reuse []view.Pose
	if drop > 0 {
		reuse = k.ring[0].poses[:0]
	}
	k.ring = append(k.ring[:0], k.ring[drop:]...)
	k.ring = append(k.ring, keptFrame{at: now, poses: append(reuse, f.Entities...)})

	if player, seconds, ok := v.g.TakeKillcam(); ok {
		v.startKillcam(player, seconds, now)
	}
	if k.playing == nil {
		return
	}
	if k.at >= len(k.playing) {
		k.playing = nil
		return
	}
	f.Entities = append(f.Entities[:0], k.playing[k.at].poses...)
	k.at++
	f.Own, f.Killcam = k.subject, k.player
}

// startKillcam copies out the kept frames of the last seconds, to play
// with the camera on player's character. A player with no character here
// shows nothing.
func (v *Viewer) startKillcam(player uint16, seconds float64, now time.Duration) {
	k := &v.kc
	var subject entity.ID
	for _, p := range v.g.Players() {
		if p.Number == player {
			subject = p.Entity
		}
	}
	if subject.IsNone() {
		return
	}
	from := now - time.Duration(seconds*float64(time.Second))
	i, _ := slices.BinarySearchFunc(k.ring, from, func(f keptFrame, t time.Duration) int { return cmp.Compare(f.at, t) })
	k.playing = k.playing[:0]
	for _, f := range k.ring[i:] {
		k.playing = append(k.playing, keptFrame{at: f.at, poses: slices.Clone(f.poses)})
	}
	k.at, k.player, k.subject = 0, player, subject
	k.shown++
}

// Killcams counts the killcams this view has played.
func (v *Viewer) Killcams() int { return v.kc.shown }

// InKillcam reports whether a killcam plays now, and whose.
func (v *Viewer) InKillcam() (player uint16, playing bool) {
	return v.kc.player, v.kc.playing != nil
}
