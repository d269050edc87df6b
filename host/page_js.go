//go:build js && wasm

package host

import (
	"context"
	"errors"
	"syscall/js"
	"time"

	"vkm/host/browser"
	"vkm/host/netio"
	"vkm/host/session"
	"vkm/transport"
	"vkm/transport/memnet"
)

// PlayInPage plays cfg as a client of the server the page's link leads to,
// until ctx ends, and returns the report: the browser client, the same
// client session as a native client's compiled to WebAssembly and run in
// the page that draws it. page is the page's link and drawing, as
// browser.NewPageSocket describes it. cfg.Connect is not dialled (the page
// has connected already); cfg.View is not served (the page is the view).
func PlayInPage(ctx context.Context, cfg PlayConfig, page js.Value) (ClientReport, error) {
	if cfg.Project == nil {
		return ClientReport{}, errors.New("host: no project to play")
	}
	cl := &client{cfg: cfg, start: time.Now()}
	var err error
	cl.c, err = session.NewClient(session.ClientConfig{Project: cfg.Project, Seed: cfg.Seed, Name: cfg.Name, Dev: cfg.Dev,
		Logger: cfg.logger(), OnState: cfg.OnState, Now: cl.now(), Token: cfg.Token, Spectator: cfg.Spectate, Follow: cfg.Follow})
	if err != nil {
		return ClientReport{}, err
	}
	defer cl.c.Close()
	cl.figures = cl.newFigures()
	link := browser.NewPageSocket(page)
	// The page's link sliders act on a simulator, as a native client's
	// view's do; it starts out perfect.
	sim, err := netio.Simulate(link, memnet.Perfect.Name, 1, false)
	if err != nil {
		link.Close()
		return ClientReport{}, err
	}
	defer sim.Close()
	cl.sock = sim

	v := browser.NewPageViewer(link, cl.c.Game(), browser.ViewerConfig{Sim: sim, Logger: cfg.logger(), Guests: cfg.Guests})
	v.Watch(cl.c, cl.now)
	cl.view = v
	if cl.cfg.Input == nil {
		cl.cfg.Input = v
	}
	var perf browser.Perf
	cl.timed = func(call browser.Call, took time.Duration) {
		perf.Add(call, took, cl.c.Stats(cl.now()).ReplayedTicks)
	}
	link.SetStats(func() any {
		f := perf.Figures()
		f.StaleDropped = link.StaleDropped()
		return struct {
			Report ClientReport        `json:"report"`
			Perf   browser.PerfFigures `json:"perf"`
		}{cl.report(), f}
	})
	// Written past the link simulator: the tab is closing, and a datagram
	// the simulator holds back would never leave.
	link.SetLeave(func() {
		if cl.c.Net().State() != transport.StatePlaying {
			return
		}
		cl.c.Net().Leave(cl.now())
		for b, ok := cl.c.Net().NextDatagram(); ok; b, ok = cl.c.Net().NextDatagram() {
			link.WriteTo(b, link.LocalAddr())
		}
	})
	cfg.logger().Info("joining over the page's link", "project", cfg.Project.Name)
	return cl.run(ctx)
}
