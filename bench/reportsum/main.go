// Command reportsum prints the load matrix's second tables from the JSON
// reports vkmd and the client write (`--report`), for bench/load.sh:
//
//	go run ./bench/reportsum corrections CLIENTS.json
//	go run ./bench/reportsum stalls CLIENTS.json
//	go run ./bench/reportsum perbody SERVER.json BODIES
//	go run ./bench/reportsum meet CLIENTS.json
//	go run ./bench/reportsum aims DIR
//
// corrections: one row per client: corrections a minute leaving out
// teleports, the count of each cause, the largest eased correction and
// the snapshots adopted without a replay, then the revisions (replayed and
// eased, not counted: see host/session/revise.go), the largest, and the
// shoves' corrections no input the client had could tell. meet: the aims
// for players who meet, each met or missed with its figure: at most 20
// corrections a minute for every client, teleports aside, and no eased
// correction over 100 mm. stalls: one row per client: the
// frames a second a moving body was drawn frozen, the frames a second one
// was carried on by its velocity, and bytes a second received. perbody:
// the bytes a player is sent per moving body per snapshot, every header
// counted (bytes a second over snapshots a second over BODIES), as the
// mean over the server's players; meaningful when every body fits in
// every snapshot. aims: every aim the load matrix measures, met or missed
// with its figure and, under each miss, why (aims.go), from the reports
// its rows wrote into DIR.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"vkm/host"
)

// causes is the order the corrections table prints causes in.
var causes = []string{"shove", "component", "lease", "other", "teleport"}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "reportsum:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: reportsum corrections|stalls CLIENTS.json, or perbody SERVER.json BODIES")
	}
	switch args[0] {
	case "aims":
		aims(args[1])
		return nil
	case "meet":
		var r host.Report
		if err := load(args[1], &r); err != nil {
			return err
		}
		meet(r)
		return nil
	case "corrections", "stalls":
		var r host.Report
		if err := load(args[1], &r); err != nil {
			return err
		}
		if args[0] == "corrections" {
			corrections(r)
		} else {
			stalls(r)
		}
		return nil
	case "perbody":
		if len(args) != 3 {
			return fmt.Errorf("perbody needs SERVER.json and BODIES")
		}
		n, err := strconv.Atoi(args[2])
		if err != nil || n <= 0 {
			return fmt.Errorf("BODIES %q is not a positive count", args[2])
		}
		var r host.ServerReport
		if err := load(args[1], &r); err != nil {
			return err
		}
		return perBody(r, n)
	}
	return fmt.Errorf("unknown table %q", args[0])
}

func load(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// seconds is how long a client ran, from its ticks.
func seconds(c host.ClientReport) float64 {
	if c.TickRate <= 0 || c.Ticks == 0 {
		return 0
	}
	return float64(c.Ticks) / float64(c.TickRate)
}

func corrections(r host.Report) {
	fmt.Printf("%-7s %12s", "client", "per_min")
	for _, c := range causes {
		fmt.Printf(" %9s", c)
	}
	fmt.Printf(" %14s %11s %8s %9s %15s %10s %13s %16s\n", "max_eased_mm", "max_ease_mm", "adopted", "revisions", "max_revision_mm", "unforeseen", "lease_replays", "max_lease_rep_mm")
	for i, c := range r.Clients {
		secs := seconds(c)
		n := c.Corrections - c.CorrectionsByCause["teleport"]
		perMin := 0.0
		if secs > 0 {
			perMin = float64(n) * 60 / secs
		}
		fmt.Printf("%-7d %12.1f", i+1, perMin)
		for _, cause := range causes {
			fmt.Printf(" %9d", c.CorrectionsByCause[cause])
		}
		fmt.Printf(" %14.1f %11.1f %8d %9d %15.1f %10d %13s %16.1f\n", c.MaxCorrectionMM, c.MaxEaseMM, c.AdoptedSnapshots, c.Revisions, c.MaxRevisionMM, unforeseen(c),
			fmt.Sprintf("%d (%d)", c.LeaseReplays, c.LeaseReplaysMoved), c.MaxLeaseReplayMM)
	}
}

func stalls(r host.Report) {
	fmt.Printf("%-7s %10s %14s %10s\n", "client", "stalls/s", "extrapolated/s", "B/s in")
	for i, c := range r.Clients {
		secs := seconds(c)
		if secs == 0 {
			fmt.Printf("%-7d %10s %14s %10.0f\n", i+1, "-", "-", c.BytesInPerS)
			continue
		}
		fmt.Printf("%-7d %10.2f %14.2f %10.0f\n", i+1, float64(c.InterpStalls)/secs, float64(c.InterpExtrapolated)/secs, c.BytesInPerS)
	}
}

func perBody(r host.ServerReport, bodies int) error {
	b, n := bytesPerBody(r, bodies)
	if n == 0 {
		return fmt.Errorf("no player was sent snapshots")
	}
	fmt.Printf("bytes per moving body per snapshot, every header counted: %.2f (mean of %d players)\n", b, n)
	return nil
}

// bytesPerBody is the bytes a player is sent per moving body per
// snapshot, the mean over the n players sent snapshots.
func bytesPerBody(r host.ServerReport, bodies int) (mean float64, n int) {
	sum := 0.0
	for _, p := range r.Peers {
		if p.SnapshotsPerS > 0 {
			sum += p.BytesOutPerS / p.SnapshotsPerS / float64(bodies)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// unforeseen is how many of a client's shoves' corrections no input it
// had could tell: the other player turned or jumped inside the last round
// trip, or its run was not relayed.
func unforeseen(c host.ClientReport) uint64 {
	return c.ShoveProfile["turned"] + c.ShoveProfile["jumped"] + c.ShoveProfile["unrelayed"]
}

// The aims for players who meet.
const (
	aimPerMin  = 20.0
	aimEasedMM = 100.0
)

// meet prints the aims for players who meet, met or missed, with the
// worst client's figures.
func meet(r host.Report) {
	worst, worstAt, eased := meetFigures(r)
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	fmt.Printf("corrections a minute, every client, teleports aside <= %g: %s (worst %.1f, client %d)\n",
		aimPerMin, verdict(worstAt > 0 && worst <= aimPerMin), worst, worstAt)
	fmt.Printf("largest eased correction <= %g mm: %s (%.1f mm)\n", aimEasedMM, verdict(worstAt > 0 && eased <= aimEasedMM), eased)
}

// meetFigures is the worst client's corrections a minute, teleports
// aside, which client that is (from 1; 0 when none ran), and the largest
// eased correction of any client.
func meetFigures(r host.Report) (worst float64, worstAt int, eased float64) {
	for i, c := range r.Clients {
		secs := seconds(c)
		if secs == 0 {
			continue
		}
		perMin := float64(c.Corrections-c.CorrectionsByCause["teleport"]) * 60 / secs
		if perMin > worst || worstAt == 0 {
			worst, worstAt = perMin, i+1
		}
		eased = max(eased, c.MaxCorrectionMM)
	}
	return worst, worstAt, eased
}
