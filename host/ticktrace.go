package host

import (
	"bufio"
	"fmt"
	"io"
	"runtime/metrics"
	"time"

	"vkm/host/game"
)

// TickRecord is one served tick as traced (ServeConfig.TickLog): when it
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

// slowestKept is how many of the slowest ticks a traced run's report lists.
const slowestKept = 10

// tickTrace records every tick's phases and the collector's state around
// it, writes a row a tick, and keeps the slowest. It is what a run with
// ServeConfig.TickLog pays for: a few clock reads and a runtime/metrics
// read a tick.
type tickTrace struct {
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

func newTickTrace(w io.Writer, start time.Time) *tickTrace {
	tr := &tickTrace{w: bufio.NewWriter(w), start: start}
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
func (tr *tickTrace) read() (cycles, bytes, pauses uint64) {
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

// begin marks the start of a tick.
func (tr *tickTrace) begin(now time.Time) {
	tr.at = now
	tr.cycles, tr.bytes, tr.pauses = tr.read()
}

// done records the tick just run, whose phases were ph and which took wall
// and cpu.
func (tr *tickTrace) done(tick uint32, ph game.TickPhases, wall, cpu time.Duration) {
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
func (tr *tickTrace) keep(r TickRecord) {
	i := len(tr.slowest)
	for i > 0 && tr.slowest[i-1].WallUs < r.WallUs {
		i--
	}
	if i >= slowestKept {
		return
	}
	if len(tr.slowest) < slowestKept {
		tr.slowest = append(tr.slowest, TickRecord{})
	}
	copy(tr.slowest[i+1:], tr.slowest[i:])
	tr.slowest[i] = r
}

// write writes the rows of the ticks run since the last call; the loop
// calls it after a wake-up's ticks, so no tick times it.
func (tr *tickTrace) write() {
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

// close writes what is left; the first write error, if any.
func (tr *tickTrace) close() error {
	tr.write()
	if err := tr.w.Flush(); tr.err == nil {
		tr.err = err
	}
	return tr.err
}
