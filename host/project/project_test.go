package project

import (
	"runtime"
	"time"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// wantConfigError checks that err is a *ConfigError at file:line for key
// whose message contains each of frags.
func wantConfigError(t testing.TB, err error, file string, line int, key string, frags ...string) {
	t.Helper()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v (%T), want a *ConfigError", err, err)
	}
	if ce.File != file || ce.Line != line || ce.Key != key {
		t.Errorf("error at %s:%d key %q, want %s:%d key %q\n\t%v", ce.File, ce.Line, ce.Key, file, line, key, err)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
}

const minimalProject = `players = 4
entryScene = "scenes/arena.toml"
entryScript = "scripts/main.lua"
`

func TestParseProjectDefaults(t *testing.T) {
	p, err := ParseProject("p/project.toml", []byte(minimalProject))
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 27960 {
		t.Errorf("Port = %d, want %d", p.Port, DefaultPort)
	}
	if p.TickRate != 64 {
		t.Errorf("TickRate = %d, want %d", p.TickRate, DefaultTickRate)
	}
	if p.ViewWidth != DefaultViewWidth || p.Scoreboard != nil {
		t.Errorf("ViewWidth = %v, Scoreboard = %v; want %v and none", p.ViewWidth, p.Scoreboard, DefaultViewWidth)
	}
	if p.Players != 4 || p.EntryScene != "scenes/arena.toml" || p.EntryScript != "scripts/main.lua" || p.RejoinWindow != DefaultRejoinWindow {
		t.Errorf("got %+v", p)
	}
	if p.Name != "" || p.Axes != nil || p.Buttons != nil {
		t.Errorf("got %+v, want no name and no actions", p)
	}
}

func TestParseProjectFull(t *testing.T) {
	src := `name = "arena"
players = 4
port = 9000
tickRate = 128
reach = 30
viewWidth = 48
scoreboard = ["Score", "Round.left"]
rejoinWindow = 2.5
entryScene = "./scenes//arena.toml"
entryScript = "scripts/main.lua"
[[axis]]
name = "run"
negative = ["KeyA", "ArrowLeft"]
positive = ["KeyD", "ArrowRight"]
[[axis]]
name = "aim_x"
mouse = "x"
[[button]]
name = "jump"
keys = ["Space", "KeyW"]
[[button]]
name = "fire"
keys = ["KeyF"]
mouse = "left"
`
	p, err := ParseProject("arena/project.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Project{
		File: "arena/project.toml", Name: "arena", Players: 4, Spectators: 8, Port: 9000, TickRate: 128, Reach: 30,
		ViewWidth: 48, Scoreboard: []string{"Score", "Round.left"}, Camera: Camera{Mode: "follow"},
		RejoinWindow: 2500 * time.Millisecond,
		EntryScene:   "scenes/arena.toml", EntryScript: "scripts/main.lua",
		Axes: []Axis{
			{Name: "run", Negative: []string{"KeyA", "ArrowLeft"}, Positive: []string{"KeyD", "ArrowRight"}},
			{Name: "aim_x", Mouse: "x"},
		},
		Buttons: []Button{
			{Name: "jump", Keys: []string{"Space", "KeyW"}},
			{Name: "fire", Keys: []string{"KeyF"}, Mouse: "left"},
		},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got\n%+v\nwant\n%+v", p, want)
	}
	if p.AxisIndex("aim_x") != 1 || p.ButtonIndex("fire") != 1 || p.AxisIndex("jump") != -1 {
		t.Errorf("AxisIndex/ButtonIndex do not follow file order")
	}
}

func TestParseProjectTickRateMessage(t *testing.T) {
	src := "players = 4\nentryScene = \"s.toml\"\ntickRate = 200\nentryScript = \"m.lua\"\n"
	_, err := ParseProject("projects/arena/project.toml", []byte(src))
	want := "projects/arena/project.toml:3: tickRate: 200 is above the limit of 128 (commands, pacing and the server's queue are counted in ticks; faster rates would need deeper queues and wider packets)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestParseProjectErrors(t *testing.T) {
	const entries = "entryScene = \"s.toml\"\nentryScript = \"m.lua\"\n"
	const base = "players = 4\n" + entries // lines 1-3
	axes := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[[axis]]\nname = \"a%d\"\n", i)
		}
		return b.String()
	}
	buttons := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[[button]]\nname = \"b%d\"\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name  string
		src   string
		line  int
		key   string
		frags []string
	}{
		{"missing players", entries, 0, "players", []string{"players is required: how many players the game is for belongs to the game"}},
		{"players zero", "players = 0\n" + entries, 1, "players", []string{"0 is below 1"}},
		{"players too many", "players = 300\n" + entries, 1, "players", []string{"300 is above the limit of 256"}},
		{"players wrong type", "players = \"four\"\n" + entries, 1, "players", []string{`must be a whole number, not the string "four"`}},
		{"players float", "players = 4.0\n" + entries, 1, "players", []string{"must be a whole number, not the number 4"}},
		{"tickRate zero", base + "tickRate = 0\n", 4, "tickRate", []string{"at least 1 tick a second"}},
		{"spectators negative", base + "spectators = -1\n", 4, "spectators", []string{"-1 is below 0", "0 admits no spectator"}},
		{"spectators too many", base + "spectators = 1000\n", 4, "spectators", []string{"1000 is above the limit of 256"}},
		{"reach zero", base + "reach = 0\n", 4, "reach", []string{"0 is not a distance from 0 to 8192 metres", "leave reach out"}},
		{"reach negative", base + "reach = -24.0\n", 4, "reach", []string{"-24 is not a distance"}},
		{"reach too far", base + "reach = 1e5\n", 4, "reach", []string{"100000 is not a distance from 0 to 8192 metres"}},
		{"reach nan", base + "reach = nan\n", 4, "reach", []string{"must be a finite number, not NaN"}},
		{"rejoinWindow negative", base + "rejoinWindow = -1\n", 4, "rejoinWindow", []string{"-1 is not a time from 0 to 600 seconds", "0 keeps none"}},
		{"rejoinWindow too long", base + "rejoinWindow = 3600\n", 4, "rejoinWindow", []string{"3600 is not a time from 0 to 600 seconds"}},
		{"reach string", base + "reach = \"24 m\"\n", 4, "reach", []string{"not the string"}},
		{"port zero", base + "port = 0\n", 4, "port", []string{"0 is not a UDP port (1..65535)"}},
		{"port too big", base + "port = 70000\n", 4, "port", []string{"70000 is not a UDP port"}},
		{"syntax error", base + "port = [1,\n", 4, "", []string{"TOML syntax error"}},
		{"syntax error unterminated string", "players = 4\nname = \"arena\n" + entries, 2, "", []string{"TOML syntax error"}},
		{"unknown key", base + "\ntickrate = 64\n", 5, "tickrate", []string{"unknown key", `did you mean "tickRate"?`}},
		{"unknown table", base + "[server]\nport = 1\n", 4, "server", []string{"unknown key"}},
		{"unknown axis key", base + "[[axis]]\nname = \"run\"\nnegatives = [\"KeyA\"]\n", 6, "axis.negatives", []string{"unknown key", `did you mean "negative"?`}},
		{"missing entryScene", "players = 4\nentryScript = \"m.lua\"\n", 0, "entryScene", []string{"entryScene is required"}},
		{"missing entryScript", "players = 4\nentryScene = \"s.toml\"\n", 0, "entryScript", []string{"entryScript is required"}},
		{"entryScene absolute", "players = 4\nentryScene = \"/etc/s.toml\"\nentryScript = \"m.lua\"\n", 2, "entryScene", []string{"is absolute"}},
		{"entryScene dotdot", "players = 4\nentryScene = \"scenes/../../s.toml\"\nentryScript = \"m.lua\"\n", 2, "entryScene", []string{"leaves the project folder"}},
		{"entryScript backslash", "players = 4\nentryScene = \"s.toml\"\nentryScript = 'scripts\\m.lua'\n", 3, "entryScript", []string{"backslash"}},
		{"entryScript extension", "players = 4\nentryScene = \"s.toml\"\nentryScript = \"scripts/main.js\"\n", 3, "entryScript", []string{"does not end in .lua"}},
		{"entryScene empty", "players = 4\nentryScene = \"\"\nentryScript = \"m.lua\"\n", 2, "entryScene", []string{"is empty"}},
		{"name empty", base + "name = \"\"\n", 4, "name", []string{"is empty"}},
		{"axis not a table list", base + "axis = \"run\"\n", 4, "axis", []string{"must be a list of [[axis]] tables"}},
		{"axis single table", base + "[axis]\nname = \"run\"\n", 4, "axis", []string{"must be a list of [[axis]] tables, not a table"}},
		{"axis without name", base + "[[axis]]\nmouse = \"x\"\n", 4, "axis.name", []string{"needs a name"}},
		{"empty action name", base + "[[button]]\nname = \"\"\n", 5, "button.name", []string{`"" is not a name`}},
		{"bad action name", base + "[[button]]\nname = \"fire!\"\n", 5, "button.name", []string{`"fire!" is not a name`}},
		{"duplicate action names", base + "[[axis]]\nname = \"run\"\n[[button]]\nname = \"run\"\n", 7, "button.name", []string{`"run" is already the name of the axis at line 5`}},
		{"too many axes", base + axes(9), 20, "axis", []string{"9 axes: a command carries at most 8"}},
		{"too many buttons", base + buttons(33), 68, "button", []string{"33 buttons: a command carries at most 32"}},
		{"axis mouse", base + "[[axis]]\nname = \"aim\"\nmouse = \"z\"\n", 6, "axis.mouse", []string{`"z" is not a mouse input here: use "x", "y", "point_x" or "point_y"`}},
		{"point without reach", base + "[[axis]]\nname = \"px\"\nmouse = \"point_x\"\n", 6, "axis.mouse", []string{`mouse = "point_x" needs reach`}},
		{"reach without point", base + "[[axis]]\nname = \"aim\"\nmouse = \"x\"\nreach = 8\n", 7, "axis.reach", []string{`reach is for an axis with mouse = "point_x" or "point_y"`}},
		{"reach zero", base + "[[axis]]\nname = \"px\"\nmouse = \"point_y\"\nreach = 0\n", 7, "axis.reach", []string{"0 is not a distance above 0 and at most 8192 metres"}},
		{"button mouse", base + "[[button]]\nname = \"fire\"\nmouse = \"middle\"\n", 6, "button.mouse", []string{`use "left" or "right"`}},
		{"key code", base + "[[button]]\nname = \"jump\"\nkeys = [\"Space\", \"W\"]\n", 6, "button.keys", []string{`"W" is not a KeyboardEvent.code name (did you mean "KeyW"?)`}},
		{"key code case", base + "[[axis]]\nname = \"run\"\npositive = [\"arrowright\"]\n", 6, "axis.positive", []string{`did you mean "ArrowRight"?`}},
		{"key code type", base + "[[axis]]\nname = \"run\"\npositive = [\"KeyD\",\n  3]\n", 7, "axis.positive", []string{"item 2 is the whole number 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "syntax error" {
				skipInBrowser(t)
			}
			p, err := ParseProject("projects/x/project.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %+v", p)
			}
			t.Log(err)
			wantConfigError(t, err, "projects/x/project.toml", tt.line, tt.key, tt.frags...)
		})
	}
}

func TestParseProjectSyntaxErrorUnwraps(t *testing.T) {
	skipInBrowser(t)
	_, err := ParseProject("p.toml", []byte("players = = 4\n"))
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v does not unwrap to a toml.ParseError", err)
	}
	if !strings.HasPrefix(err.Error(), "p.toml:1: TOML syntax error: ") {
		t.Errorf("error = %q", err)
	}
}

func TestConfigErrorFormat(t *testing.T) {
	for _, tt := range []struct {
		e    ConfigError
		want string
	}{
		{ConfigError{File: "a/project.toml", Line: 3, Key: "port", Reason: "bad"}, "a/project.toml:3: port: bad"},
		{ConfigError{File: "a/project.toml", Key: "players", Reason: "missing"}, "a/project.toml: players: missing"},
		{ConfigError{File: "a/project.toml", Line: 2, Reason: "syntax"}, "a/project.toml:2: syntax"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLoadProject(t *testing.T) {
	p, err := LoadProject("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "project" {
		t.Errorf("Name = %q, want the folder's name", p.Name)
	}
	if p.Dir != "testdata/project" || p.File != filepath.Join("testdata", "project", "project.toml") {
		t.Errorf("Dir, File = %q, %q", p.Dir, p.File)
	}
	if _, err := fs.Stat(p.FS, p.EntryScene); err != nil {
		t.Errorf("FS does not open the entry scene: %v", err)
	}
	if len(p.Axes) != 2 || len(p.Buttons) != 2 {
		t.Errorf("actions: %+v %+v", p.Axes, p.Buttons)
	}
}

func TestLoadProjectMissingFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadProject(dir); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "not a project folder") {
		t.Errorf("no project.toml: error = %v", err)
	}
	src := "players = 2\nentryScene = \"scenes/level.toml\"\nentryScript = \"scripts/main.lua\"\n"
	if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "project.toml")
	_, err := LoadProject(dir)
	wantConfigError(t, err, file, 2, "entryScene", "scenes/level.toml does not exist in "+dir)

	if err := os.MkdirAll(filepath.Join(dir, "scenes", "level.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = LoadProject(dir)
	wantConfigError(t, err, file, 2, "entryScene", "scenes/level.toml is a folder")

	if err := os.Remove(filepath.Join(dir, "scenes", "level.toml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenes", "level.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadProject(dir)
	wantConfigError(t, err, file, 3, "entryScript", "scripts/main.lua does not exist")
}

// TestExampleProjectLoads checks the shipped example game against these
// rules, so a change on either side that breaks the other shows here.
func TestExampleProjectLoads(t *testing.T) {
	const dir = "../../projects/arena"
	p, err := LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseScene(p.EntryScene, mustRead(t, p.FS, p.EntryScene)); err != nil {
		t.Error(err)
	}
	prefabs, _ := fs.Glob(p.FS, "prefabs/*.toml")
	for _, f := range prefabs {
		if _, err := ParsePrefab(f, mustRead(t, p.FS, f)); err != nil {
			t.Error(err)
		}
	}
}

func mustRead(t testing.TB, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIndexLines(t *testing.T) {
	src := `top = 1 # comment [not.a.table]
s = """
multi [line]
x = 2
"""
[[entity]]
id = 1
arr = [
  [1, 2], # one
  [3, 4],
]
t = { a = 1, b = { c = "}" } }
"quoted.key" = 3
[entity.body]
type = 'static'
[[entity.body.shape]]
box = [1, 1]
[[entity]]
id = 2
[[entity.body.shape]]
circle = 1
`
	var m map[string]any
	if _, err := toml.Decode(src, &m); err != nil {
		t.Fatal(err)
	}
	lines := indexLines([]byte(src))
	for path, want := range map[string]int{
		"top": 1, "s": 2, "entity[0]": 6, "entity[0].id": 7, "entity[0].arr": 8,
		"entity[0].arr[0]": 9, "entity[0].arr[1]": 10, "entity[0].arr[1][1]": 10,
		"entity[0].t.b.c": 12, "entity[0].quoted.key": 13, "entity[0].body": 14,
		"entity[0].body.shape[0]": 16, "entity[0].body.shape[0].box": 17,
		"entity[1].id": 19, "entity[1].body.shape[0].circle": 21,
	} {
		if got := lines.find(path); got != want {
			t.Errorf("line of %s = %d, want %d", path, got, want)
		}
	}
	if _, ok := lines["x"]; ok {
		t.Errorf("a key inside a multi-line string was indexed")
	}
}

// skipInBrowser skips a test of what BurntSushi/toml says of a file's
// syntax in a js/wasm build, whose TOML decoder (tomlparse.go) leaves that
// to the server that read the file first.
func skipInBrowser(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("a browser build leaves a TOML file's syntax to the server")
	}
}
