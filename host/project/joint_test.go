package project

import (
	"math"
	"strings"
	"testing"

	"vkm/internal/entity"
)

// jointScene is a scene of a static post, a door hinged to it, a crate and
// a plank, to which a test appends [[joint]] tables.
const jointScene = `[[entity]]
id = 1
name = "post"
transform = { x = 0.0, y = 2.0 }
[entity.body]
type = "static"
[[entity.body.shape]]
box = [0.2, 4.0]

[[entity]]
id = 2
name = "door"
transform = { x = 1.0, y = 2.0, angle = 0.5 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [2.0, 0.2]

[[entity]]
id = 3
name = "crate"
transform = { x = 4.0, y = 1.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [1.0, 1.0]

[[entity]]
id = 4
name = "sign"
transform = { x = 6.0, y = 1.0 }
[entity.body]
type = "decoration"
[[entity.body.shape]]
box = [1.0, 1.0]
`

// near reports whether a and b are within 1e-9 on each axis.
func near(a, b entity.Vec2) bool { return math.Abs(a.X-b.X) < 1e-9 && math.Abs(a.Y-b.Y) < 1e-9 }

// TestSceneJoints reads each kind of joint and checks what the file's
// frame became in the bodies' frames.
func TestSceneJoints(t *testing.T) {
	src := jointScene + `
[[joint]]
kind = "revolute"
name = "hinge"
a = 1
b = 2
anchor = [0.0, 2.0]
limits = [-1.0, 0.5]
motorSpeed = 1.5
maxTorque = 20.0

[[joint]]
kind = "distance"
a = 2
b = 3
frequency = 2.0
damping = 0.5

[[joint]]
kind = "rope"
a = 3
anchorB = [4.0, 5.0]
length = 6.0

[[joint]]
kind = "prismatic"
a = 1
b = 3
axis = [1.0, 0.0]
limits = [-2.0, 2.0]

[[joint]]
kind = "wheel"
a = 2
b = 3

[[joint]]
kind = "motor"
a = 3
maxForce = 50.0

[[joint]]
kind = "mouse"
a = 3
anchor = [4.5, 1.5]
target = [8.0, 3.0]
maxForce = 30.0

[[joint]]
kind = "weld"
a = 2
b = 3
collideConnected = true
`
	sc, err := ParseScene("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Joints) != 8 {
		t.Fatalf("%d joints, want 8", len(sc.Joints))
	}
	rev, dist, rope, pris, wheel, motor, mouse, weld := sc.Joints[0], sc.Joints[1], sc.Joints[2], sc.Joints[3], sc.Joints[4], sc.Joints[5], sc.Joints[6], sc.Joints[7]
	// The door stands at (1, 2) turned by 0.5: the hinge at (0, 2) is 1 m
	// behind it along its length.
	back := entity.Vec2{X: -math.Cos(0.5), Y: math.Sin(0.5)}
	if rev.Name != "hinge" || rev.A != 1 || rev.B != 2 || rev.ToWorld || !near(rev.Def.AnchorA, entity.Vec2{}) ||
		!near(rev.Def.AnchorB, back) || rev.Def.ReferenceAngle != 0.5 || !rev.Def.EnableLimit || rev.Def.Lower != -1 ||
		!rev.Def.EnableMotor || rev.Def.MotorSpeed != 1.5 || rev.Def.MaxTorque != 20 {
		t.Errorf("revolute %+v", rev)
	}
	if d := dist.Def; math.Abs(d.Length-math.Hypot(3, 1)) > 1e-12 || d.Frequency != 2 || d.DampingRatio != 0.5 || !near(d.AnchorA, entity.Vec2{}) {
		t.Errorf("distance %+v, want the origins' distance", d)
	}
	if !rope.ToWorld || !near(rope.Def.AnchorB, entity.Vec2{X: 4, Y: 5}) || rope.Def.Length != 6 {
		t.Errorf("rope %+v", rope)
	}
	if w := rope.World(entity.Transform{X: 10, Y: 1, Scale: 1}); !near(w.AnchorB, entity.Vec2{X: 14, Y: 6}) {
		t.Errorf("the rope's world anchor for a file at (10, 1) is %+v", w.AnchorB)
	}
	if d := pris.Def; !near(d.Axis, entity.Vec2{X: 1}) || d.Lower != -2 || d.EnableMotor {
		t.Errorf("prismatic %+v", d)
	}
	if d := wheel.Def; !near(d.Axis, entity.Vec2{X: math.Sin(0.5), Y: math.Cos(0.5)}) || d.Frequency != DefaultWheelFrequency || !near(d.AnchorB, entity.Vec2{}) {
		t.Errorf("wheel %+v: want the default axis (up) in the door's frame, on the crate's origin", d)
	}
	if d := motor.Def; !motor.ToWorld || !near(d.LinearOffset, entity.Vec2{X: 4, Y: 1}) || d.CorrectionFactor != DefaultMotorCorrection || d.MaxForce != 50 {
		t.Errorf("motor to the world %+v: want it held where it stands", d)
	}
	if d := mouse.Def; !near(d.AnchorA, entity.Vec2{X: 0.5, Y: 0.5}) || !near(d.Target, entity.Vec2{X: 8, Y: 3}) || d.Frequency != DefaultMouseFrequency {
		t.Errorf("mouse %+v", d)
	}
	if !weld.Def.CollideConnected {
		t.Errorf("weld %+v", weld.Def)
	}
}

// TestJointErrors refuses each mistake a [[joint]] can hold with the
// file, line and key, and says why.
func TestJointErrors(t *testing.T) {
	const line = 37 // the [[joint]] header's line after jointScene and a blank
	for _, tc := range []struct {
		body      string
		at        int // the line of the key at fault, counted from the header
		key, frag string
	}{
		{"a = 2", 0, "joint.kind", "a joint needs a kind"},
		{"kind = \"hinge\"\na = 2", 1, "joint.kind", "not a joint kind"},
		{"kind = \"revolut\"\na = 2", 1, "joint.kind", `did you mean "revolute"?`},
		{"kind = \"revolute\"", 0, "joint.a", "a joint needs a"},
		{"kind = \"revolute\"\na = 9", 2, "joint.a", "no entity in this file has id 9: a joint joins entities of its own file"},
		{"kind = \"revolute\"\na = 2\nb = 12", 3, "joint.b", "no entity in this file has id 12"},
		{"kind = \"revolute\"\na = 2\nb = 2", 3, "joint.b", "to itself"},
		{"kind = \"revolute\"\na = 2\nb = 4", 3, "joint.b", `id 4 (the entity at line 28 ("sign")) has no physics body`},
		{"kind = \"revolute\"\na = 1", 2, "joint.a", "neither body is dynamic"},
		{"kind = \"revolute\"\na = 1\nb = 2\nlimits = [0.5, -0.5]", 4, "joint.limits", "[0.5, -0.5] is the wrong way round: the lower limit comes first"},
		{"kind = \"revolute\"\na = 1\nb = 2\nlimits = 3", 4, "joint.limits", "must be [lower, upper]"},
		{"kind = \"revolute\"\na = 1\nb = 2\nmotorSpeed = 2.0", 0, "joint.maxTorque", "the motor needs maxTorque above 0"},
		{"kind = \"distance\"\na = 1\nb = 2\nlimits = [0.0, 1.0]", 4, "joint.limits", "a distance joint takes no limits; its keys are kind, name, a, b, collideConnected, anchorA, anchorB, length, frequency, damping"},
		{"kind = \"distance\"\na = 2", 0, "joint.anchorB", "a distance joint to the world needs anchorB"},
		{"kind = \"distance\"\na = 2\nb = 3\nanchorA = [4.0, 1.0]", 0, "joint.anchorB", "less than the 0.005 m"},
		{"kind = \"rope\"\na = 2\nb = 3\nlength = -1.0", 4, "joint.length", "out of range"},
		{"kind = \"prismatic\"\na = 1\nb = 2", 0, "joint.axis", "a prismatic joint needs axis"},
		{"kind = \"prismatic\"\na = 1\nb = 2\naxis = [0.0, 0.0]", 4, "joint.axis", "has no direction"},
		{"kind = \"mouse\"\na = 2\nb = 3", 3, "joint.b", "leave b out"},
		{"kind = \"mouse\"\na = 2", 0, "joint.maxForce", "a mouse joint needs maxForce"},
		{"kind = \"motor\"\na = 2\nb = 3", 0, "joint.maxForce", "moves nothing"},
		{"kind = \"friction\"\na = 2\nb = 3", 0, "joint.maxForce", "a friction joint needs maxForce or maxTorque above 0"},
		{"kind = \"friction\"\na = 2\nb = 3\nmaxForce = 1.0\nlength = 2.0", 5, "joint.length", "a friction joint takes no length; its keys are kind, name, a, b, collideConnected, anchor, maxForce, maxTorque"},
		{"kind = \"motor\"\na = 2\nb = 3\nmaxForce = 1.0\ncorrection = 2.0", 5, "joint.correction", "out of range (0..1)"},
		{"kind = \"weld\"\na = 2\nb = 3\nfrequency = -1.0", 4, "joint.frequency", "out of range"},
		{"kind = \"weld\"\na = 2\nb = 3\nspeed = 1.0", 4, "joint.speed", "unknown key"},
	} {
		src := jointScene + "\n[[joint]]\n" + tc.body + "\n"
		_, err := ParseScene("s.toml", []byte(src))
		want := line
		if tc.at > 0 {
			want = line + tc.at
		}
		if err == nil {
			t.Errorf("%q parsed", tc.body)
			continue
		}
		wantConfigError(t, err, "s.toml", want, tc.key, tc.frag)
	}
}

// TestPrefabJoints: a prefab's root joins the world; a joint naming a
// child, which cannot have a body, says why.
func TestPrefabJoints(t *testing.T) {
	const prefab = `[[entity]]
uid = 1
name = "lamp"
transform = { x = 0.0, y = -2.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.3
[[entity]]
uid = 2
parent = 1
name = "glow"
[[joint]]
kind = "rope"
a = 1
anchorB = [0.0, 0.0]
`
	p, err := ParsePrefab("p.toml", []byte(prefab))
	if err != nil {
		t.Fatal(err)
	}
	j := p.Joints[0]
	if !j.ToWorld || j.Def.Length != 2 {
		t.Errorf("lamp rope %+v, want 2 m to the world", j)
	}
	if w := j.World(entity.Transform{X: 5, Y: 9, Scale: 1}); !near(w.AnchorB, entity.Vec2{X: 5, Y: 9}) {
		t.Errorf("spawned at (5, 9), the rope hangs from %+v", w.AnchorB)
	}
	_, err = ParsePrefab("p.toml", []byte(strings.Replace(prefab, "a = 1\n", "a = 1\nb = 2\n", 1)))
	wantConfigError(t, err, "p.toml", 16, "joint.b", "has no physics body to join")
}

// TestPrefabPartJoints: a prefab's body below its root (a part) is joined
// where the file places it, through its parents: a wheel hung from an
// axle hung from the cart, turned, gets its anchors in each body's frame.
func TestPrefabPartJoints(t *testing.T) {
	const prefab = `[[entity]]
uid = 1
name = "cart"
[entity.body]
type = "dynamic"
[[entity.body.shape]]
box = [2.0, 0.5]
[[entity]]
uid = 2
parent = 1
name = "axle"
transform = { x = 1.0, y = 0.0, angle = 1.5707963267948966 }
[[entity]]
uid = 3
parent = 2
name = "wheel"
transform = { x = 0.5, y = 0.0 }
[entity.body]
type = "dynamic"
[[entity.body.shape]]
circle = 0.3
[[joint]]
kind = "wheel"
a = 1
b = 3
`
	p, err := ParsePrefab("p.toml", []byte(prefab))
	if err != nil {
		t.Fatal(err)
	}
	if !p.IsPart(2) || p.IsPart(1) || p.IsPart(0) || !p.Parts() {
		t.Errorf("parts: %v %v %v", p.IsPart(0), p.IsPart(1), p.IsPart(2))
	}
	d := p.Joints[0].Def
	// The wheel stands at (1, 0.5) in the cart's frame, turned a quarter.
	if !near(d.AnchorA, entity.Vec2{X: 1, Y: 0.5}) || !near(d.AnchorB, entity.Vec2{}) {
		t.Errorf("anchors %+v %+v, want (1, 0.5) on the cart and the wheel's centre", d.AnchorA, d.AnchorB)
	}
}

// TestCodeBuiltSceneJointsAreChecked: Validate refuses a joint of a scene
// built in code naming an entity without a body, or a def physics refuses.
func TestCodeBuiltSceneJointsAreChecked(t *testing.T) {
	sc, err := ParseScene("s.toml", []byte(jointScene))
	if err != nil {
		t.Fatal(err)
	}
	sc.Joints = []JointDef{{A: 2, B: 4, Def: entity.JointDef{Kind: entity.Weld}}}
	if err := sc.Validate(); err == nil || !strings.Contains(err.Error(), "joint.b") {
		t.Errorf("a joint to a decoration: %v", err)
	}
	sc.Joints = []JointDef{{A: 2, B: 3, Def: entity.JointDef{Kind: entity.Revolute, Lower: 1, Upper: 0}}}
	if err := sc.Validate(); err == nil || !strings.Contains(err.Error(), "wrong way round") {
		t.Errorf("limits the wrong way round: %v", err)
	}
}
