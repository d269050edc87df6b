package view

import (
	"sync"

	"vkm/internal/entity"
)

// Sink is the page's connection when the client runs in the page itself
// (the browser client compiled to WebAssembly): the same messages a
// Server writes to its WebSocket are handed to a function instead, and
// the page's messages are given to Receive, which validates them as the
// Server does. There is no HTTP, no goroutine and no queue: a message is
// handed over before the call that made it returns, on the caller's
// goroutine.
//
// A Sink's methods are safe for concurrent use (the page's messages arrive
// on the browser's event goroutine, frames come from the client's loop);
// Send is called one message at a time.
type Sink struct {
	send   func(msg []byte)
	onLink func(Link)
	onChat func(string)
	onSend func(PageSend)
	// onInspect is SinkConfig.OnInspect.
	onInspect func(entity.ID)
	actions   *actionIndex
	in        *inputState
	bad       uint64

	mu    sync.Mutex // guards what follows and serialises send
	seq   uint64
	scene []byte
	board []byte
	chat  []byte
	voice []byte
	corr  []byte
	link  Link
}

// SinkConfig says what a Sink's page controls and where its messages go.
type SinkConfig struct {
	// Actions are the project's input actions in command order.
	Actions Actions
	// ViewWidth is the hello's view width; 0 leaves it to the page.
	ViewWidth float64
	// Title is the page's title; "" leaves the page's.
	Title string
	// Camera is how the page frames the world; zero follows the own entity.
	Camera Camera
	// Sounds are the project's sounds, which the page plays for events.
	Sounds []Sound
	// Renderer is the project's renderer script under /asset/; "" draws
	// with the page's own drawing.
	Renderer string
	// Send receives each message to the page, one JSON object as the
	// package documentation describes. It must not keep msg, and must not
	// call back into the Sink. It is required.
	Send func(msg []byte)
	// OnLink is Config.OnLink: the page's link sliders set the simulator
	// through it. Nil shows no sliders.
	OnLink func(Link)
	// OnChat is Config.OnChat: what the page's player types in the chat.
	OnChat func(text string)
	// OnSend is Config.OnSend: the project messages the page's code sends.
	OnSend func(PageSend)
	// OnInspect is Config.OnInspect: the entity the developer inspects.
	OnInspect func(entity.ID)
}

// NewSink returns a Sink that has already sent the hello message and the
// link setting: the page learns its input actions before any frame.
func NewSink(cfg SinkConfig) *Sink {
	s := &Sink{send: cfg.Send, onLink: cfg.OnLink, onChat: cfg.OnChat, onSend: cfg.OnSend, onInspect: cfg.OnInspect, actions: newActionIndex(&cfg.Actions), in: newInputState(&cfg.Actions)}
	s.send(encodeHello(&cfg.Actions, cfg.ViewWidth, pageHello{Title: cfg.Title, Camera: &cfg.Camera, Renderer: cfg.Renderer, Sounds: cfg.Sounds}))
	s.send(encodeLink(Link{}, cfg.OnLink != nil))
	return s
}

// Publish hands the frame message for f to the page. f is encoded before
// Publish returns, so the caller may reuse its slices.
func (s *Sink) Publish(f Frame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.send(encodeFrame(s.seq, &f))
}

// SetScene hands the page the scene message when it differs from the last.
func (s *Sink) SetScene(sc Scene) { s.setOnChange(&s.scene, encodeScene(&sc)) }

// SetBoard hands the page the board message when it differs from the last.
func (s *Sink) SetBoard(b Board) { s.setOnChange(&s.board, encodeBoard(&b)) }

// SetCorrections hands the page the corrections message when it differs
// from the last.
func (s *Sink) SetCorrections(list []Correction) { s.setOnChange(&s.corr, encodeCorrections(list)) }

func (s *Sink) setOnChange(last *[]byte, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if string(*last) == string(msg) {
		return
	}
	*last = msg
	s.send(msg)
}

// SetLink sets the link setting the sliders show, clamped as Server.SetLink
// clamps it, without calling SinkConfig.OnLink.
func (s *Sink) SetLink(l Link) {
	l = clampLink(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.link = l
	s.send(encodeLink(l, s.onLink != nil))
}

// TakeInput is Server.TakeInput for the page's input.
func (s *Sink) TakeInput() (axes []float64, held, pressed []bool) { return s.in.take() }

// TakeInputOf is Server.TakeInputOf for the page's input.
func (s *Sink) TakeInputOf(player int) (axes []float64, held, pressed []bool) {
	return s.in.takeOf(player)
}

// Receive acts on one message from the page, at most 4 KiB, as a Server
// acts on one from its WebSocket. A message that is malformed, too large
// or of no known kind is ignored, counted and returned as an error.
func (s *Sink) Receive(msg []byte) error {
	err := s.receive(msg)
	if err != nil {
		s.mu.Lock()
		s.bad++
		s.mu.Unlock()
	}
	return err
}

func (s *Sink) receive(msg []byte) error {
	if len(msg) > maxMessageBytes {
		return errMalformed
	}
	m, err := parseMessage(msg, s.actions)
	if err != nil {
		return err
	}
	switch m.kind {
	case msgInput:
		s.in.apply(nil, &m)
	case msgChat:
		if s.onChat != nil && m.text != "" {
			s.onChat(m.text)
		}
	case msgSend:
		if s.onSend != nil {
			s.onSend(m.send)
		}
	case msgInspect:
		if s.onInspect != nil {
			s.onInspect(m.id)
		}
	case msgLink:
		if s.onLink == nil {
			return errNoLink
		}
		s.mu.Lock()
		l := m.link.apply(s.link)
		s.mu.Unlock()
		s.onLink(l)
		s.SetLink(l)
	}
	return nil
}

// Bad returns how many of the page's messages were ignored.
func (s *Sink) Bad() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bad
}

// Close is there for the client's loop, which closes whatever shows its
// frames; a Sink holds nothing to release.
func (s *Sink) Close() error { return nil }

// clampLink returns l within the sliders' limits.
func clampLink(l Link) Link {
	l.Latency = min(max(l.Latency, 0), MaxLatency)
	l.Jitter = min(max(l.Jitter, 0), MaxJitter)
	if !(l.Loss >= 0) { // also NaN
		l.Loss = 0
	}
	l.Loss = min(l.Loss, MaxLoss)
	return l
}
