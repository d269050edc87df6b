// Package game runs one world of a project: its entity store, its box2d
// physics and its Lua behaviors, advanced by a fixed-step clock in the
// engine's order (behaviors, the character controller, physics). The same
// Game is an offline match, a server's world and a client's prediction;
// where those differ it asks its Authority (whether this end simulates an
// entity, whose command drives it, how it spawns, how it rewinds), never a
// role. It reads no clock: frames hand it the time elapsed.
package game
