//go:build race

package replication

// raceEnabled: the race detector is on, and sync.Pool drops some of what
// it is given on purpose, so a count of allocations means nothing.
const raceEnabled = true
