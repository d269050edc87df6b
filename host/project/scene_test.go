package project

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"vkm/internal/entity"
	"vkm/physics"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseScene(t *testing.T) {
	sc, err := ParseScene("level.toml", readTestdata(t, "project/scenes/level.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.File != "level.toml" || sc.GravityX != 0 || sc.GravityY != -9.8 {
		t.Errorf("scene header: %+v", sc)
	}
	var ids []uint32
	for _, d := range sc.Entities {
		ids = append(ids, d.ID)
	}
	if !reflect.DeepEqual(ids, []uint32{1, 7, 8, 3}) {
		t.Fatalf("ids in file order = %v", ids)
	}
	floor, crate, marker, walker := sc.Entities[0], sc.Entities[1], sc.Entities[2], sc.Entities[3]

	if floor.Line != 5 || crate.Line != 14 || marker.Line != 23 || walker.Line != 31 {
		t.Errorf("lines = %d %d %d %d, want 5 14 23 31", floor.Line, crate.Line, marker.Line, walker.Line)
	}
	wantFloor := &entity.BodyDef{Type: entity.Static, GravityScale: 1, Shapes: []entity.Shape{
		{Kind: entity.Box, W: 40, H: 1, Density: 1, Friction: 0.8},
	}}
	if !reflect.DeepEqual(floor.Body, wantFloor) || floor.Transform != entity.Identity || floor.HasParent {
		t.Errorf("floor = %+v, body %+v", floor, floor.Body)
	}
	if crate.Transform != (entity.Transform{X: 2, Y: 3, Angle: 0.5, Scale: 1}) {
		t.Errorf("crate transform = %+v (scale defaults to 1)", crate.Transform)
	}
	if got := crate.Body.Shapes[0]; got.Density != 1 || got.Friction != 0.6 || got.Restitution != 0 {
		t.Errorf("shape defaults = %+v, want density 1, friction 0.6, restitution 0", got)
	}
	if !marker.HasParent || marker.Parent != 7 || marker.Transform.Scale != 0.5 || marker.Body != nil {
		t.Errorf("marker = %+v", marker)
	}
	wantProps := map[string]any{"every": 2.0, "colour": "red", "steps": []any{1.0, 2.5}}
	if marker.Behavior != "blink" || !reflect.DeepEqual(marker.Props, wantProps) {
		t.Errorf("marker behavior %q props %#v, want whole numbers as float64", marker.Behavior, marker.Props)
	}
	wantCtl := &entity.CharacterController{Speed: 8, Accel: 60, AirAccel: 20, JumpSpeed: 14}
	if !reflect.DeepEqual(walker.Controller, wantCtl) {
		t.Errorf("controller = %+v, want defaults but jumpSpeed", walker.Controller)
	}
	if s := walker.Body.Shapes; len(s) != 2 || s[0].Kind != entity.Polygon || len(s[0].Points) != 4 ||
		s[1].Kind != entity.Circle || s[1].Radius != 0.3 || s[1].Offset != (entity.Vec2{Y: 0.9}) || !s[1].Sensor {
		t.Errorf("walker shapes = %+v", s)
	}
	wantComps := []ComponentDef{
		{Type: "Health", Fields: map[string]any{"hp": 100.0}, Line: 50},
		{Type: "Score", Fields: map[string]any{"kills": 0.0}, Line: 48},
	}
	if !reflect.DeepEqual(walker.Components, wantComps) {
		t.Errorf("components = %+v, want sorted by type", walker.Components)
	}
	if err := sc.Validate(); err != nil {
		t.Errorf("Validate of a parsed scene: %v", err)
	}
}

func TestParseTopDownController(t *testing.T) {
	tests := []struct {
		name, src string
		want      entity.CharacterController
		gravity   float64 // the body's gravity scale
	}{
		{"defaults", dynamicBox + "[entity.controller]\nmode = \"topdown\"\n",
			entity.CharacterController{Mode: entity.TopDown, Speed: 8, Accel: 60, Friction: 60}, 0},
		{"tuned", dynamicBox + "[entity.controller]\nmode = \"topdown\"\nspeed = 5\naccel = 40.0\nfriction = 0\n",
			entity.CharacterController{Mode: entity.TopDown, Speed: 5, Accel: 40}, 0},
		{"floating said outright", strings.Replace(dynamicBox, "type = \"dynamic\"\n", "type = \"dynamic\"\ngravityScale = 0\n", 1) +
			"[entity.controller]\nmode = \"topdown\"\n",
			entity.CharacterController{Mode: entity.TopDown, Speed: 8, Accel: 60, Friction: 60}, 0},
		{"side said outright", dynamicBox + "[entity.controller]\nmode = \"side\"\n",
			entity.CharacterController{Speed: 8, Accel: 60, AirAccel: 20, JumpSpeed: 12}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := ParseScene("s.toml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			e := sc.Entities[0]
			if *e.Controller != tc.want || e.Body.GravityScale != tc.gravity {
				t.Errorf("controller %+v, gravity scale %g; want %+v, %g", *e.Controller, e.Body.GravityScale, tc.want, tc.gravity)
			}
			if err := sc.Validate(); err != nil {
				t.Errorf("Validate of a parsed scene: %v", err)
			}
		})
	}
}

func TestParseLook(t *testing.T) {
	src := "[[entity]]\nid = 1\n[entity.look]\ncolor = \"#3FB6ff80\"\nstyle = \"outline\"\nlabel = \"{player} ★\"\norder = -5\n[[entity]]\nid = 2\n"
	sc, err := ParseScene("scenes/test.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Look{Color: "#3FB6ff80", Style: "outline", Label: "{player} ★", Order: -5}
	if l := sc.Entities[0].Look; l == nil || !reflect.DeepEqual(*l, want) {
		t.Errorf("look %+v, want %+v", l, want)
	}
	if l := sc.Entities[1].Look; l != nil {
		t.Errorf("an entity without [entity.look] has %+v", l)
	}
}

func TestParseSceneDefaultGravity(t *testing.T) {
	sc, err := ParseScene("s.toml", []byte("[[entity]]\nid = 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.GravityX != 0 || sc.GravityY != -20 || len(sc.Entities) != 1 || sc.Entities[0].ID != 0 {
		t.Errorf("got %+v", sc)
	}
	if sc, err := ParseScene("empty.toml", nil); err != nil || len(sc.Entities) != 0 {
		t.Errorf("empty scene: %+v, %v", sc, err)
	}
}

// sceneErrorTests are scene files with one mistake each, the line and key
// the error must name, and fragments of its reason.
// dynamicBox is an entity with a dynamic 1 m box body, seven lines long, to
// put a controller on.
const dynamicBox = "[[entity]]\nid = 1\nname = \"p\"\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\nbox = [1, 1]\n"

var sceneErrorTests = []struct {
	name  string
	src   string
	line  int
	key   string
	frags []string
}{
	{"duplicate id", "[[entity]]\nid = 1\nname = \"a\"\n[[entity]]\nid = 1\n", 5, "entity.id",
		[]string{`1 is already the id of the entity at line 1 ("a")`}},
	{"missing id", "[[entity]]\nid = 1\n[[entity]]\nname = \"b\"\n", 3, "entity.id", []string{"id is required"}},
	{"id too large", "[[entity]]\nid = 16777216\n", 2, "entity.id", []string{"16777216 is not a slot (0..16777215)"}},
	{"id negative", "[[entity]]\nid = -1\n", 2, "entity.id", []string{"-1 is not a slot"}},
	{"id wrong type", "[[entity]]\nid = \"one\"\n", 2, "entity.id", []string{"must be a whole number"}},
	{"missing parent", "[[entity]]\nid = 1\n[[entity]]\nid = 2\nparent = 9\n", 5, "entity.parent", []string{"no entity in this file has id 9"}},
	{"parent cycle", "[[entity]]\nid = 1\n[[entity]]\nid = 2\nparent = 3\n[[entity]]\nid = 3\nparent = 2\n", 5, "entity.parent",
		[]string{"parent cycle 2 → 3 → 2"}},
	{"own parent", "[[entity]]\nid = 4\nparent = 4\n", 3, "entity.parent", []string{"parent cycle 4 → 4"}},
	{"body on child", "[[entity]]\nid = 1\n[[entity]]\nid = 2\nparent = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 1.0\n", 6, "entity.body",
		[]string{"bodies must be on root entities"}},
	{"body without shape", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n", 3, "entity.body", []string{"a body needs at least one [[entity.body.shape]]"}},
	{"body without type", "[[entity]]\nid = 1\n[entity.body]\n[[entity.body.shape]]\ncircle = 1.0\n", 3, "entity.body.type", []string{"a body needs a type"}},
	{"unknown body type", "[[entity]]\nid = 1\n[entity.body]\ntype = \"floating\"\n[[entity.body.shape]]\ncircle = 1.0\n", 4, "entity.body.type",
		[]string{`"floating" is not a body type: static, dynamic, kinematic or decoration`}},
	{"shape with none", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nfriction = 1.0\n", 5, "entity.body.shape",
		[]string{"a shape needs one of box"}},
	{"shape with two", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1.0, 1.0]\ncircle = 1.0\n", 7, "entity.body.shape.circle",
		[]string{"has both box and circle"}},
	{"unknown shape key", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1.0, 1.0]\n\nfricton = 0.2\n", 8, "entity.body.shape.fricton",
		[]string{"unknown key", `did you mean "friction"?`}},
	{"unknown entity key", "[[entity]]\nid = 1\nbehaviour = \"walker\"\n", 3, "entity.behaviour", []string{`did you mean "behavior"?`}},
	{"unknown top key", "[physic]\ngravity = [0.0, 1.0]\n", 1, "physic", []string{`did you mean "physics"?`}},
	{"unknown transform key", "[[entity]]\nid = 1\ntransform = { x = 1.0, rot = 2.0 }\n", 3, "entity.transform.rot", []string{"unknown key"}},
	{"nan", "[[entity]]\nid = 1\ntransform = { x = nan }\n", 3, "entity.transform.x", []string{"must be a finite number, not NaN"}},
	{"inf gravity", "[physics]\ngravity = [0.0, -inf]\n", 2, "physics.gravity", []string{"must be a finite number, not -Inf"}},
	{"gravity length", "[physics]\ngravity = [0.0]\n", 2, "physics.gravity", []string{"must be [x, y], two numbers; got 1 items"}},
	{"huge", "[[entity]]\nid = 1\ntransform = { y = 1e300 }\n", 3, "entity.transform.y", []string{"out of range"}},
	{"zero scale", "[[entity]]\nid = 1\ntransform = { scale = 0.0 }\n", 3, "entity.transform.scale", []string{"must be above 0"}},
	{"box zero", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [0.0, 1.0]\n", 6, "entity.body.shape.box",
		[]string{"both sides must be"}},
	{"box three numbers", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1.0, 1.0, 1.0]\n", 6, "entity.body.shape.box",
		[]string{"must be [w, h], two numbers; got 3 items"}},
	{"circle negative", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\ncircle = -1\n", 6, "entity.body.shape.circle",
		[]string{"radius -1 must be"}},
	{"polygon too few", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [[0, 0], [1, 0]]\n", 6, "entity.body.shape.polygon",
		[]string{"has 2 points; a polygon has 3 to 8"}},
	{"polygon far point", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [\n  [0, 0],\n  [1000.5, 0],\n  [0, 1],\n]\n", 8, "entity.body.shape.polygon",
		[]string{"point 2 [1000.5, 0] is out of range"}},
	{"polygon almost straight", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [[0, 0], [1, -0.001], [2, 0], [2, 1], [0, 1]]\n", 6, "entity.body.shape.polygon",
		[]string{"is almost straight at point 2: point 3 is less than 2.5 mm off the line through points 1 and 2", "leave point 2 out or move it outwards"}},
	{"polygon concave", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [\n  [0, 0],\n  [2, 0],\n  [1, 0.5],\n  [2, 2],\n  [0, 2],\n]\n", 9, "entity.body.shape.polygon",
		[]string{"is not convex at point 3", "split a concave one into several shapes"}},
	{"polygon star", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [[0, 1], [-0.588, -0.809], [0.951, 0.309], [-0.951, 0.309], [0.588, -0.809]]\n", 6, "entity.body.shape.polygon",
		[]string{"crosses itself"}},
	{"polygon points weld", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [[0, 0], [1, 0], [1, 0.001], [0, 1]]\n", 6, "entity.body.shape.polygon",
		[]string{"points 2 and 3 are closer than 5 mm"}},
	{"polygon point type", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\npolygon = [\n[0, 0],\n[1, \"a\"],\n[0, 1]]\n", 8, "entity.body.shape.polygon",
		[]string{`point 2 must be [x, y], two numbers; y must be a number, not the string "a"`}},
	{"chain one point", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nchain = [[0, 0]]\n", 6, "entity.body.shape.chain",
		[]string{"has 1 point; a chain needs at least 2"}},
	{"loop closing on its start", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nloop = true\nchain = [\n  [0, 0],\n  [4, 0],\n  [4, 4],\n  [0, 0.001],\n]\n", 11, "entity.body.shape.chain",
		[]string{"the last point is closer than 5 mm to the first; loop = true joins them already, so leave the last one out"}},
	{"circle under the slop", "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 0.004\n", 6, "entity.body.shape.circle",
		[]string{"radius 0.004 must be 0.005..1000 m (box2d cannot resolve anything smaller than 5 mm)"}},
	{"offset far", "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 1\noffset = [0, 2000]\n", 7, "entity.body.shape.offset",
		[]string{"[0, 2000] is out of range: a shape is at most 1000 m from its body's origin"}},
	{"density too small", "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\ncircle = 1\ndensity = 1e-310\n", 7, "entity.body.shape.density",
		[]string{"1e-310 is too small", "or 0 for a shape that adds no mass"}},
	{"chain repeated point", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nchain = [[0, 0], [1, 0], [1, 0]]\n", 6, "entity.body.shape.chain",
		[]string{"points 2 and 3 are closer than 5 mm"}},
	{"angle on circle", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\ncircle = 1.0\nangle = 0.0\n", 7, "entity.body.shape.angle",
		[]string{"a circle has no angle"}},
	{"loop on box", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1, 1]\nloop = true\n", 7, "entity.body.shape.loop",
		[]string{"loop closes a chain; a box has none"}},
	{"negative density", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1, 1]\ndensity = -1\n", 7, "entity.body.shape.density",
		[]string{"-1 is out of range"}},
	{"second shape", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1, 1]\n[[entity.body.shape]]\nbox = [1, -1]\n", 8, "entity.body.shape.box",
		[]string{"[1, -1]"}},
	{"shape not a list", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[entity.body.shape]\nbox = [1, 1]\n", 5, "entity.body.shape",
		[]string{"must be a list of [[entity.body.shape]] tables, not a table"}},
	{"controller without body", "[[entity]]\nid = 1\n[entity.controller]\nspeed = 3.0\n", 3, "entity.controller",
		[]string{"give the entity a dynamic or kinematic [entity.body]"}},
	{"controller on static body", "[[entity]]\nid = 1\n[entity.body]\ntype = \"static\"\n[[entity.body.shape]]\nbox = [1, 1]\n[entity.controller]\n", 7, "entity.controller",
		[]string{"a controller moves its entity's body"}},
	{"controller negative", "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\n[[entity.body.shape]]\nbox = [1, 1]\n[entity.controller]\nspeed = -3\n", 8, "entity.controller.speed",
		[]string{"-3 is out of range"}},
	{"unknown controller mode", dynamicBox + "[entity.controller]\nmode = \"top-down\"\n", 9, "entity.controller.mode",
		[]string{`"top-down" is not a controller mode; did you mean "topdown"? the modes are side, topdown`}},
	{"controller mode far off", dynamicBox + "[entity.controller]\nmode = \"isometric\"\n", 9, "entity.controller.mode",
		[]string{`"isometric" is not a controller mode; the modes are side, topdown`}},
	{"controller mode not a string", dynamicBox + "[entity.controller]\nmode = 2\n", 9, "entity.controller.mode",
		[]string{"must be a string, not the whole number 2"}},
	{"unknown controller key", dynamicBox + "[entity.controller]\nmode = \"topdown\"\nfricton = 3.0\n", 10, "entity.controller.fricton",
		[]string{`unknown key (did you mean "friction"?)`}},
	{"friction in side view", dynamicBox + "[entity.controller]\nspeed = 3.0\nfriction = 3.0\n", 10, "entity.controller.friction",
		[]string{`friction is for mode = "topdown" only: side view brakes at accel (airAccel in the air)`}},
	{"jumpSpeed top-down", dynamicBox + "[entity.controller]\nmode = \"topdown\"\njumpSpeed = 3.0\n", 10, "entity.controller.jumpSpeed",
		[]string{`jumpSpeed is for mode = "side" only: top-down there is no jump`}},
	{"airAccel top-down", dynamicBox + "[entity.controller]\nairAccel = 3.0\nmode = \"topdown\"\n", 9, "entity.controller.airAccel",
		[]string{`airAccel is for mode = "side" only`}},
	{"friction negative", dynamicBox + "[entity.controller]\nmode = \"topdown\"\nfriction = -1\n", 10, "entity.controller.friction",
		[]string{"-1 is out of range (0..1e+06)"}},
	{"friction not a number", dynamicBox + "[entity.controller]\nmode = \"topdown\"\nfriction = \"lots\"\n", 10, "entity.controller.friction",
		[]string{"must be a number"}},
	{"top-down under gravity", "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\ngravityScale = 1.0\n[[entity.body.shape]]\nbox = [1, 1]\n[entity.controller]\nmode = \"topdown\"\n", 5, "entity.body.gravityScale",
		[]string{"1 pulls a top-down character off its course", "leave gravityScale out"}},
	{"look colour by name", "[[entity]]\nid = 1\n[entity.look]\ncolor = \"red\"\n", 4, "entity.look.color", []string{`"red" is not a colour`, `"#rrggbb"`}},
	{"look colour short", "[[entity]]\nid = 1\n[entity.look]\ncolor = \"#12345\"\n", 4, "entity.look.color", []string{`"#12345" is not a colour`}},
	{"look style", "[[entity]]\nid = 1\n[entity.look]\nstyle = \"dashed\"\n", 4, "entity.look.style", []string{`"dashed" is not a style: "fill" or "outline"`}},
	{"look order", "[[entity]]\nid = 1\n[entity.look]\norder = 101\n", 4, "entity.look.order", []string{"101 is outside -100..100"}},
	{"look label control", "[[entity]]\nid = 1\n[entity.look]\nlabel = \"a\\u0007b\"\n", 4, "entity.look.label", []string{"not printable"}},
	{"look unknown key", "[[entity]]\nid = 1\n[entity.look]\ncolour = \"#fff\"\n", 4, "entity.look.colour", []string{`did you mean "color"?`}},
	{"props without behavior", "[[entity]]\nid = 1\nprops = { speed = 1 }\n", 3, "entity.props", []string{"add behavior"}},
	{"props not a table", "[[entity]]\nid = 1\nbehavior = \"b\"\nprops = 3\n", 4, "entity.props", []string{"must be a table, not the whole number 3"}},
	{"props date", "[[entity]]\nid = 1\nbehavior = \"b\"\nprops = { when = 1979-05-27 }\n", 4, "entity.props.when", []string{"a date/time is not supported here"}},
	{"props nan inside", "[[entity]]\nid = 1\nbehavior = \"b\"\nprops = { path = [[0, 1], [nan, 2]] }\n", 4, "entity.props.path", []string{"must be a finite number"}},
	{"props huge integer", "[[entity]]\nid = 1\nbehavior = \"b\"\nprops = { n = 9007199254740993 }\n", 4, "entity.props.n", []string{"too large to hold exactly"}},
	{"empty behavior", "[[entity]]\nid = 1\nbehavior = \"\"\n", 3, "entity.behavior", []string{"is empty"}},
	{"component not a table", "[[entity]]\nid = 1\ncomponents = { Health = 3 }\n", 3, "entity.components.Health", []string{"must be a table"}},
	{"entity not a list", "[entity]\nid = 1\n", 1, "entity", []string{"must be a list of [[entity]] tables, not a table"}},
	{"syntax", "[[entity]]\nid = 1\nname = \"a\" \"b\"\n", 3, "", []string{"TOML syntax error"}},
	{"duplicate key", "[[entity]]\nid = 1\nid = 2\n", 3, "", []string{"TOML syntax error", "already been defined"}},
}

func TestParseSceneErrors(t *testing.T) {
	for _, tt := range sceneErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "props date" || tt.name == "duplicate key" {
				skipInBrowser(t)
			}
			sc, err := ParseScene("scenes/test.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %+v", sc)
			}
			t.Log(err)
			wantConfigError(t, err, "scenes/test.toml", tt.line, tt.key, tt.frags...)
		})
	}
}

// TestParseSceneErrorLineInLaterEntity checks that a mistake is placed in
// the entity it is in, not in the first one with the same key.
func TestParseSceneErrorLineInLaterEntity(t *testing.T) {
	src := `[[entity]]
id = 1
[entity.body]
type = "static"
[[entity.body.shape]]
box = [1, 1]

[[entity]]
id = 2
[entity.body]
type = "static"
[[entity.body.shape]]
box = [1, 1]
[[entity.body.shape]]
box = [1, 0]
`
	_, err := ParseScene("s.toml", []byte(src))
	wantConfigError(t, err, "s.toml", 15, "entity.body.shape.box", "both sides")
}

func TestParsePrefab(t *testing.T) {
	p, err := ParsePrefab("crate.toml", readTestdata(t, "project/prefabs/crate.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != 0 || len(p.Entities) != 3 {
		t.Fatalf("Root = %d, %d entities", p.Root, len(p.Entities))
	}
	if e := p.Entities[1]; e.ID != 20 || !e.HasParent || e.Parent != 30 {
		t.Errorf("light = %+v, want uid 20 with parent uid 30", e)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate of a parsed prefab: %v", err)
	}
}

func TestParsePrefabErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		src   string
		line  int
		key   string
		frags []string
	}{
		{"no entities", "", 0, "entity", []string{"a prefab needs one [[entity]] without parent"}},
		{"two roots", "[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nname = \"b\"\n", 3, "entity.parent",
			[]string{"a prefab has exactly one root entity, and this is a second one (the entity at line 1 is the first)"}},
		{"id instead of uid", "[[entity]]\nid = 1\n", 2, "entity.id", []string{`unknown key (did you mean "uid"?)`}},
		{"missing uid", "[[entity]]\nname = \"a\"\n", 1, "entity.uid", []string{"uid is required"}},
		{"duplicate uid", "[[entity]]\nuid = 1\n[[entity]]\nuid = 1\nparent = 1\n", 4, "entity.uid", []string{"1 is already the uid"}},
		{"parent uid missing", "[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 3\n", 5, "entity.parent", []string{"no entity in this file has uid 3"}},
		{"cycle", "[[entity]]\nuid = 1\n[[entity]]\nuid = 2\nparent = 3\n[[entity]]\nuid = 3\nparent = 2\n", 5, "entity.parent", []string{"parent cycle"}},
		{"physics in prefab", "[physics]\ngravity = [0, 0]\n[[entity]]\nuid = 1\n", 1, "physics", []string{"unknown key"}},
		{"uid too large", "[[entity]]\nuid = 4294967296\n", 2, "entity.uid", []string{"is not a uid"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePrefab("prefabs/test.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %+v", p)
			}
			t.Log(err)
			wantConfigError(t, err, "prefabs/test.toml", tt.line, tt.key, tt.frags...)
		})
	}
}

func TestPrefabUIDsNeedNotBeSlots(t *testing.T) {
	p, err := ParsePrefab("p.toml", []byte("[[entity]]\nuid = 4000000000\n"))
	if err != nil || p.Entities[0].ID != 4000000000 {
		t.Errorf("got %+v, %v", p, err)
	}
}

func TestValidateCodeBuiltScene(t *testing.T) {
	good := func() *Scene {
		return &Scene{File: "built", GravityY: -20, Entities: []EntityDef{
			{ID: 1, Transform: entity.Identity, Body: &entity.BodyDef{Type: entity.Dynamic, GravityScale: 1,
				Shapes: []entity.Shape{{Kind: entity.Circle, Radius: 0.5, Density: 1}}}},
			{ID: 2, Parent: 1, HasParent: true, Transform: entity.Identity, Behavior: "b", Props: map[string]any{"a": []any{1.0, "x"}}},
		}}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(sc *Scene){
		"zero transform": func(sc *Scene) { sc.Entities[0].Transform = entity.Transform{} },
		"int prop":       func(sc *Scene) { sc.Entities[1].Props["n"] = 3 },
		"shape kind":     func(sc *Scene) { sc.Entities[0].Body.Shapes[0].Kind = 9 },
		"no shapes":      func(sc *Scene) { sc.Entities[0].Body.Shapes = nil },
		"nan gravity":    func(sc *Scene) { sc.GravityX = nanValue() },
		"slot too large": func(sc *Scene) { sc.Entities[1].ID = entity.MaxSlot + 1 },
		"unsorted components": func(sc *Scene) {
			sc.Entities[1].Components = []ComponentDef{{Type: "B"}, {Type: "A"}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			sc := good()
			mutate(sc)
			err := sc.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), "built") {
				t.Errorf("error = %v, want one naming the scene", err)
			}
		})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

// TestFileShapesAddCleanly checks the promise behind checkShape: a shape a
// scene file may hold is one physics.World.Add takes, without box2d
// asserting. Each shape of the table, at the edge of a rule, is written
// into a scene file; the table says whether ParseScene takes it, and
// whatever it takes, Add must take too. So must it take each of a hundred
// variants of every shape, its numbers nudged by up to a millionth, which
// land on both sides of each edge.
func TestFileShapesAddCleanly(t *testing.T) {
	const d = DefaultDensity
	vs := func(xy ...float64) []entity.Vec2 {
		out := make([]entity.Vec2, len(xy)/2)
		for i := range out {
			out[i] = entity.Vec2{X: xy[2*i], Y: xy[2*i+1]}
		}
		return out
	}
	box := func(w, h float64) entity.Shape { return entity.Shape{Kind: entity.Box, W: w, H: h, Density: d} }
	circle := func(r float64) entity.Shape { return entity.Shape{Kind: entity.Circle, Radius: r, Density: d} }
	polygon := func(xy ...float64) entity.Shape {
		return entity.Shape{Kind: entity.Polygon, Points: vs(xy...), Density: d}
	}
	chain := func(loop bool, xy ...float64) entity.Shape {
		return entity.Shape{Kind: entity.Chain, Points: vs(xy...), Loop: loop, Density: d}
	}
	with := func(sh entity.Shape, f func(*entity.Shape)) entity.Shape { f(&sh); return sh }
	far := func(sh entity.Shape) entity.Shape {
		return with(sh, func(s *entity.Shape) { s.Offset = entity.Vec2{X: 1000, Y: -1000} })
	}
	tests := []struct {
		name  string
		shape entity.Shape
		ok    bool
	}{
		{"box", box(1, 2), true},
		{"box of the slop", box(0.005, 0.005), true},
		{"far box of the slop", far(box(0.005, 0.005)), true},
		{"box under the slop", box(0.0049999, 1), false},
		{"box of the largest", far(box(1000, 1000)), true},
		{"box too large", box(1000.001, 1), false},
		{"turned box", with(box(0.005, 1000), func(s *entity.Shape) { s.Angle = 1e6 }), true},
		{"box turned too far", with(box(1, 1), func(s *entity.Shape) { s.Angle = 1e7 }), false},
		{"circle of the slop", far(circle(0.005)), true},
		{"circle under the slop", circle(0.004999), false},
		{"circle of the largest", far(circle(1000)), true},
		{"offset too far", with(circle(1), func(s *entity.Shape) { s.Offset.X = 1000.001 }), false},
		{"lightest density", far(with(circle(0.005), func(s *entity.Shape) { s.Density = 1e-6 })), true},
		{"density too small", with(circle(1), func(s *entity.Shape) { s.Density = 0.99e-6 }), false},
		{"subnormal density", far(with(circle(0.005), func(s *entity.Shape) { s.Density = 1e-310 })), false},
		{"massless", with(circle(1), func(s *entity.Shape) { s.Density = 0 }), true},
		{"heaviest", far(with(box(1000, 1000), func(s *entity.Shape) { s.Density, s.Friction, s.Restitution = 1e6, 1e6, 1e6 })), true},
		{"too heavy", with(box(1, 1), func(s *entity.Shape) { s.Density = 1.1e6 }), false},

		{"triangle", polygon(0, 0, 1, 0, 0, 1), true},
		{"clockwise triangle", polygon(0, 0, 0, 1, 1, 0), true},
		{"clockwise octagon", polygon(1, 0, 0.7, -0.7, 0, -1, -0.7, -0.7, -1, 0, -0.7, 0.7, 0, 1, 0.7, 0.7), true},
		{"nine points", polygon(1, 0, 0.7, -0.7, 0, -1, -0.7, -0.7, -1, 0, -0.7, 0.7, 0, 1, 0.7, 0.7, 0.9, 0.3), false},
		{"smallest triangle", far(polygon(0, 0, 0.0051, 0, 0.00255, 0.0045)), true},
		{"triangle of close points", polygon(0, 0, 0.0051, 0, 0.00255, 0.0026), false},
		{"flattest triangle", far(polygon(0, 0, 0.012, 0, 0.006, 0.0026)), true},
		{"sliver triangle", polygon(0, 0, 0.012, 0, 0.006, 0.0024), false},
		{"widest polygon", far(polygon(-1000, -1000, 1000, -1000, 1000, 1000, -1000, 1000)), true},
		{"polygon point too far", polygon(-1000.001, 0, 1, 0, 0, 1), false},
		{"barely bent corner", polygon(0, 0, 1, -0.0013, 2, 0, 2, 1, 0, 1), true},
		{"almost straight corner", polygon(0, 0, 1, -0.0012, 2, 0, 2, 1, 0, 1), false},
		{"points 5 mm apart", polygon(0, 0, 0.005, 0, 1, 1, 0, 1), false},
		{"concave", polygon(0, 0, 2, 0, 1, 0.5, 2, 2, 0, 2), false},
		{"star", polygon(0, 1, -0.588, -0.809, 0.951, 0.309, -0.951, 0.309, 0.588, -0.809), false},

		{"two-point chain", chain(false, 0, 0, 1, 0), true},
		{"chain at the limit", chain(false, -1e6, 1e6, 1e6, -1e6), true},
		{"chain too far", chain(false, 0, 0, 1000000.1, 0), false},
		{"chain edge over the slop", far(chain(false, 0, 0, 0.0050001, 0, 0.0050001, 0.0050001)), true},
		{"chain edge of the slop", chain(false, 0, 0, 0.005, 0), false},
		{"chain shortened by its offset", with(chain(false, 524287.0000000002, 0, 524287.0050000002, 0), func(s *entity.Shape) { s.Offset.X = 1000 }), false},
		{"smallest loop", chain(true, 0, 0, 0.0051, 0, 0, 0.0051), true},
		{"loop closing on its start", chain(true, 0, 0, 4, 0, 4, 4, 0, 0.004), false},
		{"loop of two", chain(true, 0, 0, 4, 0), false},
	}
	r := rand.New(rand.NewPCG(7, 11))
	var accepted int
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := fileAddsShape(t, tc.shape); ok != tc.ok {
				t.Errorf("ParseScene accepts it: %v, want %v", ok, tc.ok)
			}
			for range 100 {
				if _, ok := fileAddsShape(t, nudged(r, tc.shape)); ok {
					accepted++
				}
			}
		})
	}
	if accepted < 100 {
		t.Errorf("only %d nudged shapes accepted", accepted)
	}
}

// fileAddsShape writes sh into a scene file with a dynamic body and parses
// it. If ParseScene accepts the file, the parsed body must be one
// physics.World.Add accepts, and steps; it reports whether ParseScene did.
func fileAddsShape(t *testing.T, sh entity.Shape) (*Scene, bool) {
	t.Helper()
	src := "[[entity]]\nid = 1\n[entity.body]\ntype = \"dynamic\"\n" + shapeTOML(sh)
	sc, err := ParseScene("shape.toml", []byte(src))
	if err != nil {
		return nil, false
	}
	w := physics.New(physics.Config{GravityY: sc.GravityY})
	d := sc.Entities[0]
	if err := w.Add(entity.ID{Slot: 1, Gen: 1}, d.Body, d.Transform, entity.Rigidbody{Awake: true}); err != nil {
		t.Fatalf("ParseScene accepts this shape, but physics.Add refuses it: %v\n%s", err, src)
	}
	w.Step(nil)
	return sc, true
}

// shapeTOML writes sh as an [[entity.body.shape]], every number exactly.
func shapeTOML(sh entity.Shape) string {
	num := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "nan"
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	pair := func(x, y float64) string { return "[" + num(x) + ", " + num(y) + "]" }
	var b strings.Builder
	b.WriteString("[[entity.body.shape]]\n")
	switch sh.Kind {
	case entity.Box:
		fmt.Fprintf(&b, "box = %s\n", pair(sh.W, sh.H))
	case entity.Circle:
		fmt.Fprintf(&b, "circle = %s\n", num(sh.Radius))
	case entity.Polygon, entity.Chain:
		var ps []string
		for _, p := range sh.Points {
			ps = append(ps, pair(p.X, p.Y))
		}
		fmt.Fprintf(&b, "%s = [%s]\n", sh.Kind, strings.Join(ps, ", "))
	}
	if sh.Loop {
		b.WriteString("loop = true\n")
	}
	if sh.Angle != 0 {
		fmt.Fprintf(&b, "angle = %s\n", num(sh.Angle))
	}
	fmt.Fprintf(&b, "offset = %s\ndensity = %s\nfriction = %s\nrestitution = %s\n",
		pair(sh.Offset.X, sh.Offset.Y), num(sh.Density), num(sh.Friction), num(sh.Restitution))
	return b.String()
}

// nudged returns sh with each size, point and offset coordinate moved by a
// random relative amount of up to a millionth, or an absolute one of up to
// a micrometre.
func nudged(r *rand.Rand, sh entity.Shape) entity.Shape {
	nudge := func(v float64) float64 {
		if r.IntN(2) == 0 {
			return v * (1 + (r.Float64()*2-1)*1e-6)
		}
		return v + (r.Float64()*2-1)*1e-6
	}
	sh.W, sh.H, sh.Radius = nudge(sh.W), nudge(sh.H), nudge(sh.Radius)
	sh.Offset = entity.Vec2{X: nudge(sh.Offset.X), Y: nudge(sh.Offset.Y)}
	pts := make([]entity.Vec2, len(sh.Points))
	for i, p := range sh.Points {
		pts[i] = entity.Vec2{X: nudge(p.X), Y: nudge(p.Y)}
	}
	sh.Points = pts
	return sh
}
