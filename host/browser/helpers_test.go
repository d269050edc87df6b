package browser

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"vkm/host/project"
)

// projects is the module's example projects' folder.
var projects = filepath.Join("..", "..", "projects")

// loadArena and loadCrowd load the example projects.
func loadArena(t testing.TB) *project.Project { return loadProject(t, "arena") }
func loadCrowd(t testing.TB) *project.Project { return loadProject(t, "crowd") }

func loadProject(t testing.TB, name string) *project.Project {
	t.Helper()
	p, err := project.LoadProject(filepath.Join(projects, name))
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
