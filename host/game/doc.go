// Package game runs one world of a project: its entity store, its box2d
// physics and its Lua behaviors, advanced by a fixed-step clock in the
// engine's order (behaviors, the character controller, physics). The same
// Game is an offline match, a server's world and a client's prediction;
// where those differ it asks its Authority (whether this end simulates an
// entity, whose command drives it, how it spawns, how it rewinds), never a
// role, and it lets the end act at fixed points of each tick through its
// Hooks. It reads no clock: frames hand it the time elapsed.
//
// One tick, as RunTick runs it (a replayed tick too, with is_replaying()
// true and nothing presented):
//
//	tick++
//	Hooks.BeforeTick        server: events, a reload due now, each player's command
//	                        client: a reload due now; other players carried on their runs
//	behaviors' on_fixed_update, for what Authority.Simulates
//	    (bindings ask Authority: IsMine, Command, Spawning, Lease, Rewind, ...)
//	Hooks.IntentsWritten    server: each player's character intent, for the relay
//	character controllers take their intent
//	physics step            Authority.Told: bodies this end does not simulate
//	                        are first put where it was last told they are
//	Hooks.AfterTick         server: every player's pose for lag compensation
//	                        client: the carried characters taken back off
//
// Frame runs the ticks a frame's elapsed time makes due (Advance), then the
// behaviors' per-frame on_update once.
package game
