//go:build !race

package netmsg

// raceEnabled reports whether the race detector is on; its instrumentation
// changes what escapes, so allocation counts are checked only without it.
const raceEnabled = false
