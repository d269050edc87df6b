package host

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vkm/host/project"
)

// loadArena and loadCrowd load the example projects.
func loadArena(t testing.TB) *project.Project { return loadProject(t, "arena") }
func loadCrowd(t testing.TB) *project.Project { return loadProject(t, "crowd") }

func loadProject(t testing.TB, name string) *project.Project {
	t.Helper()
	p, err := project.LoadProject(filepath.Join("..", "projects", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testLogger logs warnings and errors to the test's output.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// copyProject copies the project folder src into a new temporary folder
// and returns it.
func copyProject(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// slowWalker is the arena's walker running at half speed: a real change
// of the code a character is predicted with.
func slowWalker(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("../projects/arena/scripts/walker.lua")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "self:move(run)", "self:move(run * 0.5)", 1)
	if s == string(src) {
		t.Fatal("the arena's walker no longer moves with self:move(run)")
	}
	return []byte(s)
}
