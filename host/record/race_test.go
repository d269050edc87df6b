//go:build race

package record

// raceOn: the race detector slows every tick several times over, so the
// long match plays its short length under it.
const raceOn = true
