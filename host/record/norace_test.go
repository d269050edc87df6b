//go:build !race

package record

// raceOn: see race_test.go.
const raceOn = false
