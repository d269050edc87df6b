package game

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"vkm/host/project"
	"vkm/internal/entity"
)

// PrefabDir is the folder of a project whose prefabs are read when a game
// loads: every *.toml under it, in the project's folder and the folders it
// extends.
const PrefabDir = "prefabs"

// loadPrefabs reads every prefab under PrefabDir and checks the behaviors
// and component types it names against what the scripts registered, so
// that a mistake in one stops a server (or offline play) when it starts,
// with the prefab's file and line, rather than when a spawn first builds
// it. A prefab kept outside PrefabDir is read when first spawned.
func (g *Game) loadPrefabs() error {
	fsys := g.fsys()
	if _, err := fs.Stat(fsys, PrefabDir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fs.WalkDir(fsys, PrefabDir, func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return fmt.Errorf("game: prefabs: %w", err)
		case d.IsDir() && name != PrefabDir && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case d.IsDir() || path.Ext(name) != ".toml":
			return nil
		}
		_, err = g.Prefab(name)
		return err
	})
}

// checkRegistered returns the first of checkNames's errors for the
// entities of file, or nil. Component types are checked only when the
// entry script has a vkmSetupNetwork: without one, that is the mistake to
// report (a server refuses the project for it), and a component is refused
// with its file and line when something builds it.
func (g *Game) checkRegistered(file string, defs []project.EntityDef) error {
	if errs := g.checkNames(file, defs, g.scripts.HasNetwork()); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// bringError is Bring failing on one entity: key is what of it failed
// ("body" or "behavior").
type bringError struct {
	id   entity.ID
	name string
	key  string
	err  error
}

func (e *bringError) Error() string {
	return fmt.Sprintf("game: entity %d (%q): %s: %v", e.id.Slot, e.name, e.key, e.err)
}

func (e *bringError) Unwrap() error { return e.err }

// locateBring turns a bringError on an entity built from defs (idOf(i) is
// the entity defs[i] became) into a ConfigError naming the file, the
// entity's line and what it is called there (its id or uid, by idKey, and
// its name), which a user can find; a slot a prefab's entity happened to
// take says nothing. Other errors come back as they are.
func locateBring(err error, file, idKey string, defs []project.EntityDef, idOf func(int) entity.ID) error {
	var be *bringError
	if !errors.As(err, &be) {
		return err
	}
	for i, d := range defs {
		if idOf(i) != be.id {
			continue
		}
		who := fmt.Sprintf("the entity with %s %d", idKey, d.ID)
		if d.Name != "" {
			who += fmt.Sprintf(" (%q)", d.Name)
		}
		reason := strings.TrimPrefix(be.err.Error(), "scripting: ")
		reason = strings.TrimPrefix(reason, "physics: ")
		return &project.ConfigError{File: file, Line: d.Line, Key: "entity." + be.key, Err: be.err,
			Reason: fmt.Sprintf("%s: %s", who, reason)}
	}
	return err
}
