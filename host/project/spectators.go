package project

// DefaultSpectators is how many spectators a server admits when
// project.toml does not say: a few friends and a stream.
const DefaultSpectators = 8

// MaxSpectators bounds spectators: each costs the server a snapshot stream,
// as a player does, but no command queue or entity.
const MaxSpectators = 256

// readSpectators reads the spectators key, DefaultSpectators when absent.
// 0 is allowed: a server that admits no spectator.
func readSpectators(root *tomlTable) int {
	if !root.has("spectators") {
		return DefaultSpectators
	}
	n, ok := root.integer("spectators")
	switch {
	case !ok:
		return DefaultSpectators
	case n < 0:
		root.fail("spectators", "%d is below 0; 0 admits no spectator, and leaving spectators out admits %d", n, DefaultSpectators)
	case n > MaxSpectators:
		root.fail("spectators", "%d is above the limit of %d (every spectator costs the server a snapshot stream each round)", n, MaxSpectators)
	}
	return int(n)
}
