package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// printed runs f with the process's standard output captured.
func printed(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	f()
	os.Stdout = out
	w.Close()
	return <-done
}

// A missed aim is followed by why it is missed; a met one is not, and a
// meeting row's miss names its worst client's causes and the cause of the
// largest eased correction.
func TestAMissedAimSaysWhy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("crowd-64.json", `{"wall_s":20,"cpu_s":3,"max_rss_mb":44,"tick_cpu_p99_us":1500}`)
	write("ball-meet.clients.json", `{"clients":[{"tick_rate":64,"ticks":1280,"corrections":10,
		"corrections_by_cause":{"shove":6,"other":4},"largest_correction_by_cause":{"shove":255,"other":40},
		"shove_profile":{"turned":1,"jumped":3,"known":2},"max_correction_mm":255,"max_ease_mm":1180}]}`)
	write("spin500-alone.json", `{"wall_s":20,"cpu_s":3,"tick_cpu_p50_us":1000,"tick_cpu_p99_us":2100}`)
	// The arena's largest eased is a lease correction, of its second
	// client: its reason is the leases' trace, not the shoves'.
	write("arena-meet.clients.json", `{"clients":[{"tick_rate":64,"ticks":1280,"corrections":3,
		"corrections_by_cause":{"shove":2,"lease":1},"largest_correction_by_cause":{"shove":90,"lease":40},
		"shove_profile":{"turned":1,"known":1},"max_correction_mm":90},
		{"tick_rate":64,"ticks":1280,"corrections":4,
		"corrections_by_cause":{"shove":1,"lease":3},"largest_correction_by_cause":{"shove":60,"lease":162},
		"shove_profile":{"jumped":1},"max_correction_mm":162}]}`)
	out := printed(t, func() { aims(dir) })
	lines := strings.Split(out, "\n")
	after := func(prefix string) string {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) && i+1 < len(lines) {
				return lines[i+1]
			}
		}
		t.Fatalf("no line %q in:\n%s", prefix, out)
		return ""
	}
	if next := after("crowd-64: CPU"); strings.HasPrefix(next, "    why:") {
		t.Errorf("the crowd's CPU aims were met, yet: %q", next)
	}
	if next := after("crowd-64: memory"); !strings.Contains(next, "why: 17-18.5 MB") {
		t.Errorf("the crowd's memory was missed, and then: %q", next)
	}
	if next := after("spin500-alone:"); !strings.Contains(next, "why: the slowest ticks do the median tick's work") {
		t.Errorf("the busy world's tail was missed, and then: %q", next)
	}
	if !strings.Contains(out, "largest eased 255.0 mm; the picture eased up to 1180.0 mm)") {
		t.Errorf("ball-meet's line does not give the picture's ease beside the judged tick's:\n%s", out)
	}
	if !strings.Contains(out, "largest eased 162.0 mm)") {
		t.Errorf("arena-meet reported no picture's ease, yet its line names one:\n%s", out)
	}
	if next := after("ball-meet:"); !strings.Contains(next, "shove 6 (4 no input it had could tell") {
		t.Errorf("ball-meet missed, and then: %q", next)
	}
	if next := after("    why: the largest eased is a shove correction of client 1 (255.0 mm)"); !strings.Contains(next, "shoves on input made after") {
		t.Errorf("ball-meet's largest eased is a shove's, and then: %q", next)
	}
	if next := after("    why: the largest eased is a lease correction of client 2 (162.0 mm)"); !strings.Contains(next, "the leased bodies' corrections, traced") {
		t.Errorf("arena-meet's largest eased is a lease's, and then: %q", next)
	}
	if strings.Count(out, "shoves on input made after") != 1 {
		t.Errorf("the shoves' reason given other than once, for ball-meet's alone:\n%s", out)
	}
}
