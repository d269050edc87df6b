package view

import (
	"errors"
	"math"
	"sync"
	"time"

	"vkm/internal/entity"
)

// maxMessageBytes bounds what the page may send in one message. An input
// message naming every action of a large project is a few hundred bytes;
// a larger message is refused by the WebSocket reader, which closes that
// connection (and so releases what it held).
const maxMessageBytes = 4096

// msgKind says what a message from the page asks for.
type msgKind uint8

const (
	msgInput   msgKind = iota + 1 // the page's input actions
	msgLink                       // a new link simulator setting
	msgChat                       // a chat line the player typed (chat.go)
	msgSend                       // a project message the page's code sent (send.go)
	msgInspect                    // the entity the developer inspects (inspect.go)
)

// errNoLink is a link message to a server without Config.OnLink.
var errNoLink = errors.New("view: no link simulator to set")

// message is a validated message from the page: every index is in range and
// every number finite and clamped.
type message struct {
	kind   msgKind
	player int           // msgInput: the local player, 0 the page's own
	axes   []axisValue   // msgInput
	held   []buttonValue // msgInput
	link   linkUpdate    // msgLink
	text   string        // msgChat
	send   PageSend      // msgSend
	id     entity.ID     // msgInspect
}

type axisValue struct {
	i int
	v float64 // -1..1
}

type buttonValue struct {
	i    int
	down bool
}

// linkUpdate is a link message: each setting the page named, clamped.
type linkUpdate struct {
	latency, jitter         time.Duration
	loss                    float64
	hasLat, hasJit, hasLoss bool
}

// apply returns l with u's settings in place of those u names.
func (u *linkUpdate) apply(l Link) Link {
	if u.hasLat {
		l.Latency = u.latency
	}
	if u.hasJit {
		l.Jitter = u.jitter
	}
	if u.hasLoss {
		l.Loss = u.loss
	}
	return l
}

// rawMessage is the JSON shape of every message from the page:
//
//	{"t":"input","axes":{"run":-1,"aim_x":0.6},"held":{"jump":true}}
//	{"t":"link","latency_ms":80,"jitter_ms":10,"loss_pct":2}
type rawMessage struct {
	T         string             `json:"t"`
	Axes      map[string]float64 `json:"axes"`
	Held      map[string]bool    `json:"held"`
	LatencyMS *float64           `json:"latency_ms"`
	JitterMS  *float64           `json:"jitter_ms"`
	LossPct   *float64           `json:"loss_pct"`
	Text      *string            `json:"text"` // chat
	// send (send.go)
	Name   *string            `json:"name"`
	Fields map[string]rawJSON `json:"fields"`
	ID     *float64           `json:"id"` // inspect (inspect.go)
	// Player is the local player an input message is for: 0 (or
	// absent) the page's own, 1..MaxLocal-1 a guest.
	Player *float64 `json:"player"`
}

// rawJSON is one JSON value as the page wrote it.
type rawJSON []byte

var (
	errMalformed   = errors.New("view: malformed message")
	errUnknownKind = errors.New("view: unknown message kind")
)

// actionIndex finds an action's command slot by name.
type actionIndex struct {
	axes, buttons map[string]int
}

func newActionIndex(a *Actions) *actionIndex {
	ix := &actionIndex{axes: map[string]int{}, buttons: map[string]int{}}
	for i, ax := range a.Axes {
		if _, dup := ix.axes[ax.Name]; !dup {
			ix.axes[ax.Name] = i
		}
	}
	for i, bt := range a.Buttons {
		if _, dup := ix.buttons[bt.Name]; !dup {
			ix.buttons[bt.Name] = i
		}
	}
	return ix
}

// parseMessage decodes and validates one message from the page. A message
// that is not JSON of the expected shape, or of no known kind, is an error
// and is ignored whole. Within a good message, unknown actions and values
// that are not finite are left out and axis values are clamped to -1..1.
func parseMessage(b []byte, ix *actionIndex) (message, error) {
	var raw rawMessage
	if !decodeMessage(b, &raw) {
		return message{}, errMalformed
	}
	switch raw.T {
	case "input":
		return parseInput(&raw, ix), nil
	case "link":
		return message{kind: msgLink, link: parseLink(&raw)}, nil
	case "chat":
		return message{kind: msgChat, text: chatText(&raw)}, nil
	case "send":
		p, ok := parseSend(&raw)
		if !ok {
			return message{}, errMalformed
		}
		return message{kind: msgSend, send: p}, nil
	case "inspect":
		id, ok := parseInspect(&raw)
		if !ok {
			return message{}, errMalformed
		}
		return message{kind: msgInspect, id: id}, nil
	}
	return message{}, errUnknownKind
}

func parseInput(raw *rawMessage, ix *actionIndex) message {
	m := message{kind: msgInput}
	if p := raw.Player; p != nil && *p >= 0 && *p < MaxLocal && *p == math.Trunc(*p) {
		m.player = int(*p)
	}
	for name, v := range raw.Axes {
		i, ok := ix.axes[name]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		m.axes = append(m.axes, axisValue{i: i, v: min(max(v, -1), 1)})
	}
	for name, down := range raw.Held {
		if i, ok := ix.buttons[name]; ok {
			m.held = append(m.held, buttonValue{i: i, down: down})
		}
	}
	return m
}

func parseLink(raw *rawMessage) linkUpdate {
	var u linkUpdate
	if v, ok := clampPtr(raw.LatencyMS, float64(MaxLatency/time.Millisecond)); ok {
		u.latency, u.hasLat = roundMS(v), true
	}
	if v, ok := clampPtr(raw.JitterMS, float64(MaxJitter/time.Millisecond)); ok {
		u.jitter, u.hasJit = roundMS(v), true
	}
	if v, ok := clampPtr(raw.LossPct, MaxLoss*100); ok {
		u.loss, u.hasLoss = v/100, true
	}
	return u
}

// clampPtr returns *p clamped to 0..hi, and false when p is nil or not
// finite.
func clampPtr(p *float64, hi float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return min(max(*p, 0), hi), true
}

// roundMS turns milliseconds into a duration, to the microsecond.
func roundMS(ms float64) time.Duration {
	return time.Duration(math.Round(ms*1000)) * time.Microsecond
}

// inputState is the input the page holds, as one set of actions for each
// local player (the page's own, and its guests'). Of several connected
// pages, the one that sent a player's input last drives it; when that page
// closes, everything it held is released. Safe for concurrent use.
type inputState struct {
	mu      sync.Mutex
	a       *Actions
	players [MaxLocal]*playerInput // [0] always; a guest's once its input came
}

// playerInput is one local player's input.
type playerInput struct {
	owner   any // the page whose input this is (its *conn); nil when none
	axes    []float64
	held    []bool
	pressed []bool // presses since the last take
}

func newPlayerInput(a *Actions) *playerInput {
	return &playerInput{
		axes:    make([]float64, len(a.Axes)),
		held:    make([]bool, len(a.Buttons)),
		pressed: make([]bool, len(a.Buttons)),
	}
}

func newInputState(a *Actions) *inputState {
	in := &inputState{a: a}
	in.players[0] = newPlayerInput(a)
	return in
}

// apply sets the actions m names, as sent by c, and records presses.
func (in *inputState) apply(c any, m *message) {
	in.mu.Lock()
	defer in.mu.Unlock()
	p := in.players[m.player]
	if p == nil {
		p = newPlayerInput(in.a)
		in.players[m.player] = p
	}
	p.owner = c
	for _, a := range m.axes {
		p.axes[a.i] = a.v
	}
	for _, b := range m.held {
		if b.down && !p.held[b.i] {
			p.pressed[b.i] = true
		}
		p.held[b.i] = b.down
	}
}

// release lets go of every action of each player c drives. Presses
// already recorded are kept for the next take.
func (in *inputState) release(c any) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, p := range in.players {
		if p == nil || p.owner != c {
			continue
		}
		p.owner = nil
		clear(p.axes)
		clear(p.held)
	}
}

// take returns copies of the page's own player's axes and held buttons,
// and the buttons pressed since the last take, which it then forgets.
func (in *inputState) take() (axes []float64, held, pressed []bool) {
	return in.takeOf(0)
}

// takeOf is take for local player player (0..MaxLocal-1); a player no page
// has sent input for holds nothing.
func (in *inputState) takeOf(player int) (axes []float64, held, pressed []bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	p := in.players[0]
	if player > 0 && player < MaxLocal {
		p = in.players[player]
	}
	if p == nil || player < 0 || player >= MaxLocal {
		return make([]float64, len(in.a.Axes)), make([]bool, len(in.a.Buttons)), make([]bool, len(in.a.Buttons))
	}
	axes = append([]float64(nil), p.axes...)
	held = append([]bool(nil), p.held...)
	pressed = append([]bool(nil), p.pressed...)
	clear(p.pressed)
	return axes, held, pressed
}
