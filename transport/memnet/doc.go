// Package memnet is vkm's simulated network: a seeded one-way link that
// delays, jitters, drops, duplicates and reorders datagrams on a clock the
// caller moves, the named profiles a developer picks with --sim, and a Pipe
// of two links for an in-process pair of connections.
//
// Like the rest of transport it is sans-IO: no goroutines, no sleeps, no
// clock of its own. Every run is a function of its seed and the caller's
// sends and times, so a failure seen once is seen again with the same seed;
// tests print theirs.
package memnet
