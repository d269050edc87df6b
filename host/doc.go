// Package host composes the engine into the programs' two jobs: Serve runs
// a project as a dedicated server, Play plays it offline or as a client of
// one (with a web view, a bot or a crowd of them). It is the one package
// with goroutines, timers, sockets and the wall clock: it reads datagrams
// off UDP (or an in-process netio.Loopback) and hands them, with the time, to
// the sans-IO sessions of package session, which tick a game.Game.
//
// The packages below it, each with one job:
//
//   - project: project.toml, scenes and prefabs, read and checked;
//   - store: the entities, their hierarchy and components;
//   - game: one world and its fixed tick, asking an Authority who decides;
//   - session: the server's and a client's halves of a match, sans-IO;
//   - netio: the loops' datagram sockets: UDP, an in-process Loopback,
//     the link simulator;
//   - loop: the serving loop's clock and CPU machinery: how it waits, the
//     thread CPU clock, what ticks take, the collector run between them;
//   - watch: a dev server's view of a project's saved files;
//   - bot: a seeded player of any project's input actions;
//   - view: the reference client's web page.
package host
