package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDeployExamplesOutlastTheirDrain reads the Kubernetes and Agones
// examples under deploy/: each passes --drain explicitly, gives the pod a
// termination grace period at least the drain plus 10 s (the goodbyes,
// the report, Agones' Shutdown), and mounts every file of projects/arena.
func TestDeployExamplesOutlastTheirDrain(t *testing.T) {
	var want []string
	root := "../../projects/arena"
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			want = append(want, filepath.ToSlash(rel))
		}
		return err
	})
	for _, name := range []string{"kubernetes.yaml", "agones-fleet.yaml"} {
		b, err := os.ReadFile(filepath.Join("../../deploy", name))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		grace := regexp.MustCompile(`(?m)^\s*terminationGracePeriodSeconds: (\d+)`).FindStringSubmatch(s)
		drain := regexp.MustCompile(`(?m)^\s*- --drain=(\S+)`).FindStringSubmatch(s)
		if grace == nil || drain == nil {
			t.Errorf("%s: no terminationGracePeriodSeconds (%v) or no --drain (%v)", name, grace, drain)
			continue
		}
		g, _ := strconv.Atoi(grace[1])
		d, err := time.ParseDuration(drain[1])
		if err != nil {
			t.Errorf("%s: --drain=%s: %v", name, drain[1], err)
			continue
		}
		if time.Duration(g)*time.Second < d+10*time.Second {
			t.Errorf("%s: a grace period of %d s does not outlast a drain of %v by 10 s", name, g, d)
		}
		var mounted []string
		for _, m := range regexp.MustCompile(`\{key: \S+, path: (\S+)\}`).FindAllStringSubmatch(s, -1) {
			mounted = append(mounted, m[1])
		}
		slices.Sort(mounted)
		slices.Sort(want)
		if !slices.Equal(mounted, want) {
			t.Errorf("%s mounts %s, the arena has %s", name, strings.Join(mounted, " "), strings.Join(want, " "))
		}
	}
}
