package project

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"vkm/internal/entity"
	"vkm/physics"
)

// Defaults for what a scene or prefab leaves out.
const (
	// DefaultGravityY is a scene's gravity when [physics] sets none, in m/s²
	// (y up): about twice Earth's, which side-view games use so that jumps
	// are quick and falls read clearly.
	DefaultGravityY = -20.0

	// DefaultDensity is a shape's density in kg/m²: a 1 m crate weighs 1 kg.
	DefaultDensity = 1.0
	// DefaultFriction keeps a box from sliding down a slight slope.
	DefaultFriction = 0.6
	// DefaultRestitution is no bounce.
	DefaultRestitution = 0.0

	// DefaultControllerSpeed is a character's run speed in m/s: brisk, a
	// 40 m arena crossed in five seconds.
	DefaultControllerSpeed = 8.0
	// DefaultControllerAccel reaches full run speed in about an eighth of a
	// second on the ground (m/s²).
	DefaultControllerAccel = 60.0
	// DefaultControllerAirAccel keeps some steering in the air (m/s²).
	DefaultControllerAirAccel = 20.0
	// DefaultControllerJumpSpeed is the upward speed of a jump in m/s: about
	// 3.6 m high under DefaultGravityY.
	DefaultControllerJumpSpeed = 12.0
	// DefaultControllerFriction is how quickly a top-down character with no
	// intent slows down (m/s²): from full speed to rest in about an eighth
	// of a second, as quickly as it starts.
	DefaultControllerFriction = 60.0
)

// maxMagnitude bounds every position, speed and other physical number a
// file may hold: a million metres is far past any level box2d handles well,
// and small enough that products of two such numbers stay finite. Shapes
// follow physics.CheckShape's rules, which are tighter.
const maxMagnitude = 1e6

// EntityDef is one authored entity of a scene or prefab.
type EntityDef struct {
	// Line is the line of the entity's [[entity]] header in its file, best
	// effort (0 when not known).
	Line int

	// ID is, in a scene, the entity's slot (0..entity.MaxSlot, unique in the
	// file): its name on the wire. In a prefab it is the uid, which only
	// names the entity within the prefab (unique there), for parent.
	ID uint32

	Name string

	// Parent and HasParent name the parent: a slot in a scene, a uid in a
	// prefab. The parent is always in the same file.
	Parent    uint32
	HasParent bool

	// Transform is the pose relative to the parent (for a root, the world,
	// or in a prefab, the pose it is instantiated at). Scale defaults to 1.
	Transform entity.Transform

	// Body is the physics body, nil for none. Only root entities have one,
	// but for a decoration (drawn shapes, no physics), which may hang from
	// a parent.
	Body *entity.BodyDef

	// Controller is the character controller, nil for none. It needs a
	// dynamic or kinematic Body on the same entity.
	Controller *entity.CharacterController

	// Look is how the reference client draws it, nil for the default.
	Look *Look

	// Behavior names the Lua behavior, "" for none. Props are copied into
	// each instance; values are bool, float64, string, []any and
	// map[string]any, nested.
	Behavior string
	Props    map[string]any

	// Components are the project's component types on the entity, sorted by
	// Type so that spawning is deterministic.
	Components []ComponentDef
}

// Look says how the reference client draws an entity ([entity.look]); the
// simulation never reads it. Its zero value is the client's default for
// the entity's kind.
type Look struct {
	// Color is a CSS hex colour, "#rgb", "#rgba", "#rrggbb" or
	// "#rrggbbaa"; "" picks one by kind.
	Color string
	// Style is "fill" or "outline"; "" is "fill".
	Style string
	// Label is drawn above the entity; "{player}" in it stands for the
	// name of the player whose commands drive the entity.
	Label string
	// Order is the drawing order: lower first, so higher on top.
	Order int

	// The look's parts that change as the game runs, read from the
	// entity's replicated components by every end that draws it, so that
	// every end shows the same (docs/project.md, "Looks that change").
	// LabelFields is Label as a Template when it names component fields
	// ("{Score.coins}"), nil when it names none. ColorBy picks Color from
	// Colors by the field's value (0 is the first; out of range keeps
	// Color). VisibleBy hides the entity while the field is 0.
	LabelFields Template
	ColorBy     Ref
	Colors      []string
	VisibleBy   Ref

	// Sprite, when not nil, is drawn instead of the entity's shapes.
	Sprite *Sprite
}

// Changes reports whether l has a part that changes as the game runs.
func (l *Look) Changes() bool {
	return l != nil && (l.LabelFields != nil || l.ColorBy.Type != "" || l.VisibleBy.Type != "" ||
		l.Sprite != nil && l.Sprite.StateBy.Type != "")
}

// Limits of [entity.look].
const (
	MaxLabel = 64  // bytes of label
	MaxOrder = 100 // order is within ±MaxOrder
)

// ComponentDef is one project component on an entity, as written: the type's
// name and its fields (values as in EntityDef.Props). A ComponentResolver
// turns it into schema values.
type ComponentDef struct {
	Type   string
	Fields map[string]any
	Line   int // line of the component's table, best effort
}

// Scene is a parsed scene file: gravity and the entities a match starts with,
// each with its recorded slot.
type Scene struct {
	File               string  // the file as given, for messages
	GravityX, GravityY float64 // m/s², y up; default 0, DefaultGravityY
	Entities           []EntityDef
	// Joints join the scene's bodies ([[joint]]), made once they are all
	// built.
	Joints []JointDef
}

// Prefab is a parsed prefab file: a tree of entities with one root, spawned
// as a unit by Instantiate.
type Prefab struct {
	File string
	// Path is where the prefab is in the project folder, as a spawn names
	// it (empty for one not read from a project): every entity built from
	// it records it, so a reload of the file finds them.
	Path     string
	Root     int // index of the root entity in Entities
	Entities []EntityDef
	// Joints are the prefab's [[joint]]s, made when an instance is built:
	// between two of its bodies (the root's and its parts'), or one of
	// them and the world.
	Joints []JointDef
}

// IsPart reports whether defs[i] of a prefab is one of its parts: an
// entity below the root with a physics body (not a decoration). A body
// moves in the world, so it cannot follow a parent: when an instance is
// built a part is placed where its parent puts it and then let go, moving
// on its own, a member of the instance still (destroyed with its root).
// Its entities below it stay its children.
func (p *Prefab) IsPart(i int) bool {
	d := &p.Entities[i]
	return i != p.Root && d.Body != nil && d.Body.Type != entity.Decoration
}

// Parts reports whether the prefab has any part (IsPart).
func (p *Prefab) Parts() bool {
	for i := range p.Entities {
		if p.IsPart(i) {
			return true
		}
	}
	return false
}

// Entity returns the entity of uid, or nil.
func (p *Prefab) Entity(uid uint32) *EntityDef {
	for i := range p.Entities {
		if p.Entities[i].ID == uid {
			return &p.Entities[i]
		}
	}
	return nil
}

// ParseScene parses a scene file of a project that declares no collision
// categories. file is used only in messages. Every mistake the file can
// contain comes back as a *ConfigError.
func ParseScene(file string, data []byte) (*Scene, error) { return parseScene(file, data, nil) }

// ParseScene parses a scene file of p, whose shapes may name p's collision
// categories.
func (p *Project) ParseScene(file string, data []byte) (*Scene, error) {
	return parseScene(file, data, p.Categories)
}

// ParsePrefab parses a prefab file of p, whose shapes may name p's
// collision categories.
func (p *Project) ParsePrefab(file string, data []byte) (*Prefab, error) {
	return parsePrefab(file, data, p.Categories)
}

func parseScene(file string, data []byte, cats Categories) (*Scene, error) {
	doc, root, cerr := decodeTOML(file, sceneKind, data)
	if cerr != nil {
		return nil, cerr
	}
	doc.categories = cats
	sc := &Scene{File: file, GravityY: DefaultGravityY}
	root.only()
	if ph, ok := root.table("physics"); ok {
		ph.only()
		if g, ok := ph.vec2("gravity", "[x, y]"); ok {
			sc.GravityX, sc.GravityY = g.X, g.Y
		}
	}
	sc.Entities = readEntities(root, false)
	if doc.err != nil {
		return nil, doc.err
	}
	if err := sc.validate(doc.lines); err != nil {
		return nil, err
	}
	sc.Joints = readJoints(root, sc.Entities, false)
	if doc.err != nil {
		return nil, doc.err
	}
	return sc, nil
}

// ParsePrefab parses a prefab file of a project that declares no
// collision categories. file is used only in messages. Every mistake the
// file can contain comes back as a *ConfigError.
func ParsePrefab(file string, data []byte) (*Prefab, error) { return parsePrefab(file, data, nil) }

func parsePrefab(file string, data []byte, cats Categories) (*Prefab, error) {
	doc, root, cerr := decodeTOML(file, prefabKind, data)
	if cerr != nil {
		return nil, cerr
	}
	doc.categories = cats
	p := &Prefab{File: file}
	root.only()
	p.Entities = readEntities(root, true)
	if doc.err != nil {
		return nil, doc.err
	}
	r, err := validateEntities(file, true, p.Entities, doc.lines)
	if err != nil {
		return nil, err
	}
	p.Root = r
	p.Joints = readJoints(root, p.Entities, true)
	if doc.err != nil {
		return nil, doc.err
	}
	return p, nil
}

// Validate checks what ParseScene checks of a scene's contents, for scenes
// built in code (e.g. from vkmBuildScene). LoadScene calls it.
func (sc *Scene) Validate() error {
	if err := sc.validate(nil); err != nil {
		return err
	}
	return nil
}

func (sc *Scene) validate(lines lineMap) *ConfigError {
	if !finiteWithin(sc.GravityX, maxMagnitude) || !finiteWithin(sc.GravityY, maxMagnitude) {
		return &ConfigError{File: sc.File, Line: lines.find("physics.gravity"), Key: "physics.gravity",
			Reason: fmt.Sprintf("[%v, %v] is out of range (finite, at most %g m/s² on each axis)", sc.GravityX, sc.GravityY, maxMagnitude)}
	}
	if _, err := validateEntities(sc.File, false, sc.Entities, lines); err != nil {
		return err
	}
	return validateJoints(sc.File, false, sc.Entities, sc.Joints)
}

// Validate checks what ParsePrefab checks of a prefab's contents, and that
// Root is the index of its one root entity. Instantiate calls it.
func (p *Prefab) Validate() error {
	r, err := validateEntities(p.File, true, p.Entities, nil)
	if err != nil {
		return err
	}
	if err := validateJoints(p.File, true, p.Entities, p.Joints); err != nil {
		return err
	}
	if p.Root != r {
		return &ConfigError{File: p.File, Key: "entity", Reason: fmt.Sprintf("Root is %d, but the root entity is entity %d in the list", p.Root, r)}
	}
	return nil
}

func readEntities(root *tomlTable, prefab bool) []EntityDef {
	tabs, _ := root.tables("entity", "[[entity]]")
	defs := make([]EntityDef, 0, len(tabs))
	for _, t := range tabs {
		defs = append(defs, readEntity(t, prefab))
		if root.doc.err != nil {
			break
		}
	}
	return defs
}

func readEntity(t *tomlTable, prefab bool) EntityDef {
	idKey, what := "id", "id is required: it is the entity's slot, its name on the wire (0..16777215, unique in the scene)"
	if prefab {
		idKey, what = "uid", "uid is required: it names the entity within the prefab, for parent (unique in the prefab)"
	}
	t.only()
	d := EntityDef{Line: t.line, Transform: entity.Identity}
	if !t.has(idKey) {
		t.fail(idKey, "%s", what)
	}
	d.ID, _ = readID(t, idKey, prefab)
	d.Parent, d.HasParent = readID(t, "parent", prefab)
	d.Name, _ = t.str("name")
	if tt, ok := t.table("transform"); ok {
		d.Transform = readTransform(tt)
	}
	if b, ok := t.str("behavior"); ok && b == "" {
		t.fail("behavior", "is empty; leave behavior out for an entity without one")
	} else {
		d.Behavior = b
	}
	if _, ok := t.table("props"); ok {
		if v, ok := t.plain("props"); ok {
			d.Props = v.(map[string]any)
		}
	}
	bt, hasBody := t.table("body")
	if hasBody {
		d.Body = readBody(bt)
	}
	if ct, ok := t.table("controller"); ok {
		d.Controller = readController(ct)
		if d.Controller.Mode == entity.TopDown && hasBody && !bt.has("gravityScale") {
			// Seen from above, the scene's gravity is not "down": a
			// top-down character floats unless its file says otherwise,
			// which checkDef refuses.
			d.Body.GravityScale = 0
		}
	}
	if ct, ok := t.table("components"); ok {
		d.Components = readComponents(ct)
	}
	if lt, ok := t.table("look"); ok {
		d.Look = readLook(lt)
	}
	return d
}

// readLook reads [entity.look].
func readLook(t *tomlTable) *Look {
	t.only()
	l := &Look{}
	if c, ok := t.str("color"); ok {
		if !isHexColor(c) {
			t.fail("color", "%q is not a colour: write it as CSS hex, \"#rgb\", \"#rgba\", \"#rrggbb\" or \"#rrggbbaa\" (e.g. \"#3fb6ff\")", c)
		}
		l.Color = c
	}
	if s, ok := t.str("style"); ok {
		if s != "fill" && s != "outline" {
			t.fail("style", "%q is not a style: \"fill\" or \"outline\"", s)
		}
		l.Style = s
	}
	if s, ok := t.str("label"); ok {
		switch {
		case len(s) > MaxLabel:
			t.fail("label", "is %d bytes long; a label is at most %d", len(s), MaxLabel)
		case !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
			t.fail("label", "%q holds a character that is not printable", s)
		}
		l.Label = s
		if tpl, err := ParseTemplate(s); err != nil {
			t.fail("label", "%q: %v", s, err)
		} else if len(tpl.Refs()) > 0 && !(len(tpl.Refs()) == 1 && tpl.Refs()[0].Name) {
			l.LabelFields = tpl
		}
	}
	readLookFields(t, l)
	if st, ok := t.table("sprite"); ok {
		l.Sprite = readSprite(st)
	}
	if n, ok := t.integer("order"); ok {
		if n < -MaxOrder || n > MaxOrder {
			t.fail("order", "%d is outside -%d..%d", n, MaxOrder, MaxOrder)
		}
		l.Order = int(n)
	}
	return l
}

// isHexColor reports whether s is a CSS hex colour of 3, 4, 6 or 8 digits.
func isHexColor(s string) bool {
	h, ok := strings.CutPrefix(s, "#")
	if !ok || (len(h) != 3 && len(h) != 4 && len(h) != 6 && len(h) != 8) {
		return false
	}
	for _, r := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// readID reads a slot (scene) or uid (prefab).
func readID(t *tomlTable, key string, prefab bool) (uint32, bool) {
	n, ok := t.integer(key)
	if !ok {
		return 0, false
	}
	switch {
	case prefab && (n < 0 || n > math.MaxUint32):
		t.fail(key, "%d is not a uid (0..%d)", n, uint32(math.MaxUint32))
		return 0, false
	case !prefab && (n < 0 || n > entity.MaxSlot):
		t.fail(key, "%d is not a slot (0..%d)", n, entity.MaxSlot)
		return 0, false
	}
	return uint32(n), true
}

func readTransform(t *tomlTable) entity.Transform {
	t.only()
	tr := entity.Identity
	tr.X, _ = t.number("x")
	tr.Y, _ = t.number("y")
	tr.Angle, _ = t.number("angle")
	if s, ok := t.number("scale"); ok {
		tr.Scale = s
	}
	return tr
}

func readBody(t *tomlTable) *entity.BodyDef {
	t.only()
	b := &entity.BodyDef{GravityScale: 1}
	if !t.has("type") {
		t.fail("type", "a body needs a type: static, dynamic, kinematic or decoration")
	}
	if s, ok := t.str("type"); ok {
		switch s {
		case "static":
			b.Type = entity.Static
		case "dynamic":
			b.Type = entity.Dynamic
		case "kinematic":
			b.Type = entity.Kinematic
		case "decoration":
			b.Type = entity.Decoration
		default:
			t.fail("type", "%q is not a body type: static, dynamic, kinematic or decoration", s)
		}
	}
	b.FixedRotation, _ = t.boolean("fixedRotation")
	b.Bullet, _ = t.boolean("bullet")
	b.LinearDamping, _ = t.number("linearDamping")
	b.AngularDamping, _ = t.number("angularDamping")
	if g, ok := t.number("gravityScale"); ok {
		b.GravityScale = g
	}
	shapes, _ := t.tables("shape", "[[entity.body.shape]]")
	if len(shapes) == 0 {
		t.fail("", "a body needs at least one [[entity.body.shape]]")
	}
	for _, st := range shapes {
		b.Shapes = append(b.Shapes, readShape(st))
	}
	return b
}

var shapeKinds = []string{"box", "circle", "polygon", "chain"}

func readShape(t *tomlTable) entity.Shape {
	t.only()
	sh := entity.Shape{Density: DefaultDensity, Friction: DefaultFriction, Restitution: DefaultRestitution}
	var kinds []string
	for _, k := range shapeKinds {
		if t.has(k) {
			kinds = append(kinds, k)
		}
	}
	switch len(kinds) {
	case 0:
		t.fail("", "a shape needs one of box = [w, h], circle = r, polygon = [[x, y], ...] or chain = [[x, y], ...]")
		return sh
	case 1:
	default:
		t.fail(kinds[1], "a shape is exactly one of box, circle, polygon or chain, and this one has both %s and %s; write one [[entity.body.shape]] for each", kinds[0], kinds[1])
		return sh
	}
	switch kinds[0] {
	case "box":
		sh.Kind = entity.Box
		wh, _ := t.vec2("box", "[w, h]")
		sh.W, sh.H = wh.X, wh.Y
	case "circle":
		sh.Kind = entity.Circle
		sh.Radius, _ = t.number("circle")
	case "polygon":
		sh.Kind = entity.Polygon
		sh.Points, _ = t.points("polygon")
	case "chain":
		sh.Kind = entity.Chain
		sh.Points, _ = t.points("chain")
	}
	sh.Offset, _ = t.vec2("offset", "[x, y]")
	if t.has("angle") && sh.Kind != entity.Box {
		t.fail("angle", "%s", angleReason(sh.Kind))
	}
	sh.Angle, _ = t.number("angle")
	if t.has("loop") && sh.Kind != entity.Chain {
		t.fail("loop", "loop closes a chain; a %s has none", sh.Kind)
	}
	sh.Loop, _ = t.boolean("loop")
	if v, ok := t.number("density"); ok {
		sh.Density = v
	}
	if v, ok := t.number("friction"); ok {
		sh.Friction = v
	}
	if v, ok := t.number("restitution"); ok {
		sh.Restitution = v
	}
	sh.Sensor, _ = t.boolean("sensor")
	readFilter(t, &sh)
	return sh
}

func angleReason(k entity.ShapeKind) string {
	if k == entity.Circle {
		return "a circle has no angle; angle turns a box"
	}
	return fmt.Sprintf("angle turns a box only; give the %s's points already turned", k)
}

// controllerModes are the names [entity.controller] mode takes, in
// entity.ControllerMode order.
var controllerModes = []string{entity.SideView.String(), entity.TopDown.String()}

// modeKeys are the controller keys only one mode reads, with that mode.
var modeKeys = []struct {
	key  string
	mode entity.ControllerMode
	why  string
}{
	{"airAccel", entity.SideView, "top-down there is no ground to leave"},
	{"jumpSpeed", entity.SideView, "top-down there is no jump"},
	{"friction", entity.TopDown, "side view brakes at accel (airAccel in the air)"},
}

func readController(t *tomlTable) *entity.CharacterController {
	t.only()
	c := &entity.CharacterController{
		Speed:     DefaultControllerSpeed,
		Accel:     DefaultControllerAccel,
		AirAccel:  DefaultControllerAirAccel,
		JumpSpeed: DefaultControllerJumpSpeed,
	}
	if m, ok := t.str("mode"); ok {
		i := slices.Index(controllerModes, m)
		if i < 0 {
			hint := ""
			if s := closestKey(m, controllerModes); s != "" {
				hint = fmt.Sprintf("did you mean %q? ", s)
			}
			t.fail("mode", "%q is not a controller mode; %sthe modes are %s", m, hint, strings.Join(controllerModes, ", "))
			return c
		}
		c.Mode = entity.ControllerMode(i)
	}
	if c.Mode == entity.TopDown {
		c.AirAccel, c.JumpSpeed, c.Friction = 0, 0, DefaultControllerFriction
	}
	for _, k := range modeKeys {
		if t.has(k.key) && c.Mode != k.mode {
			t.fail(k.key, "%s is for mode = %q only: %s", k.key, k.mode, k.why)
		}
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{{"speed", &c.Speed}, {"accel", &c.Accel}, {"airAccel", &c.AirAccel}, {"jumpSpeed", &c.JumpSpeed}, {"friction", &c.Friction}} {
		if v, ok := t.number(f.key); ok {
			*f.v = v
		}
	}
	return c
}

func readComponents(t *tomlTable) []ComponentDef {
	names := make([]string, 0, len(t.m))
	for k := range t.m {
		names = append(names, k)
	}
	slices.Sort(names)
	var out []ComponentDef
	for _, name := range names {
		ct, ok := t.table(name)
		if !ok {
			return nil
		}
		v, ok := t.plain(name)
		if !ok {
			return nil
		}
		out = append(out, ComponentDef{Type: name, Fields: v.(map[string]any), Line: ct.line})
	}
	return out
}

// validateEntities checks a scene's or prefab's entities: each one's values,
// then ids, parents and (for a prefab) the one root, whose index it returns.
// lines, when not nil, locates keys more precisely than EntityDef.Line.
func validateEntities(file string, prefab bool, defs []EntityDef, lines lineMap) (int, *ConfigError) {
	idKey := "id"
	if prefab {
		idKey = "uid"
	}
	at := func(i int, sub, format string, args ...any) *ConfigError {
		line := lines.find(joinPath(indexPath("entity", i), sub))
		if line == 0 {
			line = defs[i].Line
		}
		return &ConfigError{File: file, Line: line, Key: joinPath("entity", displayKey(sub)), Reason: fmt.Sprintf(format, args...)}
	}
	for i := range defs {
		if sub, reason := checkDef(&defs[i]); reason != "" {
			return -1, at(i, sub, "%s", reason)
		}
	}
	index := make(map[uint32]int, len(defs))
	for i, d := range defs {
		if !prefab && d.ID > entity.MaxSlot {
			return -1, at(i, "id", "%d is not a slot (0..%d)", d.ID, entity.MaxSlot)
		}
		if j, dup := index[d.ID]; dup {
			return -1, at(i, idKey, "%d is already the %s of %s; each entity needs its own", d.ID, idKey, describeDef(defs, j))
		}
		index[d.ID] = i
	}
	for i, d := range defs {
		if !d.HasParent {
			continue
		}
		if _, ok := index[d.Parent]; !ok {
			return -1, at(i, "parent", "no entity in this file has %s %d", idKey, d.Parent)
		}
		if !prefab && d.Body != nil && d.Body.Type != entity.Decoration {
			return -1, at(i, "body", "bodies must be on root entities: physics moves a body in world space, so it cannot follow a parent (this entity's parent is %s %d); a decoration may hang from one", idKey, d.Parent)
		}
	}
	if i, cycle := findCycle(defs, index); cycle != "" {
		return -1, at(i, "parent", "parent cycle %s: an entity cannot be its own ancestor", cycle)
	}
	if !prefab {
		return -1, nil
	}
	return prefabRoot(file, defs, at)
}

func prefabRoot(file string, defs []EntityDef, at func(int, string, string, ...any) *ConfigError) (int, *ConfigError) {
	root := -1
	for i, d := range defs {
		if d.HasParent {
			continue
		}
		if root >= 0 {
			return -1, at(i, "parent", "a prefab has exactly one root entity, and this is a second one (%s is the first); give it a parent", describeDef(defs, root))
		}
		root = i
	}
	if root < 0 {
		// Only an empty prefab gets here: without cycles, parents lead to a root.
		return -1, &ConfigError{File: file, Key: "entity", Reason: "a prefab needs one [[entity]] without parent, its root, and this one has no entities"}
	}
	return root, nil
}

// findCycle returns an entity on a parent cycle and the cycle, written as
// "3 → 5 → 3", or "" if the parents form a forest. Parents must exist.
func findCycle(defs []EntityDef, index map[uint32]int) (int, string) {
	const (
		unseen = iota
		onPath // on the walk being made
		done   // leads to a root
	)
	state := make([]uint8, len(defs))
	var path []int
	for i := range defs {
		path = path[:0]
		for j := i; state[j] != done; j = index[defs[j].Parent] {
			if state[j] == onPath {
				var b strings.Builder
				for _, n := range path[slices.Index(path, j):] {
					fmt.Fprintf(&b, "%d → ", defs[n].ID)
				}
				fmt.Fprintf(&b, "%d", defs[j].ID)
				return j, b.String()
			}
			state[j] = onPath
			path = append(path, j)
			if !defs[j].HasParent {
				break
			}
		}
		for _, n := range path {
			state[n] = done
		}
	}
	return -1, ""
}

// describeDef names entity i of defs for a message.
func describeDef(defs []EntityDef, i int) string {
	d := defs[i]
	s := fmt.Sprintf("entity %d in the file", i+1)
	if d.Line > 0 {
		s = fmt.Sprintf("the entity at line %d", d.Line)
	}
	if d.Name != "" {
		s += fmt.Sprintf(" (%q)", d.Name)
	}
	return s
}

// finiteWithin reports whether v is finite and at most limit in size.
func finiteWithin(v, limit float64) bool { return v >= -limit && v <= limit }

// checkDef checks one entity's values. It returns the indexed path of the
// first bad one, relative to the entity, and what is wrong with it.
func checkDef(d *EntityDef) (sub, reason string) {
	if sub, reason := CheckTransform(d.Transform); reason != "" {
		return joinPath("transform", sub), reason
	}
	if d.Body != nil {
		if sub, reason := checkBody(d.Body); reason != "" {
			return joinPath("body", sub), reason
		}
	}
	if c := d.Controller; c != nil {
		if sub, reason := checkController(c); reason != "" {
			return joinPath("controller", sub), reason
		}
		if d.Body == nil || d.Body.Type == entity.Static || d.Body.Type == entity.Decoration {
			return "controller", "a controller moves its entity's body: give the entity a dynamic or kinematic [entity.body]"
		}
		if c.Mode == entity.TopDown && d.Body.GravityScale != 0 {
			return "body.gravityScale", fmt.Sprintf("%v pulls a top-down character off its course: a top-down controller moves on both axes, so leave gravityScale out (it is then 0) or set it to 0", d.Body.GravityScale)
		}
	}
	if len(d.Props) > 0 && d.Behavior == "" {
		return "props", "props are copied into the entity's behavior, and it has none: add behavior = \"...\""
	}
	if sub, reason := checkPlain(d.Props, "props"); reason != "" {
		return sub, reason
	}
	for i, c := range d.Components {
		key := "components." + c.Type
		switch {
		case c.Type == "":
			return "components", "a component type needs a name"
		case i > 0 && d.Components[i-1].Type >= c.Type:
			return key, "components must be sorted by Type, each type at most once"
		}
		if sub, reason := checkPlain(c.Fields, key); reason != "" {
			return sub, reason
		}
	}
	return "", ""
}

// checkController says what is wrong with a controller's mode and tuning
// (the key and why), or returns empty strings.
func checkController(c *entity.CharacterController) (sub, reason string) {
	if c.Mode > entity.TopDown {
		return "mode", fmt.Sprintf("%v is not a controller mode: %s", c.Mode, strings.Join(controllerModes, " or "))
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"speed", c.Speed}, {"accel", c.Accel}, {"airAccel", c.AirAccel}, {"jumpSpeed", c.JumpSpeed}, {"friction", c.Friction}} {
		if !(f.v >= 0 && f.v <= maxMagnitude) {
			return f.key, fmt.Sprintf("%v is out of range (0..%g)", f.v, maxMagnitude)
		}
	}
	return "", ""
}

// CheckTransform says what is wrong with a pose a file or a spawn gives
// (the field and why), or returns empty strings when it is within the
// limits the wire and the physics take.
func CheckTransform(t entity.Transform) (sub, reason string) {
	for _, f := range []struct {
		key string
		v   float64
	}{{"x", t.X}, {"y", t.Y}, {"angle", t.Angle}} {
		if !finiteWithin(f.v, maxMagnitude) {
			return f.key, fmt.Sprintf("%v is out of range (finite, at most %g in size)", f.v, maxMagnitude)
		}
	}
	if !(t.Scale > 0 && t.Scale <= maxMagnitude) {
		return "scale", fmt.Sprintf("%v is not a scale: it must be above 0 (1 is unscaled)", t.Scale)
	}
	return "", ""
}

func checkBody(b *entity.BodyDef) (sub, reason string) {
	if b.Type > entity.Decoration {
		return "type", fmt.Sprintf("%v is not a body type: static, dynamic, kinematic or decoration", b.Type)
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"linearDamping", b.LinearDamping}, {"angularDamping", b.AngularDamping}} {
		if !(f.v >= 0 && f.v <= maxMagnitude) {
			return f.key, fmt.Sprintf("%v is out of range (0..%g)", f.v, maxMagnitude)
		}
	}
	if !finiteWithin(b.GravityScale, maxMagnitude) {
		return "gravityScale", fmt.Sprintf("%v is out of range (finite, at most %g in size)", b.GravityScale, maxMagnitude)
	}
	if len(b.Shapes) == 0 {
		return "", "a body needs at least one [[entity.body.shape]]"
	}
	for i := range b.Shapes {
		if sub, reason := checkShape(&b.Shapes[i]); reason != "" {
			return joinPath(indexPath("shape", i), sub), reason
		}
	}
	return "", ""
}

// checkShape checks one shape, returning the key of the bad value relative
// to the shape. Its geometry, offset and material are checked by
// physics.CheckShape, the rules physics.World.Add applies, so that a shape a
// file may hold is one Add takes; what is left is about the file: which keys
// each kind of shape may have, and how large a number it may hold.
func checkShape(sh *entity.Shape) (sub, reason string) {
	if e := physics.CheckShape(sh); e != nil {
		sub = e.Key
		if e.Point >= 0 {
			sub = indexPath(e.Key, e.Point)
		}
		return sub, e.Reason
	}
	switch {
	case sh.Angle != 0 && sh.Kind != entity.Box:
		return "angle", angleReason(sh.Kind)
	case !finiteWithin(sh.Angle, maxMagnitude):
		return "angle", fmt.Sprintf("%v is out of range (finite, at most %g in size)", sh.Angle, maxMagnitude)
	case sh.Loop && sh.Kind != entity.Chain:
		return "loop", fmt.Sprintf("loop closes a chain; a %s has none", sh.Kind)
	}
	return "", ""
}

// checkPlain checks game data built in code against what plainValue makes of
// a file: bool, finite float64, string, []any and map[string]any, nested.
func checkPlain(v any, at string) (sub, reason string) {
	switch v := v.(type) {
	case bool, string:
		return "", ""
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return at, fmt.Sprintf("must be a finite number, not %v", v)
		}
		return "", ""
	case []any:
		for i, e := range v {
			if sub, reason := checkPlain(e, indexPath(at, i)); reason != "" {
				return sub, reason
			}
		}
		return "", ""
	case map[string]any:
		for _, k := range sortedPropKeys(v) {
			if sub, reason := checkPlain(v[k], joinPath(at, k)); reason != "" {
				return sub, reason
			}
		}
		return "", ""
	}
	return at, fmt.Sprintf("a %T is not game data: use numbers (float64), strings, booleans, arrays and tables", v)
}

func sortedPropKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
