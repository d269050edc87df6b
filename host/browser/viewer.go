package browser

import (
	"log/slog"
	"math"
	"sort"
	"strings"
	"time"

	"vkm/host/game"
	"vkm/host/netio"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/host/view"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/transport"
)

// DrawRate is how many frames a second a client with a view runs, beside
// its ticks (Viewer.Publish): the page draws the interpolated and smoothed
// picture, which moves between ticks, so frames come faster than a 64 Hz
// tick and a 120 Hz screen gets one each refresh.
const DrawRate = 120

// reloadNotice is how long the page tells of a hot reload.
const reloadNotice = 3 * time.Second

// boardEvery is how often the scoreboard is brought up to date: its
// round trips change all the time, and a quarter second is soon enough
// for a score.
const boardEvery = 250 * time.Millisecond

// effectLinger is how long each frame repeats an effect after it was
// emitted, for a page that missed the frames before; maxEffects bounds
// how many a frame carries.
const (
	effectLinger = 250 * time.Millisecond
	maxEffects   = 64
)

// Viewer ties a client's game to its web view: it publishes what the
// client draws every frame, gives the page's input to the game as
// commands (it is a game.Input), and applies the page's link sliders to
// the simulator. Make one with StartViewer (a page of its own) or
// NewPageViewer (the page the browser client runs in); it is used on the
// client's loop, and is not safe for concurrent use.
type Viewer struct {
	srv page
	g   *game.Game
	c   *session.Client // nil offline
	// now is the session's time, which c's figures are read at (set
	// with c).
	now   func() transport.Time
	frame view.Frame
	net   view.NetStats
	// kc keeps what was drawn for a killcam, and plays one (killcam.go).
	kc killcam

	prevHeld uint32
	sceneSig uint64
	// sends are what the page's code sent, told what the server told
	// this player, for the page's code (send.go).
	sends *pageSends
	told  told
	// picked is the entity the developer inspects (inspect.go).
	picked *picked
	// changes are the change sounds' fields as the last frame showed them
	// (sound.go).
	changes []fieldsSeen
	log     *slog.Logger
	// noticesSeen is how many dev notices the client had at the last
	// frame, noticeReloads its reloads when the newest came (devNotice).
	noticesSeen, noticeReloads int

	// scoreboard names the project's scoreboard components; boardAt is
	// when the board was last brought up to date.
	scoreboard []string
	boardAt    time.Time
	board      view.Board

	// effects are the game's events of the last effectLinger, oldest
	// first, and when each was emitted; effectSeq numbers them.
	effects   []view.Effect
	effectAt  []time.Time
	effectSeq uint64

	// reloads seen, and when the last was first shown: the page tells of
	// a hot reload for a few seconds.
	reloads    int
	reloadShow time.Time

	// listedCorrects is the client's count of corrections when the
	// panel's list of them was last sent.
	listedCorrects uint64
	// rates: the snapshots and corrections counted at the start of the
	// second being measured.
	rateAt       time.Time
	rateSnaps    uint64
	rateCorrects uint64
	rateIn       uint64
	rateOut      uint64

	chatSeen // the page's chat (chat.go)
	// voiceSeen is how many times the server had spoken of the voice
	// when the page was last told (voice.go).
	voiceSeen uint64
}

// ViewerConfig is what a Viewer needs beside its game. The zero value is a
// viewer without link sliders that logs nothing.
type ViewerConfig struct {
	// Sim, if set, is the simulated link the page's sliders set.
	Sim *netio.Sim
	// Logger hears of a link setting refused; nil logs nothing.
	Logger *slog.Logger
	// OnListen, if set, hears the address StartViewer's page listens on.
	OnListen func(addr string)
	// Guests is how many guests the page drives besides its own player:
	// it splits the keyboard and reads gamepads for them (GuestInput).
	Guests int
}

func (c *ViewerConfig) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// page is where a viewer's messages go: a view.Server's WebSocket, or a
// view.Sink in the page the client itself runs in.
type page interface {
	Publish(view.Frame)
	SetScene(view.Scene)
	SetBoard(view.Board)
	SetLink(view.Link)
	SetCorrections([]view.Correction)
	SetChat([]view.ChatLine)
	TakeInput() (axes []float64, held, pressed []bool)
	TakeInputOf(player int) (axes []float64, held, pressed []bool)
	Close() error
}

var _ page = (*view.Sink)(nil)

// actions returns the project's input actions as the page lists them.
func actions(p *project.Project) view.Actions {
	var acts view.Actions
	for _, a := range p.Axes {
		acts.Axes = append(acts.Axes, view.Axis{Name: a.Name, Negative: a.Negative, Positive: a.Positive, Mouse: a.Mouse, Reach: a.Reach})
	}
	for _, b := range p.Buttons {
		acts.Buttons = append(acts.Buttons, view.Button{Name: b.Name, Keys: b.Keys, Mouse: b.Mouse})
	}
	return acts
}

// camera is p's camera as the page takes it.
func camera(p *project.Project) view.Camera {
	c := p.Camera
	return view.Camera{Mode: c.Mode, Center: c.Center, Box: c.Box, MinWidth: c.MinWidth, MaxWidth: c.MaxWidth}
}

// sounds are p's sounds as the page takes them.
func sounds(p *project.Project) []view.Sound {
	out := make([]view.Sound, len(p.Sounds))
	for i, s := range p.Sounds {
		out[i] = view.Sound{Event: s.Event, File: s.File, Volume: s.Volume, Range: s.Range}
		if s.Change.Type != "" {
			out[i].Change = s.Change.String()
		}
	}
	return out
}

// linkSetter returns what the page's link sliders call to set cfg.Sim, or
// nil without a simulator.
func linkSetter(cfg ViewerConfig) func(view.Link) {
	sim := cfg.Sim
	if sim == nil {
		return nil
	}
	return func(l view.Link) {
		lc := sim.Link()
		lc.Latency, lc.Jitter, lc.Loss = l.Latency, l.Jitter, l.Loss
		if err := sim.SetLink(lc); err != nil {
			cfg.logger().Warn("link setting refused", "err", err)
		}
	}
}

// newViewer ties g to pg.
func newViewer(g *game.Game, pg page, cfg ViewerConfig) *Viewer {
	if sim := cfg.Sim; sim != nil {
		lc := sim.Link()
		pg.SetLink(view.Link{Latency: lc.Latency, Jitter: lc.Jitter, Loss: lc.Loss})
	}
	v := &Viewer{srv: pg, g: g, rateAt: time.Now(), scoreboard: g.Project().Scoreboard, chatSeen: chatSeen{typed: &typed{}}}
	g.WatchEvents(v.effect)
	g.WatchServerMessages(v.tell)
	v.log = cfg.logger()
	return v
}

// Watch shows c's figures, drawn picture, ghost and leases on the page: c
// is the client whose game the Viewer draws, connected, and now its
// session's time.
func (v *Viewer) Watch(c *session.Client, now func() transport.Time) { v.c, v.now = c, now }

// effect keeps a presentation event for the frames of the next
// effectLinger.
func (v *Viewer) effect(name string, id entity.ID, fields map[string]any) {
	v.effectSeq++
	if len(v.effects) == maxEffects {
		v.effects, v.effectAt = v.effects[1:], v.effectAt[1:]
	}
	v.effects = append(v.effects, view.Effect{Seq: v.effectSeq, Name: name, Entity: id, Fields: fields})
	v.effectAt = append(v.effectAt, time.Now())
}

// recentEffects drops the effects older than effectLinger and returns the
// rest.
func (v *Viewer) recentEffects() []view.Effect {
	now := time.Now()
	n := 0
	for n < len(v.effectAt) && now.Sub(v.effectAt[n]) > effectLinger {
		n++
	}
	if n > 0 {
		// Copy down so the arrays do not creep forward without bound.
		v.effects = append(v.effects[:0], v.effects[n:]...)
		v.effectAt = append(v.effectAt[:0], v.effectAt[n:]...)
	}
	return v.effects
}

// Close stops the page.
func (v *Viewer) Close() { v.srv.Close() }

// Next is the page's input as the command for one tick: held buttons as
// they are, and a press for every button that went down since the last
// tick, even one already released again.
func (v *Viewer) Next() prediction.Command {
	axes, held, pressed := v.srv.TakeInput()
	return command(axes, held, pressed, &v.prevHeld)
}

// GuestInput returns the page's input for guest local (1..7) as a
// game.Input: the arrow-side keys for guest 1 and a gamepad for each
// guest from 2 on, when the page drives guests (ViewerConfig.Guests).
func (v *Viewer) GuestInput(local uint8) game.Input {
	return &guestInput{v: v, local: int(local)}
}

// guestInput is one guest's input on the page.
type guestInput struct {
	v        *Viewer
	local    int
	prevHeld uint32
}

func (g *guestInput) Next() prediction.Command {
	axes, held, pressed := g.v.srv.TakeInputOf(g.local)
	return command(axes, held, pressed, &g.prevHeld)
}

// command makes the command for one tick of the page's input: held
// buttons as they are, and a press for every button that went down since
// the last tick (prevHeld), even one already released again.
func command(axes []float64, held, pressed []bool, prevHeld *uint32) prediction.Command {
	var c prediction.Command
	for i := range min(len(axes), prediction.MaxAxes) {
		c.Axes[i] = axes[i]
	}
	var p uint32
	for i := range min(len(held), prediction.MaxButtons) {
		if held[i] {
			c.Held |= 1 << i
		}
		if pressed[i] {
			p |= 1 << i
		}
	}
	c.Pressed = p | c.Held&^*prevHeld
	c.Held |= p // a tap shorter than a tick is held for its one command
	*prevHeld = c.Held
	return c
}

// Publish sends the frame the client draws now; the client's loop calls it
// at DrawRate.
func (v *Viewer) Publish() {
	g := v.g
	v.updateScene()
	v.updateBoard()
	v.updateChat()
	v.updateVoice()
	v.updateSends()
	f := &v.frame
	f.Tick, f.Own = g.Tick(), v.camera()
	f.Entities, f.Dev, f.Leased, f.Samples = f.Entities[:0], f.Dev[:0], f.Leased[:0], f.Samples[:0]
	f.HUD = v.hud(nil)
	f.Looks = v.looks(f.Looks[:0])
	f.Errors, f.Errs = f.Errors[:0], 0
	if errs := g.ScriptErrors(); len(errs) > 0 {
		for i := max(0, len(errs)-view.MaxErrors); i < len(errs); i++ {
			f.Errors = append(f.Errors, errs[i].Error())
		}
		f.Errs = len(errs)
	}
	f.Ghost, f.Net = nil, nil
	v.changeSounds()
	f.Effects = v.recentEffects()
	f.Messages = v.recentMessages()
	f.Inspect = v.inspect()
	draw := func() {
		g.Store().Each(func(id entity.ID) bool {
			if g.Store().Body(id) != nil || id == g.Own() || v.decoration(id) {
				f.Entities = append(f.Entities, view.Pose{ID: id, Transform: g.Store().WorldTransform(id)})
			}
			return true
		})
		f.Joints = v.joints(f.Joints[:0], f.Entities)
	}
	if v.c != nil {
		v.c.Drawn(draw)
	} else {
		draw()
	}
	if g.Store().Alive(g.Own()) {
		g.Store().EachComponent(g.Own(), func(typ int, vals entity.Values) {
			if typ >= len(g.Schema().Types) {
				return
			}
			t := g.Schema().Types[typ]
			for i, fl := range t.Fields {
				if i < len(vals) {
					f.Dev = append(f.Dev, view.Stat{Label: t.Name + "." + fl.Name, Value: vals[i]})
				}
			}
		})
	}
	var st session.ClientStats
	if c := v.c; c != nil {
		st = c.Stats(v.now())
		if st.Reloads != v.reloads {
			v.reloads, v.reloadShow = st.Reloads, time.Now()
		}
	}
	f.Notice = v.devNotice(st.Reloads)
	if v.reloads > 0 && time.Since(v.reloadShow) < reloadNotice {
		f.Dev = append(f.Dev, view.Stat{Label: "scripts reloaded at tick", Value: float64(st.ReloadTick)})
	}
	if c := v.c; c != nil && c.Playing() {
		v.netStats(st)
		f.Net = &v.net
		if ghost, ok := c.Ghost(); ok {
			f.Ghost = &ghost
		}
		c.EachLeased(func(id entity.ID) bool {
			f.Leased = append(f.Leased, id)
			return true
		})
		c.EachSample(func(id entity.ID, t entity.Transform) {
			f.Samples = append(f.Samples, view.Pose{ID: id, Transform: t})
		})
	}
	v.killcam(f)
	v.srv.Publish(*f)
}

// netStats fills the panel's figures from the client's, st.
func (v *Viewer) netStats(st session.ClientStats) {
	c := v.c
	n := &v.net
	if conn := c.Net().Conn(); conn != nil {
		n.RTTms = round1(float64(conn.RTT()) / float64(time.Millisecond))
		n.LossPermille = round1(conn.Loss(v.now()) * 1000)
	}
	now := time.Now()
	if secs := now.Sub(v.rateAt).Seconds(); secs >= 1 {
		ns := c.Net().Stats()
		n.BytesInPerS = round1(float64(ns.BytesIn-v.rateIn) / secs)
		n.BytesOutPerS = round1(float64(ns.BytesOut-v.rateOut) / secs)
		n.SnapshotsPerS = round1(float64(st.Snapshots-v.rateSnaps) / secs)
		n.CorrectionsPerS = round1(float64(st.Corrections-v.rateCorrects) / secs)
		v.rateAt, v.rateSnaps, v.rateCorrects = now, st.Snapshots, st.Corrections
		v.rateIn, v.rateOut = ns.BytesIn, ns.BytesOut
	}
	n.PacingLowWater = st.PacingLowWater
	n.PacingTarget = round1(st.PacingTarget)
	n.TickSpeed = math.Round(v.g.Clock().Pace()*1000) / 1000
	n.InterpDelayTicks = round1(st.InterpDelay)
	n.InterpStalls = float64(st.InterpStalls)
	if st.Corrections != v.listedCorrects {
		v.listedCorrects = st.Corrections
		list := make([]view.Correction, len(st.Recent))
		for i, x := range st.Recent {
			list[i] = view.Correction{Tick: x.Tick, Entity: x.Entity.String(), What: x.What,
				Size: correctionSize(x.Cause, x.Distance), Cause: x.Cause.String(), Touched: x.Touched}
		}
		v.srv.SetCorrections(list)
	}
}

// updateScene sends the page the shapes and looks of every entity with a
// body when that set, or the players who drive them, have changed.
func (v *Viewer) updateScene() {
	g := v.g
	players := g.Players()
	const prime = 1099511628211
	sig := (1469598103934665603 ^ uint64(g.Own().Pack())) * prime
	for _, p := range players {
		sig = (sig ^ uint64(p.Entity.Pack())) * prime
		for i := 0; i < len(p.Name); i++ {
			sig = (sig ^ uint64(p.Name[i])) * prime
		}
	}
	g.Store().Each(func(id entity.ID) bool {
		if g.Store().Body(id) != nil || v.decoration(id) {
			sig = (sig ^ uint64(id.Pack())) * prime
		}
		return true
	})
	sig = (sig ^ g.BodyEdits()) * prime // shapes and types behaviors changed
	if sig == v.sceneSig {
		return
	}
	v.sceneSig = sig
	names := make(map[entity.ID]string, len(players))
	for _, p := range players {
		if !p.Entity.IsNone() {
			names[p.Entity] = p.Name
		}
	}
	var sc view.Scene
	g.Store().Each(func(id entity.ID) bool {
		if d := g.Store().Body(id); d != nil || v.decoration(id) {
			b := view.BodyOf(id, g.Store().Name(id), d)
			name, isPlayer := names[id]
			switch {
			case id == g.Own():
				b.Role = "own"
			case isPlayer:
				b.Role = "player"
			}
			label := ""
			if isPlayer {
				label = "{player}" // a player's character is named unless its look says otherwise
			}
			if l := g.Look(id); l != nil {
				b.Color, b.Style, b.Order = l.Color, l.Style, l.Order
				b.Sprite = spriteOf(l.Sprite)
				if l.Label != "" {
					label = l.Label
				}
			}
			b.Label = strings.ReplaceAll(label, "{player}", name)
			sc.Bodies = append(sc.Bodies, b)
		}
		return true
	})
	v.srv.SetScene(sc)
}

// updateBoard sends the page the scoreboard, at most every boardEvery: a
// row for each player with the fields of the project's scoreboard
// components its entity has, sorted by the first column (highest first)
// and then by name, and the fields of any other entity that has one of
// them (a round timer).
func (v *Viewer) updateBoard() {
	now := time.Now()
	if now.Sub(v.boardAt) < boardEvery {
		return
	}
	v.boardAt = now
	g := v.g
	st, schema := g.Store(), g.Schema()
	// The fields shown: every field of a type named alone, one of a
	// "Type.field"; names the schema lacks are left out.
	var shown []boardField
	for _, name := range v.scoreboard {
		typName, field, one := strings.Cut(name, ".")
		typ := schema.Index(typName)
		if typ < 0 {
			continue
		}
		for i, f := range schema.Types[typ].Fields {
			if !one || f.Name == field {
				shown = append(shown, boardField{typ: typ, field: i, label: typName + "." + f.Name})
			}
		}
	}
	players := g.Players()
	b := &v.board
	b.Columns, b.Rows, b.State = b.Columns[:0], b.Rows[:0], b.State[:0]
	// A field is a column when some player's entity has its component.
	var cols []boardField
	for _, sf := range shown {
		for _, p := range players {
			if st.Component(p.Entity, sf.typ) != nil {
				cols = append(cols, sf)
				b.Columns = append(b.Columns, sf.label)
				break
			}
		}
	}
	isPlayer := make(map[entity.ID]bool, len(players))
	for _, p := range players {
		isPlayer[p.Entity] = true
		row := view.BoardRow{Name: p.Name, Own: !p.Entity.IsNone() && p.Entity == g.Own(), RTTms: round1(p.RTT.Seconds() * 1000)}
		for _, c := range cols {
			x := math.NaN()
			if vals := st.Component(p.Entity, c.typ); c.field < len(vals) {
				x = vals[c.field]
			}
			row.Values = append(row.Values, x)
		}
		b.Rows = append(b.Rows, row)
	}
	sort.Stable(boardOrder(b.Rows))
	if len(shown) > 0 {
		st.Each(func(id entity.ID) bool {
			if isPlayer[id] {
				return true
			}
			for _, sf := range shown {
				if vals := st.Component(id, sf.typ); sf.field < len(vals) {
					label := sf.label
					if name := st.Name(id); name != "" {
						label = name + " " + label
					}
					b.State = append(b.State, view.Stat{Label: label, Value: vals[sf.field]})
				}
			}
			return true
		})
	}
	v.srv.SetBoard(*b)
}

// correctionSize is a correction's size as the page and the client's
// report give it: a pose's in millimetres, a component field's difference
// as it is.
func correctionSize(cause session.Cause, v float64) float64 {
	if cause == session.CauseComponent {
		return v
	}
	return round1(v * 1000)
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// boardField is one field the scoreboard shows: a field of a project
// component type, and its label.
type boardField struct {
	typ, field int
	label      string
}

// devNotice returns the newest of the dev server's notices to show, until
// a reload (the client's reloads count) takes effect after it: a refused
// reload's error stays on the developer's page until a save that loads.
func (v *Viewer) devNotice(reloads int) string {
	if v.c == nil {
		return ""
	}
	list, n := v.c.DevNotices()
	if n != v.noticesSeen {
		v.noticesSeen, v.noticeReloads = n, reloads
	}
	if len(list) == 0 || reloads != v.noticeReloads {
		return ""
	}
	return list[len(list)-1]
}

// boardOrder orders the board's rows: by the first column, highest first
// (NaN last), then by name. sort.Stable's code is smaller in the browser
// client than an instance of slices.SortStableFunc of its own.
type boardOrder []view.BoardRow

func (b boardOrder) Len() int      { return len(b) }
func (b boardOrder) Swap(i, j int) { b[i], b[j] = b[j], b[i] }
func (b boardOrder) Less(i, j int) bool {
	x, y := &b[i], &b[j]
	if len(x.Values) > 0 {
		a, c := x.Values[0], y.Values[0]
		switch {
		case a > c || (!math.IsNaN(a) && math.IsNaN(c)):
			return true
		case a < c || (math.IsNaN(a) && !math.IsNaN(c)):
			return false
		}
	}
	return x.Name < y.Name
}
