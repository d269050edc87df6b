//go:build !js

package browser

import (
	"context"

	"vkm/host/game"
	"vkm/host/view"
)

// A page of its own is a view.Server: an HTTP server, which a browser
// build has no use for (web_js.go).
var _ page = (*view.Server)(nil)

// StartViewer serves g's view as a web page of its own at addr
// ("127.0.0.1:8080") until ctx ends or the Viewer closes.
func StartViewer(ctx context.Context, addr string, g *game.Game, cfg ViewerConfig) (*Viewer, error) {
	p := g.Project()
	q := &typed{}
	sends, pick := &pageSends{}, &picked{}
	acts := actions(p)
	acts.Guests = cfg.Guests
	vc := view.Config{Addr: addr, Actions: acts, ViewWidth: p.ViewWidth, Title: p.Title, Icon: projectIcon(p, cfg.logger()), Camera: camera(p), Sounds: sounds(p), Renderer: p.Renderer, Assets: p.FS,
		Logger: cfg.logger(), OnLink: linkSetter(cfg), OnChat: q.add, OnSend: sends.add, OnInspect: pick.set}
	srv, err := view.Start(ctx, vc)
	if err != nil {
		return nil, err
	}
	if cfg.OnListen != nil {
		cfg.OnListen(srv.Addr())
	}
	v := newViewer(g, srv, cfg)
	v.typed = q
	v.sends, v.picked = sends, pick
	return v, nil
}
