package replication

import (
	"math"
	"math/bits"
)

// A connection with a Reach considers, each round, the entities within
// Near of its own and the far ones whose turn it is (see Reach); on a
// crowded level that is a fraction of the world. Rather than have every
// connection walk the whole world to find them, the round indexes its
// entities once (reachIndex, built by seal): by the residue of their slot
// modulo ReachEvery, which says whose turn it is, and by a grid of their
// positions, which says who may be near. A connection then visits the
// union of its turn's class, the cells around its own entity and the
// entities the grid does not hold, in ascending order, and judges each as
// the walk would have (Peer.farOff): the index only leaves out entities
// the walk would have skipped, so a snapshot is the same to the bit.

// Grid tuning constants: a cell's side in metres, the most cells a grid
// has (a wider world gets wider cells), and how far out a position may be
// and still be put in the grid (beyond, an entity is visited every round
// and judged on its own).
const (
	reachCell     = 16.0
	reachMaxCells = 4096
	reachGridSpan = 1e6
)

// reachIndex is a round's index of its entities for connections with a
// Reach whose Every is ReachEvery. Bit i of a set names r.ents[i].
type reachIndex struct {
	words int // per set
	// classes holds ReachEvery sets: the k-th holds every entity, bar
	// those in an instance, whose slot is k modulo ReachEvery.
	classes []uint64
	// loose holds the entities, bar those in an instance, the grid does
	// not: unplaced, or with a position out of the grid's span.
	loose []uint64
	// The grid: nx by ny cells of side cell from (minX, minY); the
	// entities of cell c are ents[start[c]:start[c+1]], ascending, and
	// at[start[c]:start[c+1]] their positions, so that a connection
	// measuring its distance to them reads the grid alone.
	minX, minY float64
	cell       float64
	nx, ny     int
	start      []int32
	ents       []int32
	at         [][2]float32
	cellOf     []int32 // by entity: its cell, or -1
}

// gridded reports whether an entity at (x, y) goes in the grid.
func gridded(x, y float32) bool {
	return math.Abs(float64(x)) <= reachGridSpan && math.Abs(float64(y)) <= reachGridSpan
}

// reachReady builds r's reachIndex unless this round's is built, and
// returns it.
func (r *Round) reachReady() *reachIndex {
	r.sealMu.Lock()
	defer r.sealMu.Unlock()
	if !r.reachBuilt {
		r.indexReach()
		r.reachBuilt = true
	}
	return &r.reach
}

// indexReach builds r's reachIndex; reachReady calls it.
func (r *Round) indexReach() {
	x := &r.reach
	n := len(r.ents)
	x.words = (n + 63) / 64
	x.classes = zeroed(x.classes, ReachEvery*x.words)
	x.loose = zeroed(x.loose, x.words)
	x.cellOf = x.cellOf[:0]
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i := range r.ents {
		e := &r.ents[i]
		if e.silence == InInstance {
			continue
		}
		k := int(e.id.Slot % ReachEvery)
		x.classes[k*x.words+i>>6] |= 1 << (i & 63)
		if !e.placed || !gridded(e.x, e.y) {
			x.loose[i>>6] |= 1 << (i & 63)
			continue
		}
		minX, maxX = min(minX, float64(e.x)), max(maxX, float64(e.x))
		minY, maxY = min(minY, float64(e.y)), max(maxY, float64(e.y))
	}
	x.nx, x.ny = 0, 0
	if minX > maxX {
		return // nothing placed: every entity is loose or in an instance
	}
	x.minX, x.minY, x.cell = minX, minY, reachCell
	for {
		x.nx = int((maxX-minX)/x.cell) + 1
		x.ny = int((maxY-minY)/x.cell) + 1
		if x.nx*x.ny <= reachMaxCells {
			break
		}
		x.cell *= 2
	}
	cells := x.nx * x.ny
	x.start = zeroed(x.start, cells+1)
	for i := range r.ents {
		e := &r.ents[i]
		c := int32(-1)
		if e.silence != InInstance && e.placed && gridded(e.x, e.y) {
			c = int32(x.cellAt(float64(e.x), float64(e.y)))
			x.start[c+1]++
		}
		x.cellOf = append(x.cellOf, c)
	}
	for c := range cells {
		x.start[c+1] += x.start[c]
	}
	x.ents = zeroed(x.ents, int(x.start[cells]))
	x.at = zeroed(x.at, int(x.start[cells]))
	fill := x.start[:cells] // advanced as entities are placed, then restored
	for i, c := range x.cellOf {
		if c >= 0 {
			x.ents[fill[c]] = int32(i)
			x.at[fill[c]] = [2]float32{r.ents[i].x, r.ents[i].y}
			fill[c]++
		}
	}
	for c := cells; c > 0; c-- {
		x.start[c] = x.start[c-1]
	}
	x.start[0] = 0
}

// cellAt returns the cell of a position within the grid's bounds.
func (x *reachIndex) cellAt(px, py float64) int {
	cx := min(int((px-x.minX)/x.cell), x.nx-1)
	cy := min(int((py-x.minY)/x.cell), x.ny-1)
	return cy*x.nx + cx
}

// zeroed returns s resized to n zeros, reusing its storage.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// reachVisits returns the entities this Write must visit, as a set over
// r.ents, when the round's index serves the connection: its Reach's Every
// is ReachEvery and it looks from a finite (ox, oy). Otherwise it returns
// nil, and every entity is visited. The set holds every entity farOff
// would not skip, and perhaps some it would, bar those in quiet (a set
// over r.ents of entities to skip, which it may hold or not).
func (p *Peer) reachVisits(r *Round, sc *writeScratch, ox, oy float32, quiet []uint64) []uint64 {
	if p.every != ReachEvery || !gridded(ox, oy) {
		return nil
	}
	x := r.reachReady()
	if x.words == 0 {
		return nil
	}
	k := (ReachEvery - p.writes%ReachEvery) % ReachEvery // (writes+slot)%every == 0
	v := append(sc.visit[:0], x.classes[int(k)*x.words:int(k+1)*x.words]...)
	for w := range v {
		v[w] = (v[w] | x.loose[w]) &^ quiet[w]
	}
	sc.visit = v
	if x.nx == 0 {
		return v
	}
	// The cells within Near of (ox, oy), and one more on each side for
	// the rounding of float32 differences; farOff judges each entity.
	cx0, cx1, cy0, cy1 := 0, x.nx-1, 0, x.ny-1
	if near := math.Sqrt(float64(p.nearSq)); near < 4*reachGridSpan {
		cell := func(o, from float64) int { return int(math.Floor((o - from) / x.cell)) }
		cx0, cx1 = max(cell(float64(ox)-near, x.minX)-1, 0), min(cell(float64(ox)+near, x.minX)+1, x.nx-1)
		cy0, cy1 = max(cell(float64(oy)-near, x.minY)-1, 0), min(cell(float64(oy)+near, x.minY)+1, x.ny-1)
	}
	for cy := cy0; cy <= cy1; cy++ {
		for cx := cx0; cx <= cx1; cx++ {
			c := cy*x.nx + cx
			at := x.at[x.start[c]:x.start[c+1]]
			for k, j := range x.ents[x.start[c]:x.start[c+1]] {
				if (v[j>>6]|quiet[j>>6])&(1<<(j&63)) != 0 {
					continue // to be visited already, or skipped
				}
				dx, dy := at[k][0]-ox, at[k][1]-oy
				if !(dx*dx+dy*dy > p.nearSq) {
					v[j>>6] |= 1 << (j & 63)
				}
			}
		}
	}
	return v
}

// nextVisit returns the lowest entity of set v at or after i, or -1.
func nextVisit(v []uint64, i int) int {
	w := i >> 6
	if w >= len(v) {
		return -1
	}
	word := v[w] &^ (1<<(i&63) - 1)
	for word == 0 {
		w++
		if w >= len(v) {
			return -1
		}
		word = v[w]
	}
	return w<<6 + bits.TrailingZeros64(word)
}
