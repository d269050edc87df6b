//go:build js && wasm

package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"sync"
	"syscall/js"
	"time"

	"vkm/host/netio"
	"vkm/host/session"
	"vkm/host/view"
	"vkm/transport"
	"vkm/transport/memnet"
)

// The browser client: the same client session as a native client's
// (prediction, replay, interpolation, the project's behaviors), compiled
// to WebAssembly and run inside the page that draws it. The page's script
// (vkm-web.js) opens the link to the server (a WebRTC data channel, or the
// WebSocket fall-back) and hands it over as an object whose fields connect
// the two sides:
//
//	from the page: sendDatagram(Uint8Array), toPage(text), drawn (set
//	               true after each frame it draws)
//	set here:      onDatagrams([Uint8Array, ...]), onNetClose(why),
//	               fromPage(text), stats() → JSON text
//
// Datagrams go through sendDatagram, one message each, and come back
// through onDatagrams, every one that arrived since the last call: a tab
// that was busy (its one thread collecting garbage, or the machine taken
// by something else) hands over many at once, and the client takes only
// the newest staleKeep of them when there are more than staleBatch, as a
// full socket buffer would drop the rest. Each snapshot taken replays from
// the tick it judged, so taking every one of a backlog would cost more
// replays, each longer, and fall further behind. The page's drawing code gets the view's messages (the
// JSON of package view) through toPage and sends its input with fromPage.

// PlayInPage plays cfg as a client of the server the page's link leads to,
// until ctx ends, and returns the report. page is the object above.
// cfg.Connect is not dialled (the page has connected already); cfg.View is
// not served (the page is the view).
func PlayInPage(ctx context.Context, cfg PlayConfig, page js.Value) (ClientReport, error) {
	if cfg.Project == nil {
		return ClientReport{}, errors.New("host: no project to play")
	}
	cl := &client{cfg: cfg, start: time.Now()}
	var err error
	cl.c, err = session.NewClient(session.ClientConfig{Project: cfg.Project, Seed: cfg.Seed, Name: cfg.Name, Dev: cfg.Dev,
		Logger: cfg.logger(), OnState: cfg.OnState, Now: cl.now(), Token: cfg.Token})
	if err != nil {
		return ClientReport{}, err
	}
	defer cl.c.Close()
	cl.figures = cl.newFigures()
	link := newJSSocket(page)
	// The page's link sliders act on a simulator, as a native client's
	// view's do; it starts out perfect.
	s, err := netio.Simulate(link, memnet.Perfect.Name, 1, false)
	if err != nil {
		link.Close()
		return ClientReport{}, err
	}
	sim := s
	defer sim.Close()
	cl.sock = sim

	toPage := page.Get("toPage")
	sink := view.NewSink(view.SinkConfig{
		Actions: viewActions(cfg.Project), ViewWidth: cfg.Project.ViewWidth, OnLink: linkSetter(cfg, sim),
		Send: func(msg []byte) { toPage.Invoke(string(msg)) },
	})
	v := newViewer(cfg, cl.c.Game(), drawnPage{sink, page}, sim)
	v.c, v.now, cl.view = cl.c, cl.now, v
	if cl.cfg.Input == nil {
		cl.cfg.Input = v
	}
	page.Set("fromPage", link.funcOf(func(args []js.Value) {
		if len(args) > 0 && args[0].Type() == js.TypeString {
			sink.Receive([]byte(args[0].String()))
		}
	}))

	var perf pagePerf
	cl.timed = func(call timedCall, took time.Duration) {
		perf.add(call, took, cl.c.Stats(cl.now()).ReplayedTicks)
	}
	// The figures are read on the browser's event loop while the
	// session's loop waits for it (the page has one thread), so the
	// session is not running meanwhile.
	stats := js.FuncOf(func(js.Value, []js.Value) any {
		f := perf.figures()
		f.StaleDropped = link.staleDropped()
		b, _ := json.Marshal(struct {
			Report ClientReport `json:"report"`
			Perf   perfFigures  `json:"perf"`
		}{cl.report(), f})
		return string(b)
	})
	link.fns = append(link.fns, stats)
	page.Set("stats", stats)
	cfg.logger().Info("joining over the page's link", "project", cfg.Project.Name)
	return cl.run(ctx)
}

// drawnPage hands the page a frame only once it has drawn the last: the
// page draws at the display's rate, and a frame it would never draw costs
// the tab's one thread its encoding and parsing. The page sets drawn after
// each of its animation frames.
type drawnPage struct {
	*view.Sink
	page js.Value
}

func (p drawnPage) Publish(f view.Frame) {
	if !p.page.Get("drawn").Truthy() {
		return
	}
	p.page.Set("drawn", false)
	p.Sink.Publish(f)
}

// jsSocket is the page's link to the server as a socket: datagrams the
// page hears are queued for the loop, datagrams written go to the page.
type jsSocket struct {
	page js.Value
	send js.Value // page.sendDatagram
	out  js.Value // a Uint8Array of MaxDatagram bytes, reused for every send
	in   chan netio.Datagram
	fns  []js.Func // handed to the page; they stay valid as long as it is

	mu     sync.Mutex
	closed bool
	err    error
	stale  uint64 // datagrams left out of a batch
}

// A batch of more than staleBatch datagrams (at 64 snapshots a second,
// an eighth of a second of them) keeps its newest staleKeep.
const (
	staleBatch = 8
	staleKeep  = 4
)

// staleDropped returns how many datagrams were left out of batches.
func (s *jsSocket) staleDropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stale
}

// serverAddr is the address datagrams from the page's link come from:
// it has one peer, the server.
var serverAddr = netip.AddrPortFrom(netip.IPv6Unspecified(), 0)

func newJSSocket(page js.Value) *jsSocket {
	s := &jsSocket{page: page, send: page.Get("sendDatagram"), in: make(chan netio.Datagram, netio.IncomingDepth)}
	s.out = js.Global().Get("Uint8Array").New(transport.MaxDatagram)
	page.Set("onDatagrams", s.funcOf(func(args []js.Value) {
		if len(args) == 0 || args[0].Type() != js.TypeObject {
			return
		}
		list := args[0]
		n := list.Length()
		first := 0
		if n > staleBatch {
			first = n - staleKeep
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stale += uint64(first)
		for i := first; i < n && !s.closed; i++ {
			u8 := list.Index(i)
			size := u8.Get("length").Int()
			if size > transport.MaxDatagram {
				continue // not a datagram of ours: dropped, as UDP would
			}
			b := make([]byte, size)
			js.CopyBytesToGo(b, u8)
			select {
			case s.in <- netio.Datagram{From: serverAddr, Bytes: b}:
			default: // the loop is behind: drop, as the network would
			}
		}
	}))
	page.Set("onNetClose", s.funcOf(func(args []js.Value) {
		why := "the page's link closed"
		if len(args) > 0 && args[0].Type() == js.TypeString {
			why = args[0].String()
		}
		s.shut(errors.New(why))
	}))
	return s
}

// funcOf wraps fn for JavaScript, to be released when the socket closes.
// fn runs on the browser's event loop and must not block.
func (s *jsSocket) funcOf(fn func(args []js.Value)) js.Func {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		fn(args)
		return nil
	})
	s.fns = append(s.fns, f)
	return f
}

func (s *jsSocket) Incoming() <-chan netio.Datagram { return s.in }
func (s *jsSocket) LocalAddr() netip.AddrPort       { return serverAddr }

func (s *jsSocket) WriteTo(b []byte, _ netip.AddrPort) error {
	if len(b) > transport.MaxDatagram {
		return errors.New("host: datagram too large")
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("host: the page's link is closed")
	}
	js.CopyBytesToJS(s.out, b)
	s.send.Invoke(s.out.Call("subarray", 0, len(b)))
	return nil
}

func (s *jsSocket) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// shut closes Incoming with err as the reason, once.
func (s *jsSocket) shut(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed, s.err = true, err
	close(s.in)
}

// Close stops taking datagrams from the page. The functions handed to it
// stay valid (the page may still call them while it closes); they do
// nothing once closed.
func (s *jsSocket) Close() error {
	s.shut(nil)
	return nil
}

// pagePerf keeps the browser client's recent times, for the page's
// figures: how long the session's frames took (their ticks), the calls
// that replayed (a snapshot received that corrected the prediction) and
// how many ticks they ran again, and the whole step of the loop (a frame
// with sending and drawing).
type pagePerf struct {
	mu         sync.Mutex
	frames     []time.Duration // the latest perfKeep of each
	steps      []time.Duration
	replays    []time.Duration
	perTick    []time.Duration // a replay's time over its ticks
	nReplays   int             // how many calls replayed, ever
	ticks      uint64          // ticks replayed in them
	mostTicks  uint64          // the longest replay's ticks
	replayed   uint64          // the client's count after the last call
	replayTime time.Duration   // the time of every replay
}

// perfKeep is how many of the latest calls the figures are taken over:
// half a minute at 120 frames a second.
const perfKeep = 4096

func (p *pagePerf) add(call timedCall, took time.Duration, replayed uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch call {
	case timedFrame:
		p.frames = keepLast(append(p.frames, took))
	case timedStep:
		p.steps = keepLast(append(p.steps, took))
	}
	if n := replayed - p.replayed; n > 0 && call != timedStep {
		p.replays = keepLast(append(p.replays, took))
		p.perTick = keepLast(append(p.perTick, took/time.Duration(n)))
		p.nReplays++
		p.ticks += n
		p.mostTicks = max(p.mostTicks, n)
		p.replayTime += took
	}
	p.replayed = replayed
}

func keepLast(d []time.Duration) []time.Duration {
	if len(d) > 2*perfKeep {
		d = append(d[:0], d[len(d)-perfKeep:]...)
	}
	return d
}

// perfFigures are the page's figures, times in microseconds.
type perfFigures struct {
	FrameP50us      float64 `json:"frame_p50_us"`
	FrameP99us      float64 `json:"frame_p99_us"`
	StepP50us       float64 `json:"step_p50_us"`
	StepP99us       float64 `json:"step_p99_us"`
	Replays         int     `json:"replays"`
	ReplayTicks     uint64  `json:"replay_ticks"`
	ReplayMostTicks uint64  `json:"replay_most_ticks"`
	ReplayP50us     float64 `json:"replay_p50_us"`
	ReplayP99us     float64 `json:"replay_p99_us"`
	ReplayTickP50us float64 `json:"replay_tick_p50_us"`
	ReplayTickP99us float64 `json:"replay_tick_p99_us"`
	ReplayTotalMs   float64 `json:"replay_total_ms"`
	// StaleDropped counts datagrams left out of a late batch.
	StaleDropped uint64 `json:"stale_dropped"`
}

func (p *pagePerf) figures() perfFigures {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := perfFigures{Replays: p.nReplays, ReplayTicks: p.ticks, ReplayMostTicks: p.mostTicks,
		ReplayTotalMs: round1(float64(p.replayTime) / 1e6)}
	f.FrameP50us, f.FrameP99us = quantiles(p.frames)
	f.StepP50us, f.StepP99us = quantiles(p.steps)
	f.ReplayP50us, f.ReplayP99us = quantiles(p.replays)
	f.ReplayTickP50us, f.ReplayTickP99us = quantiles(p.perTick)
	return f
}

// quantiles returns the median and 99th percentile of d in microseconds.
func quantiles(d []time.Duration) (p50, p99 float64) {
	if len(d) == 0 {
		return 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	us := func(q float64) float64 { return round1(float64(s[int(q*float64(len(s)-1))]) / 1e3) }
	return us(0.5), us(0.99)
}
