//go:build js && wasm

// Webclient is the vkm client compiled to WebAssembly for a browser tab
// (`vkmd --web` serves it with its page). The page's script (vkm-web.js)
// fetches the project and opens the link to the server first, then runs
// this program with them in the global object vkmWeb:
//
//	project   Uint8Array: the project's archive (project.WriteZip)
//	config    {name, token, dev, seed, guests}: the player's name, a
//	          connect token's text form or "", whether the server is a dev
//	          server, the behaviors' random seed, how many guests to seat
//	          on this connection (0 to 7)
//
// and the link's functions host.PlayInPage describes. It plays until the
// link closes; then, or when it cannot start, it calls vkmWeb.failed with
// the reason.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"syscall/js"

	"vkm/host"
	"vkm/host/project"
	"vkm/transport/token"
)

func main() {
	page := js.Global().Get("vkmWeb")
	if page.Type() != js.TypeObject {
		fmt.Fprintln(os.Stderr, "webclient: no vkmWeb object: this program runs inside vkmd's page")
		os.Exit(2)
	}
	if err := run(page); err != nil {
		fmt.Fprintln(os.Stderr, "webclient:", err)
		if f := page.Get("failed"); f.Type() == js.TypeFunction {
			f.Invoke(err.Error())
		}
		os.Exit(1)
	}
}

func run(page js.Value) error {
	// The collector stops the tab while it runs (WebAssembly has one
	// thread): collecting a quarter as often costs a few more megabytes
	// and spares frames and replays most of those pauses.
	debug.SetGCPercent(400)
	arch := page.Get("project")
	b := make([]byte, arch.Get("length").Int())
	js.CopyBytesToGo(b, arch)
	p, err := project.LoadZip(b)
	if err != nil {
		return err
	}
	cfg := page.Get("config")
	str := func(k string) string {
		if v := cfg.Get(k); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	pc := host.PlayConfig{
		Project:  p,
		Name:     str("name"),
		Dev:      cfg.Get("dev").Truthy(),
		Spectate: cfg.Get("watch").Truthy(),
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	if v := cfg.Get("follow"); v.Type() == js.TypeNumber && v.Float() >= 0 && v.Float() <= 65535 {
		pc.Follow = uint16(v.Float())
	}
	if v := cfg.Get("seed"); v.Type() == js.TypeNumber {
		pc.Seed = uint64(v.Float())
	}
	if v := cfg.Get("guests"); v.Type() == js.TypeNumber {
		pc.Guests = min(max(v.Int(), 0), 7)
	}
	if t := str("token"); t != "" {
		tok, err := token.ParseText([]byte(t))
		if err != nil {
			return fmt.Errorf("the token in the address (#token=): %w", err)
		}
		pc.Token = &tok
	}
	rep, err := host.PlayInPage(context.Background(), pc, page)
	if err != nil {
		return err
	}
	if rep.LastError != "" {
		return fmt.Errorf("%s: %s", rep.State, rep.LastError)
	}
	return nil
}
