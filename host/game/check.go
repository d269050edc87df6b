package game

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/scripting"
)

// Checked is what Check found in a project: how many scenes, prefabs and
// scripts it read, and every mistake in them.
type Checked struct {
	Scenes, Prefabs, Scripts int
	// Errors are the mistakes found, in the order found, each once: a
	// *project.ConfigError for a scene or prefab, a *scripting.ScriptError
	// for Lua, naming file and line where they are known.
	Errors []error
}

// Check loads p as a server would and goes on past every mistake it can,
// so that one run reports them all: it parses every scene (the entry scene
// and scenes/) and every prefab (prefabs/), compiles every *.lua of the
// project folder, runs the entry script, vkmRegisterBehaviors and
// vkmSetupNetwork, checks that each behavior and component the scenes and
// prefabs name is registered, builds the entry scene as an offline game
// does and spawns each prefab once into it, then destroys it. A prefab
// whose behavior or component is unknown is not spawned; what spawning
// would say of it has been said.
func Check(p *project.Project) Checked {
	var c Checked
	seen := map[string]bool{}
	add := func(err error) {
		err = locate(p, err)
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			c.Errors = append(c.Errors, err)
		}
	}
	scenes, prefabs, scripts := []string{p.EntryScene}, []string(nil), []string(nil)
	add(fs.WalkDir(p.FS, ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			add(fmt.Errorf("game: check: %w", err))
		case d.IsDir():
			if name != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
		case path.Ext(name) == ".lua":
			scripts = append(scripts, name)
		case path.Ext(name) != ".toml":
		case strings.HasPrefix(name, "prefabs/"):
			prefabs = append(prefabs, name)
		case strings.HasPrefix(name, "scenes/") && name != p.EntryScene:
			scenes = append(scenes, name)
		}
		return nil
	}))
	c.Scenes, c.Prefabs, c.Scripts = len(scenes), len(prefabs), len(scripts)

	for _, name := range scripts {
		data, err := fs.ReadFile(p.FS, name)
		if err != nil {
			add(fmt.Errorf("game: check: %w", err))
			continue
		}
		add(scripting.CheckSource(name, data))
	}
	// Each file's entities, by file, for the registration checks.
	files := map[string][]project.EntityDef{}
	where := map[string]string{}
	var entry *project.Scene
	var entryData []byte
	for _, name := range scenes {
		data, err := fs.ReadFile(p.FS, name)
		if err != nil {
			add(fmt.Errorf("game: check: scene: %w", err))
			continue
		}
		sc, err := p.ParseScene(p.Where(name), data)
		if err != nil {
			add(err)
			continue
		}
		files[name], where[name] = sc.Entities, sc.File
		if name == p.EntryScene {
			entry, entryData = sc, data
		}
	}
	for _, name := range prefabs {
		data, err := fs.ReadFile(p.FS, name)
		if err != nil {
			add(fmt.Errorf("game: check: prefab: %w", err))
			continue
		}
		pf, err := p.ParsePrefab(p.Where(name), data)
		if err != nil {
			add(err)
			continue
		}
		files[name], where[name] = pf.Entities, pf.File
	}

	physScene := entry
	if physScene == nil {
		physScene = &project.Scene{GravityY: project.DefaultGravityY}
	}
	g, err := open(Config{Project: p}, entryData, physScene)
	if err != nil {
		add(err)
		return c
	}
	defer g.Close()
	schema, netErr := g.scripts.SetupNetwork()
	add(netErr)
	if netErr == nil {
		g.schema = schema
	}
	bad := map[string]bool{}
	for _, name := range slices.Concat(scenes, prefabs) {
		for _, err := range g.checkNames(where[name], files[name], netErr == nil) {
			add(err)
			bad[name] = true
		}
	}
	if netErr != nil {
		return c
	}
	if entry != nil && !bad[p.EntryScene] {
		add(g.populate(entry, true))
	}
	for _, name := range prefabs {
		if _, ok := files[name]; !ok || bad[name] {
			continue
		}
		root, err := g.Spawn(name, entity.Identity)
		if err != nil && !strings.Contains(err.Error(), where[name]) {
			err = fmt.Errorf("%s: %w", where[name], err)
		}
		if err != nil {
			add(err)
			continue
		}
		g.Destroy(root)
	}
	for _, e := range g.ScriptErrors() {
		add(&e)
	}
	return c
}

// locate names the script of a *scripting.ScriptError by its path as
// given, as a ConfigError names its file, rather than by its path in the
// project folder, so that every line Check reports leads to its file.
func locate(p *project.Project, err error) error {
	se, ok := err.(*scripting.ScriptError)
	if !ok || se.Where == "" {
		return err
	}
	file, line := se.Where, ""
	if i := strings.LastIndexByte(file, ':'); i >= 0 && strings.Trim(file[i+1:], "0123456789") == "" {
		file, line = file[:i], file[i:]
	}
	if !fs.ValidPath(file) {
		return err
	}
	located := *se
	located.Where = p.Where(file) + line
	return &located
}

// checkNames reports each behavior the entities of file name that
// vkmRegisterBehaviors did not register and, with components set, each
// component type vkmSetupNetwork did not, suggesting the registered name
// nearest to it.
func (g *Game) checkNames(file string, defs []project.EntityDef, components bool) []error {
	var errs []error
	behaviors := g.scripts.BehaviorNames()
	types := make([]string, len(g.schema.Types))
	for i, t := range g.schema.Types {
		types[i] = t.Name
	}
	for _, d := range defs {
		if sp := spriteOf(d); sp != nil && sp.Image != "" {
			if _, err := fs.Stat(g.fsys(), sp.Image); err != nil {
				errs = append(errs, &project.ConfigError{File: file, Line: sp.Line, Key: "entity.look.sprite.image", Err: err,
					Reason: fmt.Sprintf("%s does not exist in the project", sp.Image)})
			}
		}
		if d.Behavior != "" && !g.scripts.HasBehavior(d.Behavior) {
			errs = append(errs, &project.ConfigError{File: file, Line: d.Line, Key: "entity.behavior",
				Reason: unknown("behavior", d.Behavior, "vkmRegisterBehaviors", behaviors)})
		}
		if !components {
			continue
		}
		for _, cd := range d.Components {
			if g.schema.Index(cd.Type) >= 0 {
				continue
			}
			line := cd.Line
			if line == 0 {
				line = d.Line
			}
			errs = append(errs, &project.ConfigError{File: file, Line: line, Key: "entity.components." + cd.Type,
				Reason: unknown("component", cd.Type, "vkmSetupNetwork", types)})
		}
	}
	return errs
}

// unknown says that the name of a kind is not among those registered by
// registrar, with the nearest of them and the whole list.
func unknown(kind, name, registrar string, registered []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q", kind, name)
	if near := project.ClosestName(name, registered); near != "" {
		fmt.Fprintf(&b, "; did you mean %q?", near)
	}
	if len(registered) == 0 {
		fmt.Fprintf(&b, " (%s registers none)", registrar)
	} else {
		fmt.Fprintf(&b, " (%s registers %s)", registrar, strings.Join(registered, ", "))
	}
	return b.String()
}

// spriteOf returns d's sprite, nil for none.
func spriteOf(d project.EntityDef) *project.Sprite {
	if d.Look == nil {
		return nil
	}
	return d.Look.Sprite
}
