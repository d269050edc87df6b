package loop

import (
	"bufio"
	"fmt"
	"io"
	"runtime/metrics"
	"time"

	"vkm/host/game"
)

// TickRecord is one served tick as traced (a Trace's row): when it
// began, what it took on the wall and on the serving thread's CPU clock,
// what its phases took on each, and what the collector did meanwhile.
// Durations are in µs. The wall time left over from the phases is the
// tick's bookkeeping (the commands taken, the tick hooks) and the tracing.
type TickRecord struct {
	Tick uint32 `json:"tick"`
	// AtMs is when the tick began, in ms since the server started.
	AtMs           float64 `json:"at_ms"`
	WallUs         float64 `json:"wall_us"`
	CPUUs          float64 `json:"cpu_us"`
	BehaviorsUs    float64 `json:"behaviors_us"`
	BehaviorsCPUUs float64 `json:"behaviors_cpu_us"`
	ControllersUs  float64 `json:"controllers_us"`
	PhysicsUs      float64 `json:"physics_us"`
	PhysicsCPUUs   float64 `json:"physics_cpu_us"`
	// What the physics step did: contacts after its broad phase, islands
	// solved and the bodies in them, times of impact computed and
	// sub-steps solved at one (physics.StepCounts).
	Contacts     int `json:"contacts"`
	Islands      int `json:"islands"`
	IslandBodies int `json:"island_bodies"`
	TOIQueries   int `json:"toi_queries"`
	TOIEvents    int `json:"toi_events"`
	// AllocKB is what the process allocated on the heap during the tick.
	AllocKB float64 `json:"alloc_kb"`
	// GCMark says a collection was marking during some of the tick: its
	// write barrier was on and its worker and assists took turns with the
	// tick. GCs counts the collections that ended during the tick.
	GCMark bool   `json:"gc_mark"`
	GCs    uint32 `json:"gcs"`
}

// SlowestKept is how many of the slowest ticks a Trace keeps.
const SlowestKept = 10

// Trace records every tick's phases and the collector's state around it,
// writes a row a tick (CSV with a header: the columns are TickRecord's),
// and keeps the slowest. It is what a run with host.ServeConfig.TickLog
// pays for: a few clock reads and a runtime/metrics read a tick. Make one
// with NewTrace; it is not safe for concurrent use.
type Trace struct {
	w       *bufio.Writer
	start   time.Time
	samples [3]metrics.Sample
	// at the start of the tick being timed:
	at     time.Time
	cycles uint64
	bytes  uint64
	pauses uint64
	// odd is the pauses that broke the count's pairs: a collection that
	// found work left as it tried to end resumes marking and stops the
	// world again. Reset as each collection ends.
	odd uint64
	// rows waiting to be written, after the wake-up's ticks.
	rows    []TickRecord
	slowest []TickRecord // by wall time, slowest first
	err     error
}

// NewTrace returns a Trace writing its rows to w, which times its ticks
// from start (the server's).
func NewTrace(w io.Writer, start time.Time) *Trace {
	tr := &Trace{w: bufio.NewWriter(w), start: start}
	tr.samples[0].Name = "/gc/cycles/total:gc-cycles"
	tr.samples[1].Name = "/gc/heap/allocs:bytes"
	tr.samples[2].Name = "/sched/pauses/total/gc:seconds"
	fmt.Fprintln(tr.w, "tick,at_ms,wall_us,cpu_us,behaviors_us,behaviors_cpu_us,controllers_us,physics_us,physics_cpu_us,contacts,islands,island_bodies,toi_queries,toi_events,alloc_kb,gc_mark,gcs")
	return tr
}

// read is the collector's counters now: cycles ended, bytes allocated, and
// its stop-the-world pauses. Each collection stops the world twice, as its
// marking begins and as it ends, so an odd count (less the odd ones out)
// means it is marking.
func (tr *Trace) read() (cycles, bytes, pauses uint64) {
	metrics.Read(tr.samples[:])
	if v := tr.samples[0].Value; v.Kind() == metrics.KindUint64 {
		cycles = v.Uint64()
	}
	if v := tr.samples[1].Value; v.Kind() == metrics.KindUint64 {
		bytes = v.Uint64()
	}
	if v := tr.samples[2].Value; v.Kind() == metrics.KindFloat64Histogram {
		for _, c := range v.Float64Histogram().Counts {
			pauses += c
		}
	}
	return cycles, bytes, pauses
}

// Begin marks the start of a tick at now.
func (tr *Trace) Begin(now time.Time) {
	tr.at = now
	tr.cycles, tr.bytes, tr.pauses = tr.read()
}

// Done records the tick just run, whose phases were ph and which took wall
// and cpu.
func (tr *Trace) Done(tick uint32, ph game.TickPhases, wall, cpu time.Duration) {
	cycles, bytes, pauses := tr.read()
	r := TickRecord{
		Tick:           tick,
		AtMs:           round1(float64(tr.at.Sub(tr.start)) / float64(time.Millisecond)),
		WallUs:         micros(wall),
		CPUUs:          micros(cpu),
		BehaviorsUs:    micros(ph.Behaviors.Wall),
		BehaviorsCPUUs: micros(ph.Behaviors.CPU),
		ControllersUs:  micros(ph.Controllers.Wall),
		PhysicsUs:      micros(ph.Physics.Wall),
		PhysicsCPUUs:   micros(ph.Physics.CPU),
		Contacts:       ph.Step.Contacts,
		Islands:        ph.Step.Islands,
		IslandBodies:   ph.Step.IslandBodies,
		TOIQueries:     ph.Step.TOIQueries,
		TOIEvents:      ph.Step.TOIEvents,
		AllocKB:        round1(float64(bytes-tr.bytes) / 1024),
		GCMark:         (tr.pauses-tr.odd)%2 == 1 || pauses != tr.pauses,
		GCs:            uint32(cycles - tr.cycles),
	}
	if cycles != tr.cycles {
		// A collection ended during the tick; another will hardly have
		// begun since, so the count is even but for the odd ones out.
		tr.odd = pauses % 2
	}
	tr.rows = append(tr.rows, r)
	tr.keep(r)
}

// keep puts r among the slowest ticks if it is one.
func (tr *Trace) keep(r TickRecord) {
	i := len(tr.slowest)
	for i > 0 && tr.slowest[i-1].WallUs < r.WallUs {
		i--
	}
	if i >= SlowestKept {
		return
	}
	if len(tr.slowest) < SlowestKept {
		tr.slowest = append(tr.slowest, TickRecord{})
	}
	copy(tr.slowest[i+1:], tr.slowest[i:])
	tr.slowest[i] = r
}

// Write writes the rows of the ticks run since the last call; the loop
// calls it after a wake-up's ticks, so no tick times it.
func (tr *Trace) Write() {
	for _, r := range tr.rows {
		if tr.err != nil {
			break
		}
		_, tr.err = fmt.Fprintf(tr.w, "%d,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%.1f,%t,%d\n",
			r.Tick, r.AtMs, r.WallUs, r.CPUUs, r.BehaviorsUs, r.BehaviorsCPUUs, r.ControllersUs, r.PhysicsUs, r.PhysicsCPUUs,
			r.Contacts, r.Islands, r.IslandBodies, r.TOIQueries, r.TOIEvents, r.AllocKB, r.GCMark, r.GCs)
	}
	tr.rows = tr.rows[:0]
}

// Slowest is the slowest ticks so far by wall time, slowest first, at
// most SlowestKept of them. The slice is the Trace's: the next tick may
// change it.
func (tr *Trace) Slowest() []TickRecord { return tr.slowest }

// Close writes what is left; the first write error, if any.
func (tr *Trace) Close() error {
	tr.Write()
	if err := tr.w.Flush(); tr.err == nil {
		tr.err = err
	}
	return tr.err
}
