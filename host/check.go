package host

import (
	"fmt"

	"vkm/host/game"
	"vkm/host/project"
)

// CheckResult is what Check found in a project folder.
type CheckResult struct {
	Dir                      string // the folder as given
	Scenes, Prefabs, Scripts int    // the files read
	// Errors are every mistake found, each naming its file and, where
	// known, its line: a *project.ConfigError for project.toml, a scene or a
	// prefab, a *scripting.ScriptError for Lua.
	Errors []error

	loaded bool // project.toml loaded, so the counts mean something
}

// Summary is one line saying how the check went, e.g.
// "projects/arena: ok (1 scene, 2 prefabs, 5 scripts)".
func (r *CheckResult) Summary() string {
	files := fmt.Sprintf("%s, %s, %s", plural(r.Scenes, "scene"), plural(r.Prefabs, "prefab"), plural(r.Scripts, "script"))
	if !r.loaded {
		return fmt.Sprintf("%s: %s (project.toml did not load)", r.Dir, plural(len(r.Errors), "error"))
	}
	if len(r.Errors) == 0 {
		return fmt.Sprintf("%s: ok (%s)", r.Dir, files)
	}
	return fmt.Sprintf("%s: %s (%s)", r.Dir, plural(len(r.Errors), "error"), files)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Check loads the project in dir as a server would and reports every
// mistake it finds rather than the first: project.toml, then every scene,
// prefab and script of the folder, the scripts' registration and network
// setup, the behaviors and components the scenes and prefabs name, the
// entry scene built and each prefab spawned once (see game.Check). A
// project.toml that does not load stops the check there: what it says is
// what the rest is read by.
func Check(dir string) *CheckResult {
	r := &CheckResult{Dir: dir}
	p, err := project.LoadProject(dir)
	if err != nil {
		r.Errors = []error{err}
		return r
	}
	r.loaded = true
	c := game.Check(p)
	r.Scenes, r.Prefabs, r.Scripts, r.Errors = c.Scenes, c.Prefabs, c.Scripts, c.Errors
	return r
}
