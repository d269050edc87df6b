package host

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestCheckIsCleanOnEveryProject(t *testing.T) {
	dirs, err := filepath.Glob("../projects/*/project.toml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no projects (%v)", err)
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		r := Check(dir)
		for _, err := range r.Errors {
			t.Errorf("%s: %v", dir, err)
		}
		if r.Scenes == 0 || r.Prefabs == 0 || r.Scripts == 0 || !strings.HasPrefix(r.Summary(), dir+": ok (") {
			t.Errorf("%s: summary %q", dir, r.Summary())
		}
	}
	if got, want := Check("../projects/arena").Summary(), "../projects/arena: ok (1 scene, 2 prefabs, 6 scripts)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

func TestCheckIsCleanOnATopDownProject(t *testing.T) {
	const dir = "session/testdata/topdown"
	r := Check(dir)
	for _, err := range r.Errors {
		t.Errorf("%s: %v", dir, err)
	}
	if got, want := r.Summary(), dir+": ok (1 scene, 1 prefab, 1 script)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// plant is one mistake put into a copy of the arena: in file, old is
// replaced by new (new is appended when old is empty, and a file that does
// not exist is made of new). want is what the error says after
// "file:line: ", where line is the line of at in the planted file.
type plant struct {
	file, old, new string
	at, want       string
}

// planted copies the arena and plants each of plants in it; it returns
// the copy and, for each plant, the start its error must have, file:line.
func planted(t *testing.T, plants ...plant) (dir string, wants []string) {
	t.Helper()
	dir = copyProject(t, "../projects/arena")
	for _, p := range plants {
		name := filepath.Join(dir, filepath.FromSlash(p.file))
		data, err := os.ReadFile(name)
		switch {
		case os.IsNotExist(err):
			data = []byte(p.new)
		case err != nil:
			t.Fatal(err)
		case p.old == "":
			data = append(data, p.new...)
		case !bytes.Contains(data, []byte(p.old)):
			t.Fatalf("%s holds no %q to plant a mistake in", p.file, p.old)
		default:
			data = bytes.Replace(data, []byte(p.old), []byte(p.new), 1)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(p.at))
		if i < 0 {
			t.Fatalf("%s: no %q after planting", p.file, p.at)
		}
		line := bytes.Count(data[:i], []byte("\n")) + 1
		wants = append(wants, name+":"+strconv.Itoa(line)+": "+p.want)
	}
	return dir, wants
}

var (
	badProjectKey = plant{file: "project.toml", old: "tickRate = 64", new: "tickRat = 64", at: "tickRat",
		want: `tickRat: unknown key (did you mean "tickRate"?)`}
	badSceneKey = plant{file: "scenes/arena.toml", old: "\nname = ", new: "\nnmae = ", at: "nmae",
		want: `entity.nmae: unknown key (did you mean "name"?)`}
	badPrefabKey = plant{file: "prefabs/pickup.toml", old: "circle = 0.4", new: "circel = 0.4", at: "circel",
		want: `entity.body.shape.circel: unknown key (did you mean "circle"?)`}
	// The line of an unknown behavior is its entity's.
	unknownBehavior = plant{file: "prefabs/pickup.toml", old: `behavior = "pickup"`, new: `behavior = "pikcup"`, at: "[[entity]]",
		want: `entity.behavior: unknown behavior "pikcup"; did you mean "pickup"? (vkmRegisterBehaviors registers pickup, spawner, walker)`}
	unknownSceneBehavior = plant{file: "scenes/arena.toml", old: `behavior = "spawner"`, new: `behavior = "spawnr"`, at: "[[entity]]\nid = 20",
		want: `entity.behavior: unknown behavior "spawnr"; did you mean "spawner"?`}
	unknownComponent = plant{file: "prefabs/pickup.toml", new: "[entity.components.Helth]\nhp = 3\n", at: "[entity.components.Helth]",
		want: `entity.components.Helth: unknown component "Helth"; did you mean "Health"? (vkmSetupNetwork registers Health, Score, Gun, Life, Shot, Picked)`}
	// A prefab of its own: the arena's join handler spawns its player, and
	// would say the player's mistake a second time.
	badControllerMode = plant{file: "prefabs/hover.toml", new: hoverPrefab + "mode = \"top-down\"\n", at: "mode = ",
		want: `entity.controller.mode: "top-down" is not a controller mode; did you mean "topdown"? the modes are side, topdown`}
	// A key of the other mode is refused by name: top-down has no jump.
	badControllerKey = plant{file: "prefabs/hover.toml", new: hoverPrefab + "mode = \"topdown\"\njumpSpeed = 9.0\n", at: "jumpSpeed",
		want: `entity.controller.jumpSpeed: jumpSpeed is for mode = "side" only: top-down there is no jump`}
	luaSyntax = plant{file: "scripts/walker.lua", new: "local x = = 1\n", at: "local x = = 1",
		want: `syntax error near 'local'`}
	// A script nothing imports is compiled all the same.
	luaSyntaxUnused = plant{file: "scripts/unused.lua", new: "-- not imported\nif then end\n", at: "if then",
		want: `syntax error near 'then'`}
	// An image a sprite names and the project does not hold.
	missingSprite = plant{file: "prefabs/pickup.toml", new: "[entity.look.sprite]\nimage = \"art/pack.png\"\n", at: "image = ",
		want: `entity.look.sprite.image: art/pack.png does not exist in the project`}
	setupNetworkFails = plant{file: "scripts/main.lua", old: "function vkmSetupNetwork(net)\n", new: "function vkmSetupNetwork(net)\n  local t = nil; t.x = 1\n",
		at: "local t = nil", want: `attempt to index a non-table object(nil) with key 'x'`}
)

// hoverPrefab is a prefab with a dynamic body and a controller, open for
// the controller's keys.
const hoverPrefab = "[[entity]]\nuid = 1\nname = \"hover\"\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 0.4\n[entity.controller]\n"

func TestCheckFindsEachPlantedMistake(t *testing.T) {
	for name, p := range map[string]plant{
		"project.toml key":           badProjectKey,
		"scene key":                  badSceneKey,
		"prefab key":                 badPrefabKey,
		"unknown behavior in prefab": unknownBehavior,
		"unknown behavior in scene":  unknownSceneBehavior,
		"unregistered component":     unknownComponent,
		"controller mode":            badControllerMode,
		"controller key of a mode":   badControllerKey,
		"lua syntax, imported":       luaSyntax,
		"lua syntax, not imported":   luaSyntaxUnused,
		"vkmSetupNetwork error":      setupNetworkFails,
		"missing sprite image":       missingSprite,
	} {
		t.Run(name, func(t *testing.T) {
			dir, wants := planted(t, p)
			r := Check(dir)
			if len(r.Errors) != 1 || !mentions(r.Errors[0].Error(), wants[0]) {
				t.Errorf("errors %q, want one: %s", r.Errors, wants[0])
			}
			if s := r.Summary(); !strings.HasPrefix(s, dir+": 1 error (") {
				t.Errorf("summary %q", s)
			}
		})
	}
}

func TestCheckReportsEveryMistakeInOneRun(t *testing.T) {
	dir, wants := planted(t, badSceneKey, unknownBehavior, luaSyntaxUnused)
	r := Check(dir)
	if len(r.Errors) != len(wants) {
		t.Errorf("%d errors, want %d: %q", len(r.Errors), len(wants), r.Errors)
	}
	for _, want := range wants {
		found := false
		for _, err := range r.Errors {
			found = found || mentions(err.Error(), want)
		}
		if !found {
			t.Errorf("no error says %s; got %q", want, r.Errors)
		}
	}
	if s := r.Summary(); s != dir+": 3 errors (1 scene, 2 prefabs, 7 scripts)" {
		t.Errorf("summary %q", s)
	}
}

// mentions reports whether msg is want, or want after a package's prefix
// and a script error's callback ("scripting: vkmSetupNetwork: ").
func mentions(msg, want string) bool {
	i := strings.Index(msg, want)
	return i == 0 || i > 0 && strings.HasPrefix(msg, "scripting: ") && strings.HasSuffix(msg, want)
}
