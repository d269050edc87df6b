package project

import "slices"

// fileKind is which of the three kinds of project file a table is read
// from: the keys each table may hold depend on it.
type fileKind uint8

const (
	projectKind fileKind = iota // project.toml
	sceneKind                   // a scene
	prefabKind                  // a prefab
)

// String names the kind as docs/project.md does.
func (k fileKind) String() string {
	switch k {
	case projectKind:
		return "project"
	case sceneKind:
		return "scene"
	case prefabKind:
		return "prefab"
	}
	return "unknown"
}

// tableKeys is every key the loader reads, by kind of file and by table
// (the table's dotted key as the file writes it, "" for the top level),
// in the order a message lists them. It is the one list: a table refuses,
// by name, any key not in it (tomlTable.only), and docs/project.md is
// checked against it, so a key is added here, read by the loader and
// documented, or it is not accepted at all.
//
// A table with no row holds names of the game's own: entity.props (a
// behavior's fields), entity.components (component types) and each
// entity.components.<Type> (that type's fields).
var tableKeys = map[fileKind]map[string][]string{
	projectKind: {
		"":          {"name", "title", "icon", "extends", "players", "spectators", "port", "tickRate", "reach", "viewWidth", "scoreboard", "rejoinWindow", "motd", "entryScene", "entryScript", "axis", "button", "collision", "hud", "camera", "sound", "renderer", "voice"},
		"collision": {"categories"},
		"sound":     {"event", "change", "file", "volume", "range"},
		"camera":    {"mode", "center", "box", "minWidth", "maxWidth"},
		"voice":     {"mode", "range", "team", "pushToTalk"},
		"hud":       {"at", "text", "bar", "max", "label", "list", "from", "scoreboard"},
		"axis":      {"name", "negative", "positive", "mouse", "reach"},
		"button":    {"name", "keys", "mouse"},
	},
	sceneKind: withEntityKeys("id", map[string][]string{
		"":        {"physics", "entity", "joint"},
		"physics": {"gravity"},
	}),
	prefabKind: withEntityKeys("uid", map[string][]string{
		"": {"entity", "joint"},
	}),
}

// withEntityKeys adds to tables the keys of [[entity]] and its tables,
// which scenes and prefabs share but for the key naming the entity (idKey).
func withEntityKeys(idKey string, tables map[string][]string) map[string][]string {
	tables["entity"] = []string{idKey, "name", "parent", "transform", "behavior", "props", "body", "controller", "components", "look"}
	tables["entity.transform"] = []string{"x", "y", "angle", "scale"}
	tables["entity.body"] = []string{"type", "fixedRotation", "bullet", "linearDamping", "angularDamping", "gravityScale", "shape"}
	tables["entity.body.shape"] = []string{"box", "circle", "polygon", "chain", "offset", "angle", "loop", "density", "friction", "restitution", "sensor", "category", "mask", "group", "oneWay"}
	tables["entity.controller"] = []string{"mode", "speed", "accel", "airAccel", "jumpSpeed", "friction"}
	tables["entity.look"] = []string{"color", "style", "label", "order", "colorBy", "colors", "visibleBy", "sprite"}
	tables["entity.look.sprite"] = []string{"image", "size", "offset", "angle", "frames", "frame", "fps", "animations", "animation", "stateBy", "states"}
	tables["joint"] = []string{"kind", "name", "a", "b", "collideConnected", "anchor", "anchorA", "anchorB", "axis",
		"limits", "motorSpeed", "maxTorque", "maxForce", "length", "frequency", "damping",
		"offset", "angularOffset", "correction", "target"}
	return tables
}

// acceptedKeys returns every key a file of kind may hold, each as the
// dotted path from the file's top ("entity.body.shape.friction"), sorted.
// A table's own key is in it too ("entity.body").
func acceptedKeys(kind fileKind) []string {
	var out []string
	for table, keys := range tableKeys[kind] {
		for _, k := range keys {
			out = append(out, joinPath(table, k))
		}
	}
	slices.Sort(out)
	return out
}
