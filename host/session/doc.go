// Package session is a match's two halves over the connection core of
// package transport: Server seats players through the project's join
// handler, runs their commands and sends each a snapshot against what it
// has confirmed; Client predicts its own player, replays on the server's
// correction, leases what it pushes and draws everyone else interpolated;
// Lite plays a bot's commands with no world, for load. Each is sans-IO:
// the caller hands it datagrams and the time, and sends what its Net
// queues, so tests run a server and its clients in one process on a
// synthetic clock. Server and Client are each the Authority of the
// game.Game they run.
//
// The package decides who sends what, and when; the bytes of its own
// formats (the payload's framing, the relay section, and the messages a
// server sends on the reliable channel: script bundles, no reload, the
// players and their round trips) are package netmsg's.
package session
