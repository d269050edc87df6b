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

// missReasons is, for each kind of aim, why the last profile of a miss of
// it found it missed, and where that profile is written down. A miss of a
// kind not here is one no build before had.
var missReasons = map[string]string{
	"meet-count": "what is left is shoves whose other player turned or jumped inside the round trip, " +
		"and a ball met where this client, not leasing it, held it a round trip old (goal resets, kicks); " +
		"given the commands the server holds the simulator's clients changed nothing, given every command made " +
		"bench/ball's worst came to 16-19 a minute (BENCHMARKS.md, \"Players who meet: what the held commands would give\")",
	// The eased aim's reason is the cause of the largest eased correction's
	// (meet-eased-CAUSE, see largestEased).
	"meet-eased-shove": "the largest are shoves on input made after this client predicted the judged tick " +
		"(a jump pressed under the own character), out of reach of any input the client could have had: " +
		"the same oracle left them where they were (BENCHMARKS.md, \"Players who meet: what the held commands would give\")",
	"meet-eased-lease": "traced, the arena's were leased crates another player's shot or push moved, which the client " +
		"predicted on its own until its character met them; now a leased body 2 cm off the server's word is replayed from it. " +
		"What is left is a body met as its lease is taken, where the client held it at its newest word, a round trip " +
		"old (a rolling or kicked ball, a knocked crate in flight, a ball the server's goal sent back), as for the unleased " +
		"(BENCHMARKS.md, \"Players who meet: the leased bodies' corrections, traced\")",
	"meet-eased-other": "traced, the own character meets a body this client does not lease where it holds it at its " +
		"newest word, a round trip old (a ball the server's goal sent back, or another player kicked) " +
		"(BENCHMARKS.md, \"Players who meet: what the held commands would give\")",
	"crowd": "on a slower hour the send round pushes the world out of a core's cache (64 baselines; the tick after it " +
		"misses about 28 K times against 16 K after another tick); sharing baselines across connections is the next cut " +
		"(BENCHMARKS.md, \"The crowd's baselines: narrower marks and claims, removals looked for where occupants changed\")",
	"p99": "the slowest ticks do the median tick's work on a core that is slower for a moment: in 60 s runs on a quiet " +
		"machine the busy world alone read 1.36-1.60 x, with no collection in any, and its slowest 1 % of ticks ran " +
		"the same behaviors 1.7 x and the same physics 1.4 x slower than the median tick; a 20 s run's p99 rests on " +
		"13 ticks (BENCHMARKS.md, \"The matrix on the last build, and the busy world's tail over a minute\")",
	"memory": "17-18.5 MB of it are the vkmd binary's own file pages (clean, shared, reclaimed first), more than the whole " +
		"figure before; the rest is the heap (each player's baseline, the claims in flight) and the collector's room " +
		"(BENCHMARKS.md, \"Memory: where it goes, and what it buys\")",
}

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
	// why prints a missed aim's reason under its line: what the profile
	// of that kind of miss found, and where it is written down.
	why := func(key string) {
		if r, ok := missReasons[key]; ok {
			fmt.Printf("    why: %s\n", r)
		} else {
			fmt.Println("    why: not missed before: a regression, to be profiled")
		}
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
	}{{"spin50-4", aimBytesPerBody}, {"spin50-4", aimSpinBytes}, {"orbits50-4", aimBytesPerBody}, {"wobble50-4", aimBytesPerBody}} {
		aim := fmt.Sprintf("%s: bytes a moving body a snapshot <= %g", a.row, a.most)
		if a.most == aimSpinBytes {
			aim += " (half Colyseus's)"
		}
		if r, ok := server(a.row); ok {
			if b, n := bytesPerBody(r, 50); n > 0 {
				line(aim, "%s (%.2f, mean of %d players)", verdict(b <= a.most), b, n)
				if b > a.most {
					why("bytes")
				}
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
			if !(at > 0 && worst <= aimStallsPerS) {
				why("stalls")
			}
		} else {
			notRun(aim, row)
		}
	}
	for _, row := range []string{"orbits-alone", "spin500-alone"} {
		aim := fmt.Sprintf("%s: tick CPU p99 <= %g x p50", row, aimP99OverP50)
		if r, ok := server(row); ok && r.TickCPUP50us > 0 {
			x := r.TickCPUP99us / r.TickCPUP50us
			line(aim, "%s (%.2f x: p50 %.0f us, p99 %.0f us)", verdict(x <= aimP99OverP50), x, r.TickCPUP50us, r.TickCPUP99us)
			if x > aimP99OverP50 {
				why("p99")
			}
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
			if !(at > 0 && worst <= aimStallsPerS) {
				why("join")
			}
		default:
			notRun(aim, "coins-join")
		}
	}
	for _, row := range []string{"arena-meet", "ball-meet"} {
		aim := fmt.Sprintf("%s: corrections a minute <= %g, eased <= %g mm", row, aimPerMin, aimEasedMM)
		if r, ok := clients(row); ok {
			worst, at, eased := meetFigures(r)
			line(aim, "%s, %s (worst %.1f a minute, client %d; largest eased %.1f mm%s)",
				verdict(at > 0 && worst <= aimPerMin), verdict(at > 0 && eased <= aimEasedMM), worst, at, eased, pictureEase(r))
			if at > 0 && worst > aimPerMin {
				fmt.Printf("    why: client %d's corrections by cause: %s\n", at, byCause(r.Clients[at-1]))
				why("meet-count")
			}
			if at > 0 && eased > aimEasedMM {
				cause, who, mm := largestEased(r)
				if who == 0 {
					fmt.Println("    why: the largest eased is not filed under any cause")
				} else {
					fmt.Printf("    why: the largest eased is a %s correction of client %d (%.1f mm)\n", cause, who, mm)
				}
				why("meet-eased-" + cause)
			}
		} else {
			notRun(aim, row)
		}
	}
	{
		aim := fmt.Sprintf("crowd-64: CPU <= %g %%, tick CPU p99 <= %d us", aimCrowdCPU, aimCrowdP99us)
		if r, ok := server("crowd-64"); ok {
			cpu := 100 * r.CPUs / r.WallS
			line(aim, "%s, %s (%.1f %%, p99 %.0f us)", verdict(cpu <= aimCrowdCPU), verdict(r.TickCPUP99us <= aimCrowdP99us), cpu, r.TickCPUP99us)
			if cpu > aimCrowdCPU || r.TickCPUP99us > aimCrowdP99us {
				why("crowd")
			}
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
			if r.MaxRSSMB > 1.1*m.prev {
				why("memory")
			}
		} else {
			notRun(aim, m.row)
		}
	}
	fmt.Println("(beside Colyseus, bytes on the 50 turning bodies and CPU on the 500: bench/peers.sh)")
	if _, err := os.Stat(filepath.Join(dir, "crowd-64.json")); err != nil {
		fmt.Println("(reports are read from", dir+")")
	}
}

// pictureEase names the largest jump a replay made in where a client's
// own character stood, which its picture then eased out (max_ease_mm),
// where it is larger than the difference at the judged tick the aim is
// counted by: a replay also takes in what the snapshot told of the
// others since, so what a player sees move can be several times the
// correction's own size. Empty when no client reported one.
func pictureEase(r host.Report) string {
	most := 0.0
	for _, c := range r.Clients {
		most = max(most, c.MaxEaseMM)
	}
	if most == 0 {
		return ""
	}
	return fmt.Sprintf("; the picture eased up to %.1f mm", most)
}

// byCause is a client's corrections by cause, teleports aside, with its
// shoves split by what it knew of the other player's input.
func byCause(c host.ClientReport) string {
	out := ""
	for _, k := range causes {
		if k == "teleport" {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", k, c.CorrectionsByCause[k])
		if k == "shove" && c.CorrectionsByCause[k] > 0 {
			out += fmt.Sprintf(" (%d no input it had could tell: turned %d, jumped %d, unrelayed %d; known %d)",
				unforeseen(c), c.ShoveProfile["turned"], c.ShoveProfile["jumped"], c.ShoveProfile["unrelayed"], c.ShoveProfile["known"])
		}
	}
	return out
}

// largestEased returns the cause of the largest eased correction of any
// client, the client that made it (from 1; 0: none is filed under a cause
// that eases) and its size in millimetres.
func largestEased(r host.Report) (cause string, client int, mm float64) {
	best := -1.0
	for i, c := range r.Clients {
		for _, k := range causes {
			v, ok := c.LargestCorrectionByCause[k]
			if ok && k != "teleport" && k != "component" && v > best {
				best, cause, client = v, k, i+1
			}
		}
	}
	if client == 0 {
		return "", 0, 0
	}
	return cause, client, best
}
