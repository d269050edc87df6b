package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"time"

	"vkm/host/project"
	"vkm/internal/cli"
)

// Options are what a replay from the command line is asked.
type Options struct {
	// Until stops the replay after this tick (0: the recording's end).
	Until uint32
	// Dump prints the world where the replay stops (Dump).
	Dump bool
	// ProjectDir, if set, plays the match on that project folder's files
	// rather than the recording's own (PlayConfig.Project).
	ProjectDir string
	// Logger receives the replayed scripts' log lines; nil discards.
	Logger *slog.Logger
	// Clock, if set, times the replay, for its speed.
	Clock func() time.Duration
	// Summary, if set, is filled with what the replay found, for a JSON
	// report.
	Summary *Summary
}

// Summary is what a replay from the command line found, as its JSON
// report gives it.
type Summary struct {
	File    string `json:"file"`
	Project string `json:"project"`
	Build   string `json:"build"`
	// Ticks were played; Checked hashes compared equal.
	Ticks   uint32 `json:"ticks"`
	Checked int    `json:"hashes_equal"`
	// TicksPerS is the replay's speed (0: not timed).
	TicksPerS float64 `json:"ticks_per_s,omitempty"`
	// Desync is the first difference, if any.
	Desync *Desync `json:"desync,omitempty"`
	// Torn: the file ends in a damaged record; End is its end record.
	Torn bool   `json:"torn"`
	End  string `json:"end,omitempty"`
	// Stopped says why the replay stopped before the recording's end.
	Stopped string `json:"stopped,omitempty"`
}

// WriteSummary writes s to path as a replay's JSON report. A replay that
// never opened its recording (s.File empty) has nothing to report, and
// writes nothing.
func WriteSummary(path string, s *Summary) error {
	if s == nil || s.File == "" {
		return nil
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Desync is a Mismatch in a Summary.
type Desync struct {
	Tick     uint32 `json:"tick"`
	LastGood uint32 `json:"last_equal_tick"`
	Why      string `json:"why"`
}

// Replay plays the recording at path and writes what it found to out: the
// recording's summary, how far it played and how fast, and every hash
// equal or the first difference. A difference is also its error, so a
// program exits non-zero on a desync.
func Replay(path string, out io.Writer, o Options) error {
	rec, err := ReadFile(path)
	if err != nil {
		return err
	}
	h := rec.Header
	fmt.Fprintf(out, "%s: %s at %d Hz, started %s; %d bytes: %d of the project's files, %d records\n",
		path, h.Project, h.TickRate, time.UnixMilli(h.Started).UTC().Format(time.RFC3339), rec.Size, len(h.Archive), rec.Records())
	if build := cli.Version("vkm"); h.Build != build {
		fmt.Fprintf(out, "recorded by %s; this is %s: a difference may be the engine's, not the match's\n", h.Build, build)
	}
	if rec.Torn {
		fmt.Fprintf(out, "the file ends in a record cut short or damaged at byte %d (a crash while it was written?): it plays to its last whole record\n", rec.TornAt)
	}
	cfg := PlayConfig{Logger: o.Logger}
	if o.ProjectDir != "" {
		if cfg.Project, err = project.LoadProject(o.ProjectDir); err != nil {
			return err
		}
		fmt.Fprintf(out, "playing it on the files of %s, not the recording's own\n", o.ProjectDir)
	}
	pl, err := NewPlayer(rec, cfg)
	if err != nil {
		return err
	}
	defer pl.Close()
	var start time.Duration
	if o.Clock != nil {
		start = o.Clock()
	}
	var first *Mismatch
	var stop error
	for o.Until == 0 || pl.Tick() < o.Until {
		err := pl.Step()
		var m *Mismatch
		if errors.As(err, &m) {
			if first == nil {
				first = m
				fmt.Fprintf(out, "DESYNC at tick %d: %s (every hash to tick %d was equal)\n", m.Tick, m.Why, m.LastGood)
			}
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			stop = err
			break
		}
	}
	sum := o.Summary
	if sum == nil {
		sum = &Summary{}
	}
	*sum = Summary{File: path, Project: h.Project, Build: h.Build, Ticks: pl.Ticks, Checked: pl.Checked, Torn: rec.Torn, End: pl.End}
	if first != nil {
		sum.Desync = &Desync{Tick: first.Tick, LastGood: first.LastGood, Why: first.Why}
	}
	if stop != nil {
		sum.Stopped = stop.Error()
	}
	line := fmt.Sprintf("played %d ticks (%s of the match)", pl.Ticks, time.Duration(pl.Ticks)*time.Second/time.Duration(h.TickRate))
	if o.Clock != nil {
		d := o.Clock() - start
		sum.TicksPerS = math.Round(float64(pl.Ticks) / max(d.Seconds(), 1e-9))
		line += fmt.Sprintf(" in %s, %.0f ticks a second", d.Round(time.Millisecond), sum.TicksPerS)
	}
	switch {
	case first != nil:
		line += fmt.Sprintf("; %d hashes equal, the first difference at tick %d", pl.Checked, first.Tick)
	default:
		line += fmt.Sprintf("; every one of %d world hashes equal", pl.Checked)
	}
	if o.Until != 0 && pl.Tick() < o.Until {
		line += fmt.Sprintf("; the recording ends at tick %d, before tick %d", pl.Tick(), o.Until)
	} else if o.Until == 0 && pl.End != "" {
		line += "; end: " + pl.End
	}
	fmt.Fprintln(out, line)
	if stop != nil {
		fmt.Fprintf(out, "the replay stopped: %v\n", stop)
	}
	if o.Dump {
		if err := Dump(out, pl.Game()); err != nil {
			return err
		}
	}
	switch {
	case stop != nil:
		return stop
	case first != nil:
		return first
	}
	return nil
}
