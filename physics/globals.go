package physics

import (
	"sync"

	"github.com/ByteArena/box2d"
)

// box2dGlobals serialises what box2d keeps in package variables: its
// distance and time-of-impact routines tally their calls and iterations in
// globals (statistics nothing reads), so two Worlds stepping on two
// goroutines, as bot clients in one process do, would race on them. Every
// call that reaches those routines (a step, a shape overlap test) holds
// this lock; uncontended, it costs a step a few tens of nanoseconds.
var box2dGlobals sync.Mutex

// overlap is box2d.B2TestOverlapShapes, which runs the distance routine,
// under box2dGlobals.
func overlap(a box2d.B2ShapeInterface, ia int, b box2d.B2ShapeInterface, ib int, xfA, xfB box2d.B2Transform) bool {
	box2dGlobals.Lock()
	defer box2dGlobals.Unlock()
	return box2d.B2TestOverlapShapes(a, ia, b, ib, xfA, xfB)
}
