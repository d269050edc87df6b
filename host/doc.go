// Package host composes the engine into the programs' jobs: Serve runs a
// project as a dedicated server, Play plays it offline or as a client of
// one (with a web view), PlayBots runs a crowd of bot clients, and
// PlayInPage (js/wasm) is the browser client. Each is a loop that reads
// datagrams off a socket and hands them, with the wall clock's time, to
// the sans-IO sessions of package session, which tick a game.Game; what it
// owns besides (the admin listener, a web view, a dev server's watcher) it
// starts and stops.
//
// The packages it wires, each with one job:
//
//   - project: project.toml, scenes and prefabs, read and checked;
//   - store: the entities, their hierarchy and components;
//   - game: one world and its fixed tick, asking an Authority who decides;
//   - session: the server's and a client's halves of a match, sans-IO;
//   - watch: a dev server's view of a project's saved files;
//   - bot: a seeded player of any project's input actions;
//   - netio: the loops' datagram sockets: UDP, an in-process Loopback,
//     the link simulator;
//   - loop: the serving loop's clock and CPU machinery: how it waits, the
//     thread CPU clock, what ticks take, the collector run between them;
//   - figures: each end's figures, described once for its report, its
//     status line and /metrics (this package's figures.go lists them);
//   - admin: the admin listener's /metrics, health and profiles;
//   - browser: a client's web view, and browsers' way to a server (the web
//     listener, the browser client's page and link);
//   - view: the reference client's web page.
package host
