package main

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"vkm/internal/cli"
)

// newProject is the project vkmd new writes: every file as it is here,
// with {{name}} in project.toml replaced by the new project's name.
//
//go:embed newproject
var newProject embed.FS

// projectName is what vkmd new takes as a project's name (the folder's
// last element): it goes into project.toml and the page's title as is.
var projectName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// runNew writes a new project in the folder args[0] names, which must not
// exist yet or be empty, and says how to check, serve and play it.
func runNew(args []string, stdout io.Writer) error {
	if len(args) == 1 && (isHelpArg(args[0]) || args[0] == "--version" || args[0] == "-version") {
		if !isHelpArg(args[0]) {
			_, err := fmt.Fprintln(stdout, cli.Version("vkmd"))
			return err
		}
		_, err := io.WriteString(stdout, `usage: vkmd new <name>

Writes a small top-down game in the folder <name> (which must not exist, or
be empty), to start a project from: project.toml, a scene, a player prefab,
the entry script with its components and join handler, and one behavior,
each commented. vkmd check passes it, and it plays as it is.

exit status:
  0  the project was written; or -h or --version answered
  1  the folder could not be written
  2  no name, more than one, or a name that is not a letter followed by
     letters, digits, - and _ (64 at most)
`)
		return err
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return cli.Usagef("usage: vkmd new <name>: one folder to write the new project in")
	}
	dir := filepath.Clean(args[0])
	name := filepath.Base(dir)
	if !projectName.MatchString(name) {
		return cli.Usagef("vkmd new %s: the name %q must be a letter followed by letters, digits, - and _ (64 at most)", args[0], name)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("vkmd new: %s exists and is not empty: the new project goes in a folder of its own", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("vkmd new: %v", err)
	}
	err := fs.WalkDir(newProject, "newproject", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "newproject"), "/")
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := newProject.ReadFile(p)
		if err != nil {
			return err
		}
		if path.Base(p) == "project.toml" {
			data = []byte(strings.ReplaceAll(string(data), "{{name}}", name))
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("vkmd new: %v", err)
	}
	_, err = fmt.Fprintf(stdout, `wrote the project %[1]s in %[2]s. Next:
  vkmd check %[2]s
      lists any mistake in it
  vkmd %[2]s
      serves it (UDP port 27960)
  client %[2]s --connect 127.0.0.1
      joins it; without --connect, plays it offline
`, name, dir)
	return err
}

// isHelpArg reports the arguments that ask for the usage.
func isHelpArg(a string) bool {
	switch a {
	case "-h", "--h", "-help", "--help":
		return true
	}
	return false
}
