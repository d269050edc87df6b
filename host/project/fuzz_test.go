package project

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vkm/internal/entity"
	"vkm/physics"
	"vkm/prediction"
)

// Project files are untrusted input: whatever one contains, the parsers
// return a value or a *ConfigError and never panic, and what they accept
// validates. (The store's fuzz targets load what they accept.)

// addSeeds adds the test project's and the example game's files matching
// glob, and each of srcs, to f's corpus.
func addSeeds(f *testing.F, glob string, srcs ...string) {
	for _, dir := range []string{"testdata/project", "../../projects/arena", "../../projects/coins"} {
		files, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range srcs {
		f.Add([]byte(s))
	}
}

// checkConfigError fails unless err is a *ConfigError for file whose line is
// inside data.
func checkConfigError(t *testing.T, err error, file string, data []byte) {
	t.Helper()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is a %T, not a *ConfigError", err, err)
	}
	if ce.File != file || ce.Line < 0 || ce.Line > bytes.Count(data, []byte("\n"))+1 || ce.Reason == "" {
		t.Fatalf("bad error %#v", ce)
	}
}

func FuzzParseProject(f *testing.F) {
	addSeeds(f, "project.toml", minimalProject,
		minimalProject+"tickRate = 200\n",
		minimalProject+"reach = 24.0\n",
		minimalProject+"reach = -1e309\n",
		minimalProject+"[[axis]]\nname = \"run\"\nnegative = [\"KeyA\"]\n[[button]]\nname = \"run\"\n",
		"players = 4\nentryScene = \"../s.toml\"\n",
		minimalProject+"axis = [{ name = \"a\", mouse = \"x\" }, { name = \"b\" }]\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProject("project.toml", data)
		if err != nil {
			checkConfigError(t, err, "project.toml", data)
			return
		}
		if p.Players < 1 || p.Players > MaxPlayers || p.TickRate < 1 || p.TickRate > MaxTickRate ||
			p.Port < 1 || p.Port > 65535 || p.Reach < 0 || p.Reach > MaxReach || math.IsNaN(p.Reach) || len(p.Axes) > prediction.MaxAxes || len(p.Buttons) > prediction.MaxButtons ||
			!fs.ValidPath(p.EntryScene) || !fs.ValidPath(p.EntryScript) {
			t.Fatalf("accepted an invalid project: %+v", p)
		}
	})
}

func FuzzParseScene(f *testing.F) {
	addSeeds(f, "scenes/*.toml")
	for _, tt := range sceneErrorTests {
		f.Add([]byte(tt.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScene("scene.toml", data)
		if err != nil {
			checkConfigError(t, err, "scene.toml", data)
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("a parsed scene does not validate: %v", err)
		}
	})
}

func FuzzParsePrefab(f *testing.F) {
	addSeeds(f, "prefabs/*.toml",
		"[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 1\n[[entity]]\nuid = 3\nparent = 2\n",
		"[[entity]]\nuid = 1\nparent = 2\n[[entity]]\nuid = 2\nparent = 1\n",
		"[[entity]]\nuid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 0.4\n[entity.controller]\nmode = \"topdown\"\nfriction = 30\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePrefab("prefab.toml", data)
		if err != nil {
			checkConfigError(t, err, "prefab.toml", data)
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("a parsed prefab does not validate: %v", err)
		}
	})
}

// jointSeeds are scenes and prefabs with joints of every kind, right and
// wrong, for FuzzJoints.
var jointSeeds = []string{
	jointScene + "[[joint]]\nkind = \"revolute\"\na = 1\nb = 2\nanchor = [0.0, 2.0]\nlimits = [-1.0, 0.5]\nmotorSpeed = 1.0\nmaxTorque = 5.0\n",
	jointScene + "[[joint]]\nkind = \"prismatic\"\na = 1\nb = 3\naxis = [0.3, 1.0]\nlimits = [-1.0, 2.0]\nmaxForce = 9.0\n",
	jointScene + "[[joint]]\nkind = \"distance\"\na = 2\nb = 3\nfrequency = 2.0\ndamping = 0.1\n",
	jointScene + "[[joint]]\nkind = \"weld\"\na = 2\nb = 3\nanchor = [3.0, 1.5]\nfrequency = 3.0\ncollideConnected = true\n",
	jointScene + "[[joint]]\nkind = \"wheel\"\na = 2\nb = 3\naxis = [0.0, 1.0]\nmotorSpeed = -8.0\nmaxTorque = 15.0\n",
	jointScene + "[[joint]]\nkind = \"motor\"\na = 2\nb = 3\noffset = [1.0, 2.0]\nangularOffset = 0.4\nmaxForce = 60.0\nmaxTorque = 5.0\ncorrection = 0.3\n",
	jointScene + "[[joint]]\nkind = \"rope\"\na = 3\nanchorB = [4.0, 5.0]\n",
	jointScene + "[[joint]]\nkind = \"mouse\"\na = 3\nanchor = [4.5, 1.5]\ntarget = [8.0, 3.0]\nmaxForce = 30.0\n",
	jointScene + "[[joint]]\nkind = \"revolute\"\na = 1\nb = 2\nlimits = [0.5, -0.5]\n",
	jointScene + "[[joint]]\nkind = \"rope\"\na = 2\nb = 3\nanchorA = [4.0, 1.0]\n",
	jointScene + "[[joint]]\nkind = \"mouse\"\na = 3\nb = 2\n",
	jointScene + "[[joint]]\nkind = 7\na = \"x\"\n",
	"[[entity]]\nuid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 0.3\n[[joint]]\nkind = \"rope\"\na = 1\nanchorB = [0.0, 2.0]\n",
}

// FuzzJoints reads fuzzed scenes and prefabs with joints: each is refused
// with a reason, or every joint it holds is one physics makes between the
// bodies the file places (a prefab's at a pose of its own): the loader's
// checks leave nothing for AddJoint to refuse, and nothing panics.
func FuzzJoints(f *testing.F) {
	for _, s := range jointSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, prefab bool) {
		var defs []EntityDef
		var joints []JointDef
		pose := entity.Identity
		if prefab {
			p, err := ParsePrefab("prefab.toml", data)
			if err != nil {
				checkConfigError(t, err, "prefab.toml", data)
				return
			}
			defs, joints = p.Entities, p.Joints
			pose = entity.Transform{X: 3, Y: -2, Angle: 0.7, Scale: 1}
		} else {
			sc, err := ParseScene("scene.toml", data)
			if err != nil {
				checkConfigError(t, err, "scene.toml", data)
				return
			}
			defs, joints = sc.Entities, sc.Joints
		}
		w := physics.New(physics.Config{})
		ids := map[uint32]entity.ID{}
		for i, d := range defs {
			if d.Body == nil || d.Body.Type == entity.Decoration || d.HasParent {
				continue
			}
			id := entity.ID{Slot: uint32(i + 1), Gen: 1}
			at := d.Transform
			if prefab {
				at = composePose(pose, d.Transform)
			}
			if err := w.Add(id, d.Body, at, entity.Rigidbody{Awake: true}); err != nil {
				t.Fatalf("a body the loader accepted: %v", err)
			}
			ids[d.ID] = id
		}
		for _, j := range joints {
			b := entity.None
			if !j.ToWorld {
				b = ids[j.B]
			}
			d := j.World(pose)
			if _, err := w.AddJoint(ids[j.A], b, &d); err != nil {
				t.Fatalf("a joint the loader accepted at line %d: %v", j.Line, err)
			}
		}
		for range 4 {
			w.Step(nil)
		}
	})
}

// composePose is a root placed at local in a prefab spawned at pose, as
// the store places it.
func composePose(pose, local entity.Transform) entity.Transform {
	p := composePoint(pose, entity.Vec2{X: local.X, Y: local.Y})
	return entity.Transform{X: p.X, Y: p.Y, Angle: pose.Angle + local.Angle, Scale: pose.Scale * local.Scale}
}
