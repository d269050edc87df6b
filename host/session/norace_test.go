//go:build !race

package session

// raceEnabled reports whether the race detector is on. A session runs on
// one goroutine, so the detector finds nothing in the long simulated
// matches, which it slows tenfold; those play a shorter part under it.
const raceEnabled = false
