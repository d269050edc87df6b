package main

import (
	"fmt"
	"os"
	"path/filepath"

	"vkm/host"
)

// The load matrix's aims for feel and cost, read from the reports of one
// run of bench/load.sh (its rows' names are the files' names).
const (
	aimBytesPerBody = 13.0 // bytes a moving body a snapshot, headers counted
	// aimSpinBytes is half of what Colyseus 0.16 sends a turning body of
	// bench/spin an update (20 bytes: BENCHMARKS.md, "Beside Colyseus
	// 0.16"), the same count.
	aimSpinBytes     = 10.0
	aimStallsPerS    = 1.0  // interpolation stalls a second, each client
	aimP99OverP50    = 2.0  // tick CPU time p99 over p50, a busy world alone
	aimCrowdCPU      = 25.0 // % of one core, 64 lite players
	aimCrowdP99us    = 2000 // tick CPU time p99, µs, 64 lite players
	prevBodiesRSSMB  = 14.6 // 50 bodies, the release before
	prevPlayersRSSMB = 17.0 // 64 players, the release before
)

// aims prints each aim the matrix measures, met or missed with its
// figure, or "not run" where its row's report is not in dir.
func aims(dir string) {
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	server := func(name string) (host.ServerReport, bool) {
		var r host.ServerReport
		if err := load(filepath.Join(dir, name+".json"), &r); err != nil {
			return r, false
		}
		return r, r.WallS > 0
	}
	clients := func(name string) (host.Report, bool) {
		var r host.Report
		if err := load(filepath.Join(dir, name+".clients.json"), &r); err != nil {
			return r, false
		}
		return r, len(r.Clients) > 0
	}
	line := func(aim, result string, args ...any) {
		fmt.Printf("%-66s %s\n", aim, fmt.Sprintf(result, args...))
	}
	notRun := func(aim, row string) { line(aim, "not run (row %s)", row) }
	worstStalls := func(r host.Report) (float64, int) {
		worst, at := 0.0, 0
		for i, c := range r.Clients {
			if secs := seconds(c); secs > 0 {
				if s := float64(c.InterpStalls) / secs; s > worst || at == 0 {
					worst, at = s, i+1
				}
			}
		}
		return worst, at
	}

	fmt.Println("aims (each met or missed, with its figure)")
	for _, a := range []struct {
		row  string
		most float64
	}{{"spin50-4", aimBytesPerBody}, {"spin50-4", aimSpinBytes}, {"orbits50-4", aimBytesPerBody}} {
		aim := fmt.Sprintf("%s: bytes a moving body a snapshot <= %g", a.row, a.most)
		if a.most == aimSpinBytes {
			aim += " (half Colyseus's)"
		}
		if r, ok := server(a.row); ok {
			if b, n := bytesPerBody(r, 50); n > 0 {
				line(aim, "%s (%.2f, mean of %d players)", verdict(b <= a.most), b, n)
				continue
			}
		}
		notRun(aim, a.row)
	}
	for _, row := range []string{"orbits-8", "spin500-8"} {
		aim := fmt.Sprintf("%s: stalls a second, every client <= %g", row, aimStallsPerS)
		if r, ok := clients(row); ok {
			worst, at := worstStalls(r)
			line(aim, "%s (worst %.2f, client %d of %d)", verdict(at > 0 && worst <= aimStallsPerS), worst, at, len(r.Clients))
		} else {
			notRun(aim, row)
		}
	}
	for _, row := range []string{"orbits-alone", "spin500-alone"} {
		aim := fmt.Sprintf("%s: tick CPU p99 <= %g x p50", row, aimP99OverP50)
		if r, ok := server(row); ok && r.TickCPUP50us > 0 {
			x := r.TickCPUP99us / r.TickCPUP50us
			line(aim, "%s (%.2f x: p50 %.0f us, p99 %.0f us)", verdict(x <= aimP99OverP50), x, r.TickCPUP50us, r.TickCPUP99us)
		} else {
			notRun(aim, row)
		}
	}
	{
		aim := "coins-join: the others' stalls a second with a join and a leave"
		r, ok := clients("coins-join")
		srv, _ := server("coins-join")
		switch {
		case ok && srv.Joins < 3:
			line(aim, "not measured: %d joins, and the visitor makes the third", srv.Joins)
		case ok:
			worst, at := worstStalls(r)
			line(aim, "%s (worst %.2f, client %d of %d that stayed; %d joins, %d leaves)", verdict(at > 0 && worst <= aimStallsPerS), worst, at, len(r.Clients), srv.Joins, srv.Leaves)
		default:
			notRun(aim, "coins-join")
		}
	}
	for _, row := range []string{"arena-meet", "ball-meet"} {
		aim := fmt.Sprintf("%s: corrections a minute <= %g, eased <= %g mm", row, aimPerMin, aimEasedMM)
		if r, ok := clients(row); ok {
			worst, at, eased := meetFigures(r)
			line(aim, "%s, %s (worst %.1f a minute, client %d; largest eased %.1f mm)",
				verdict(at > 0 && worst <= aimPerMin), verdict(at > 0 && eased <= aimEasedMM), worst, at, eased)
		} else {
			notRun(aim, row)
		}
	}
	{
		aim := fmt.Sprintf("crowd-64: CPU <= %g %%, tick CPU p99 <= %d us", aimCrowdCPU, aimCrowdP99us)
		if r, ok := server("crowd-64"); ok {
			cpu := 100 * r.CPUs / r.WallS
			line(aim, "%s, %s (%.1f %%, p99 %.0f us)", verdict(cpu <= aimCrowdCPU), verdict(r.TickCPUP99us <= aimCrowdP99us), cpu, r.TickCPUP99us)
		} else {
			notRun(aim, "crowd-64")
		}
	}
	for _, m := range []struct {
		row  string
		prev float64
	}{{"orbits50-4", prevBodiesRSSMB}, {"crowd-64", prevPlayersRSSMB}} {
		aim := fmt.Sprintf("%s: memory within 10 %% of %.1f MB", m.row, m.prev)
		if r, ok := server(m.row); ok {
			line(aim, "%s (%.1f MB)", verdict(r.MaxRSSMB <= 1.1*m.prev), r.MaxRSSMB)
		} else {
			notRun(aim, m.row)
		}
	}
	fmt.Println("(beside Colyseus, bytes on the 50 turning bodies and CPU on the 500: bench/peers.sh)")
	if _, err := os.Stat(filepath.Join(dir, "crowd-64.json")); err != nil {
		fmt.Println("(reports are read from", dir+")")
	}
}
