package game

import (
	"io/fs"
	"maps"
	"path"
	"slices"

	"vkm/host/project"
	"vkm/internal/entity"
	"vkm/scripting"
)

// fsys is the folder the game reads scripts and prefabs from: the
// project's, with the files of the last reload laid over it.
func (g *Game) fsys() fs.FS {
	if g.files != nil {
		return g.files
	}
	return g.project.FS
}

// Reload makes the changed files (by path in the project folder) the
// game's code and prefabs at once: the scripts run again in the same Lua
// state (see scripting.Runtime.Reload); every live entity built from a
// changed prefab takes the props its entity (by uid) now has there, for
// the behavior it runs (see scripting.Runtime.ReloadWithProps), and
// on_reload(self, old_props) runs; everything else a prefab says (bodies,
// shapes, controllers, components, names, a different behavior) is read
// afresh only when the prefab is next spawned. When the schema changed
// every project component is carried over to it by type and field name (a
// new field starts at zero, a removed one is dropped). If the scripts or a
// prefab fail to load, nothing changes and the error names the file and
// line.
func (g *Game) Reload(changed map[string][]byte) (scripting.Reloaded, error) {
	files := overlayFS{base: g.project.FS, files: changed}
	prefabs := map[string]*project.Prefab{}
	for _, p := range slices.Sorted(maps.Keys(changed)) {
		if path.Ext(p) != ".toml" {
			continue
		}
		pf, err := g.project.ParsePrefab(g.project.Where(p), changed[p])
		if err != nil {
			return scripting.Reloaded{}, err
		}
		pf.Path = p
		prefabs[p] = pf
	}
	type given struct {
		id       entity.ID
		behavior string
		props    map[string]any
	}
	var took []given
	props := func(id entity.ID, behavior string) (map[string]any, bool) {
		o := g.store.Origin(id)
		pf := prefabs[o.Prefab]
		if pf == nil {
			return nil, false
		}
		d := pf.Entity(o.UID)
		if name, _ := g.store.Behavior(id); d == nil || d.Behavior != behavior || name != behavior {
			return nil, false // gone from the prefab, or another behavior now: new spawns only
		}
		took = append(took, given{id, behavior, d.Props})
		return d.Props, true
	}
	res, err := g.scripts.ReloadWithProps(files, props)
	if err != nil {
		return res, err
	}
	for _, t := range took {
		g.store.SetBehavior(t.id, t.behavior, t.props)
	}
	g.files = files
	g.reloads++
	clear(g.prefabs)
	maps.Copy(g.prefabs, prefabs)
	if res.SchemaChanged {
		g.store.MigrateComponents(g.schema, res.Schema)
	}
	g.schema = res.Schema
	return res, nil
}

// Reloads counts the reloads that took effect.
func (g *Game) Reloads() int { return g.reloads }

// CheckFiles checks changed files (by path in the project folder) as a
// reload would read them, without loading any: Lua for syntax, prefabs
// whole. The error names the file and line.
func (g *Game) CheckFiles(changed map[string][]byte) error {
	for _, p := range slices.Sorted(maps.Keys(changed)) {
		switch path.Ext(p) {
		case ".lua":
			if err := g.scripts.CheckSyntax(p, changed[p]); err != nil {
				return err
			}
		case ".toml":
			if _, err := g.project.ParsePrefab(g.project.Where(p), changed[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// UseOldCode has the behaviors run the code, and the props, from before
// the last reload (a replayed tick from before it), or the new ones again.
func (g *Game) UseOldCode(old bool) { g.scripts.UseOldCode(old) }

// ForgetOldCode drops the code and props from before the last reload: no replay
// reaches back before it any more.
func (g *Game) ForgetOldCode() { g.scripts.ForgetOldCode() }
