// Package loop is the serving loop's clock and CPU machinery, the parts of
// a server's loop that talk to the runtime and the kernel rather than to
// the game:
//
//   - Timer: how the loop waits between wake-ups, parked on the runtime's
//     poller (a timerfd on Linux) so that the runtime's monitor sleeps;
//   - ThreadCPU and ScriptClock: the serving thread's CPU clock, which
//     times ticks apart from the time the thread waited for a core and
//     budgets a served game's behaviors;
//   - Stats and Durations: what each tick and send round took, on the wall
//     and on that clock, as percentiles of a fixed-size histogram, and the
//     heap allocations per tick;
//   - IdleGC: the garbage collector run between ticks, in the loop's waits;
//   - Trace: every tick's phases and the collector's state around it, a row
//     a tick (vkmd --tick-log).
//
// The host's serving loop (host.Serve) owns one of each, locks itself to
// its OS thread and calls them from there; none is safe for concurrent use.
// BENCHMARKS.md ("The tick's tail") says why each is the way it is.
package loop
