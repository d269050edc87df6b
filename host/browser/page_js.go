//go:build js && wasm

package browser

import (
	"encoding/json"
	"errors"
	"net/netip"
	"sync"
	"syscall/js"

	"vkm/host/game"
	"vkm/host/netio"
	"vkm/host/view"
	"vkm/transport"
)

// The browser client's glue: the same client session as a native client's
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
// replays, each longer, and fall further behind. The page's drawing code
// gets the view's messages (the JSON of package view) through toPage and
// sends its input with fromPage (NewPageViewer); the page reads the
// client's figures through stats (PageSocket.SetStats).

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

// PageSocket is the page's link to the server as a socket: datagrams the
// page hears are queued for the loop, datagrams written go to the page.
// Make one with NewPageSocket.
type PageSocket struct {
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

// StaleDropped returns how many datagrams were left out of batches.
func (s *PageSocket) StaleDropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stale
}

// serverAddr is the address datagrams from the page's link come from:
// it has one peer, the server.
var serverAddr = netip.AddrPortFrom(netip.IPv6Unspecified(), 0)

// NewPageSocket takes the page's link: the object above, whose
// onDatagrams and onNetClose it sets.
func NewPageSocket(page js.Value) *PageSocket {
	s := &PageSocket{page: page, send: page.Get("sendDatagram"), in: make(chan netio.Datagram, netio.IncomingDepth)}
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
func (s *PageSocket) funcOf(fn func(args []js.Value)) js.Func {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		fn(args)
		return nil
	})
	s.fns = append(s.fns, f)
	return f
}

func (s *PageSocket) Incoming() <-chan netio.Datagram { return s.in }
func (s *PageSocket) LocalAddr() netip.AddrPort       { return serverAddr }

func (s *PageSocket) WriteTo(b []byte, _ netip.AddrPort) error {
	if len(b) > transport.MaxDatagram {
		return errors.New("browser: datagram too large")
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("browser: the page's link is closed")
	}
	js.CopyBytesToJS(s.out, b)
	s.send.Invoke(s.out.Call("subarray", 0, len(b)))
	return nil
}

func (s *PageSocket) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// shut closes Incoming with err as the reason, once.
func (s *PageSocket) shut(err error) {
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
func (s *PageSocket) Close() error {
	s.shut(nil)
	return nil
}

// NewPageViewer ties g to the page the browser client runs in, whose link
// is link: the view's messages go through the page's toPage, and its
// input comes back through fromPage, which it sets.
func NewPageViewer(link *PageSocket, g *game.Game, cfg ViewerConfig) *Viewer {
	page := link.page
	toPage := page.Get("toPage")
	p := g.Project()
	q := &typed{}
	sends, pick := &pageSends{}, &picked{}
	acts := actions(p)
	acts.Guests = cfg.Guests
	sink := view.NewSink(view.SinkConfig{
		Actions: acts, ViewWidth: p.ViewWidth, Title: p.Title, Camera: camera(p), Sounds: sounds(p), Renderer: p.Renderer, OnLink: linkSetter(cfg), OnChat: q.add, OnSend: sends.add, OnInspect: pick.set,
		Send: func(msg []byte) { toPage.Invoke(string(msg)) },
	})
	page.Set("fromPage", link.funcOf(func(args []js.Value) {
		if len(args) > 0 && args[0].Type() == js.TypeString {
			sink.Receive([]byte(args[0].String()))
		}
	}))
	v := newViewer(g, drawnPage{sink, page}, cfg)
	v.typed = q
	v.sends, v.picked = sends, pick
	return v
}

// SetLeave gives the page its leave(): vkm-web.js calls it when the tab
// closes (pagehide), so that the client says goodbye then and its seat
// frees at once instead of when the rejoin window ends. Like stats(), it
// runs on the browser's event loop while the session's loop waits.
func (s *PageSocket) SetLeave(leave func()) {
	s.page.Set("leave", s.funcOf(func([]js.Value) { leave() }))
}

// SetStats gives the page its stats(): the JSON of what figures returns,
// read on the browser's event loop while the session's loop waits for it
// (the page has one thread), so the session is not running meanwhile.
func (s *PageSocket) SetStats(figures func() any) {
	stats := js.FuncOf(func(js.Value, []js.Value) any {
		b, _ := json.Marshal(figures())
		return string(b)
	})
	s.fns = append(s.fns, stats)
	s.page.Set("stats", stats)
}
