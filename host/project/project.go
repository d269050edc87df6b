package project

import (
	"time"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vkm/prediction"
)

// Project is a loaded project.toml: the settings a game is served and played
// with, and its input actions (DESIGN.md, "The project folder").
type Project struct {
	// Dir is the project folder as given. Folders is where the project's
	// files are read from, in order: Dir, then the folder its project.toml
	// extends, then the one that one extends, and so on; Dir alone when it
	// extends nothing. FS reads them as one folder, each name from the
	// first of them that holds it, so a project's own prefabs/player.toml
	// hides the one of the project it extends. Scenes, prefabs and scripts,
	// the dev watcher and a reload's bundle all read through FS, with the
	// slash-separated paths the project files use.
	Dir     string
	Folders []string
	FS      fs.FS

	// Extends is project.toml's extends as written: the folder of the
	// project this one builds on, relative to Dir, or empty. A project
	// that extends another plays that game with what its own files change:
	// every setting its project.toml leaves out is the other's (see
	// LoadProject), and every file it does not hold is read from the
	// other's folder.
	Extends string

	// File is the path of project.toml as given, for messages.
	File string

	// Name is the game's name. When project.toml has none, LoadProject uses
	// the folder's name.
	Name string

	// Title is what the game's page is called (its browser tab's title);
	// Name when project.toml sets none.
	Title string

	// Icon is the slash-separated path inside the folder of a PNG image,
	// cleaned: the page's icon (/favicon.ico); empty for the engine's.
	Icon string

	// Players is how many players a game is for. It is required: it belongs
	// to the game, so there is no default.
	Players int

	// Spectators is how many spectators may watch at once
	// (DefaultSpectators when not set): a bound apart from Players, since
	// a spectator takes no player seat and has no entity.
	Spectators int

	// Port is the UDP port a server listens on (DefaultPort when not set).
	Port int

	// TickRate is how many fixed ticks the simulation runs a second
	// (DefaultTickRate when not set, at most MaxTickRate).
	TickRate int

	// Reach, when above 0, is how far in metres from a player's own
	// entity its snapshots look every round: a farther entity is told of
	// one round in replication.ReachEvery (see replication.Reach). A game
	// whose level is far larger than what a player is shown sets it a
	// little past the view (the reference client's is 32 m wide at 16:9);
	// 0, when project.toml sets none, has every snapshot look at the whole
	// world each round.
	Reach float64

	// ViewWidth is how many metres of the world the reference client
	// shows across, following the local player (DefaultViewWidth when not
	// set).
	ViewWidth float64

	// Scoreboard names what the reference client's scoreboard shows: a
	// component type ("Score", every field) or one field of one
	// ("Round.left"). Each player's row has those its entity has, and any
	// other entity with one of them (a round timer) is shown below the
	// rows. Empty: the board lists the players alone.
	Scoreboard []string

	// Camera is how the reference client's page frames the world.
	Camera Camera

	// Voice is how the players talk (voice.go); off unless [voice] says.
	Voice Voice

	// Renderer is the slash-separated path inside the folder of a
	// JavaScript file that draws the game in the page instead of the
	// built-in drawing (docs/project.md, "Your own renderer"); empty for
	// the built-in one.
	Renderer string

	// Sounds map the game's events to sound files ([[sound]] tables).
	Sounds []Sound

	// HUD is what the game shows on screen over the world, in file order
	// ([[hud]] tables); empty shows nothing.
	HUD []HUDItem

	// RejoinWindow is how long a server with a key keeps the seat of a
	// player whose link dropped, counted from the last datagram heard, for
	// the player to take back with the same client id: same number, same
	// entity. The leave handler runs when it passes. 0 keeps no seat
	// (DefaultRejoinWindow when not set). A server without a key keeps
	// none either: nothing proves a later join is the same player.
	RejoinWindow time.Duration

	// MOTD is the message of the day: a line a server sends each player
	// as they join, from the server (player 0) in the chat. Empty: none.
	// At most MaxMOTD bytes.
	MOTD string

	// EntryScene and EntryScript are slash-separated paths inside the
	// folder, cleaned: the scene a match starts with and the script that
	// registers the behaviors.
	EntryScene  string
	EntryScript string

	// Axes and Buttons are the input actions in file order. The order is
	// what a command slot means, so server and clients must agree on it:
	// axis i is Command.Axes[i] and button i is bit i of Held and Pressed.
	Axes    []Axis
	Buttons []Button

	// Categories are the collision categories [collision] categories
	// declares, which scenes' and prefabs' shapes name in category and
	// mask (see Categories).
	Categories Categories
}

// Axis is an input action with a value in -1..1. The reference client sets it
// from keys (Negative gives -1, Positive +1, both or neither 0) or, with
// Mouse, from where the pointer is relative to the player: "x" and "y" are
// the direction to it (a unit vector's components), "point_x" and
// "point_y" the offset to it over Reach metres, held to -1..1, so that a
// behavior finds the point in the world as its position plus the axes
// times Reach.
type Axis struct {
	Name     string
	Negative []string // KeyboardEvent.code names, e.g. "KeyA", "ArrowLeft"
	Positive []string
	Mouse    string  // "", "x", "y", "point_x" or "point_y"
	Reach    float64 // metres, with "point_x" and "point_y" only
}

// MaxPointReach bounds an axis's reach (metres): the widest view a
// project may have.
const MaxPointReach = 8192

// Button is an input action that is held or not; a command also records the
// tick it went down. The reference client holds it while any of Keys (or the
// mouse button) is down.
type Button struct {
	Name  string
	Keys  []string // KeyboardEvent.code names, e.g. "Space"
	Mouse string   // "", "left" or "right"
}

const (
	// DefaultPort is the UDP port a server uses when project.toml sets none:
	// the port Quake III, whose networking model vkm follows, made familiar
	// to players and firewall rules.
	DefaultPort = 27960

	// DefaultTickRate is the tick rate when project.toml sets none: 64 Hz
	// matches the 64-a-second snapshot and command packets, so every packet
	// carries exactly one new tick.
	DefaultTickRate = 64

	// MaxMOTD bounds motd: a chat line's most (netmsg.MaxChat).
	MaxMOTD = 200

	// DefaultRejoinWindow is the rejoin window when project.toml sets
	// none: the connection timeout, the time a phone changing networks or
	// a Wi-Fi roam takes with room to spare.
	DefaultRejoinWindow = 10 * time.Second

	// MaxRejoinWindow bounds rejoinWindow: a held seat is a player the
	// match goes on without, driven by nobody.
	MaxRejoinWindow = 10 * time.Minute

	// MaxTickRate bounds tickRate. Commands, pacing and the server's queue
	// are counted in ticks; faster rates would need deeper queues and wider
	// packets than the wire format has.
	MaxTickRate = 128

	// DefaultViewWidth is the view's width when project.toml sets none:
	// 32 m, 18 m high on a 16:9 screen.
	DefaultViewWidth = 32
	// MaxViewWidth bounds viewWidth, a little over a level as large as
	// the wire carries.
	MaxViewWidth = 8192

	// MaxReach bounds reach: the wire carries a position within ±2.1 km,
	// so two entities are at most 5.9 km apart and a reach of 8 km takes
	// in every one of them.
	MaxReach = 8192

	// MaxPlayers bounds players. Each player costs the server a command
	// queue, a snapshot stream and 64 ticks of lag-compensation history
	// every tick; far past a few hundred, one match goroutine cannot keep up.
	MaxPlayers = 256

	// MaxExtends bounds how many projects one project's extends leads
	// through. A game and its variants need two or three; the bound also
	// ends a chain that symlinks would otherwise make endless.
	MaxExtends = 8
)

// ProjectFile is the name of the file that makes a folder a project.
const ProjectFile = "project.toml"

// AxisIndex returns the command slot of the axis called name, or -1.
func (p *Project) AxisIndex(name string) int {
	for i, a := range p.Axes {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// ButtonIndex returns the command bit of the button called name, or -1.
func (p *Project) ButtonIndex(name string) int {
	for i, b := range p.Buttons {
		if b.Name == name {
			return i
		}
	}
	return -1
}

// ConfigError is a mistake in a project file (project.toml, a scene or a
// prefab), located as precisely as the file allows so the developer can go
// straight to it.
type ConfigError struct {
	File   string // the file as given
	Line   int    // 1-based; 0 when the line is not known
	Key    string // dotted key, e.g. "tickRate" or "entity.body.shape.box"; may be empty
	Reason string // what is wrong and, where it helps, how to fix it
	Err    error  // the cause, if another error (syntax, I/O, a resolver) is behind it
}

// Error formats e as file:line: key: reason, leaving out what is unknown.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns the error behind e, such as a toml.ParseError, or nil.
func (e *ConfigError) Unwrap() error { return e.Err }

// LoadProject reads dir/project.toml and checks that its entry scene and
// entry script exist in the project's files.
//
// When project.toml sets extends, the project it names is loaded first
// (and the one that one extends, and so on) and this project builds on it:
// every setting this project.toml leaves out is taken from it, except the
// name (a project is named after its own folder when its file names
// none); the input actions come as a whole, so listing any [[axis]] or
// [[button]] replaces all of the other project's. Files are read from this
// project's folder first and then from the folders it extends (see
// Project.Folders). The project extended must load on its own. A folder
// extends names that does not exist or is not a project, and a chain of
// extends that comes back to a project already in it, are errors naming
// project.toml, its line and the key.
func LoadProject(dir string) (*Project, error) {
	return loadProject(diskFolders{}, dir, nil)
}

// LoadFS is LoadProject for a project whose folders are inside fsys: dir is
// the slash-separated path of its folder there, and a folder extends names
// is found relative to it inside fsys too (it may not lead out of fsys).
// The project's FS reads from fsys; Folders are paths inside it. A browser
// client loads the project it was served this way (see WriteZip).
func LoadFS(fsys fs.FS, dir string) (*Project, error) {
	return loadProject(fsFolders{fsys}, path.Clean(dir), nil)
}

// folders is where a project's folders are read: the disk, or an fs.FS.
type folders interface {
	// join returns the folder or file rel (slash-separated) names inside
	// dir.
	join(dir, rel string) string
	readFile(name string) ([]byte, error)
	stat(name string) (fs.FileInfo, error)
	// open returns the folder dir as an fs.FS.
	open(dir string) fs.FS
	// real is dir as it resolves, so that two ways of naming one folder
	// compare equal.
	real(dir string) string
}

// diskFolders are folders on disk.
type diskFolders struct{}

func (diskFolders) join(dir, rel string) string           { return filepath.Join(dir, filepath.FromSlash(rel)) }
func (diskFolders) readFile(name string) ([]byte, error)  { return os.ReadFile(name) }
func (diskFolders) stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (diskFolders) open(dir string) fs.FS                 { return os.DirFS(dir) }
func (diskFolders) real(dir string) string                { return realDir(dir) }

// fsFolders are folders inside an fs.FS.
type fsFolders struct{ fsys fs.FS }

func (f fsFolders) join(dir, rel string) string           { return path.Join(dir, rel) }
func (f fsFolders) readFile(name string) ([]byte, error)  { return fs.ReadFile(f.fsys, name) }
func (f fsFolders) stat(name string) (fs.FileInfo, error) { return fs.Stat(f.fsys, name) }
func (f fsFolders) real(dir string) string                { return path.Clean(dir) }

func (f fsFolders) open(dir string) fs.FS {
	sub, err := fs.Sub(f.fsys, dir)
	if err != nil { // dir was stat'ed as a folder before, so it is valid
		panic("project: " + err.Error())
	}
	return sub
}

// extendsLink is one project in a chain of extends: its folder as reached
// (for messages) and as the file system resolves it (to find a cycle).
type extendsLink struct{ dir, real string }

// loadProject loads the project in dir; chain holds the projects that
// extend it, the one nearest to it last.
func loadProject(from folders, dir string, chain []extendsLink) (*Project, error) {
	file := from.join(dir, ProjectFile)
	data, err := from.readFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &ConfigError{File: file, Err: err,
			Reason: fmt.Sprintf("not found: %s is not a project folder (a project folder holds %s, its scenes, prefabs and scripts)", dir, ProjectFile)}
	}
	if err != nil {
		return nil, &ConfigError{File: file, Reason: err.Error(), Err: err}
	}
	p, set, err := parseProject(file, data)
	if err != nil {
		return nil, err
	}
	p.Dir = dir
	p.Folders = []string{dir}
	p.FS = from.open(dir)
	lines := indexLines(data)
	if p.Extends != "" {
		base, err := p.loadExtended(from, lines["extends"], chain)
		if err != nil {
			return nil, err
		}
		p.inherit(base, set)
		p.Folders = append(p.Folders, base.Folders...)
		layers := make([]fs.FS, len(p.Folders))
		for i, d := range p.Folders {
			layers[i] = from.open(d)
		}
		p.FS = layeredFS{layers: layers}
	}
	if p.Name == "" {
		if _, ok := from.(fsFolders); ok {
			p.Name = path.Base(dir)
		} else if abs, err := filepath.Abs(dir); err == nil {
			p.Name = filepath.Base(abs)
		} else {
			p.Name = filepath.Base(dir)
		}
	}
	where := dir
	if len(p.Folders) > 1 {
		where = fmt.Sprintf("%s or the folders it extends (%s)", dir, strings.Join(p.Folders[1:], ", "))
	}
	if p.Title == "" {
		p.Title = p.Name
	}
	files := []struct{ key, path string }{{"entryScene", p.EntryScene}, {"entryScript", p.EntryScript}}
	if p.Icon != "" {
		files = append(files, struct{ key, path string }{"icon", p.Icon})
	}
	if p.Renderer != "" {
		files = append(files, struct{ key, path string }{"renderer", p.Renderer})
	}
	for _, e := range files {
		info, err := fs.Stat(p.FS, e.path)
		switch {
		case err != nil:
			return nil, &ConfigError{File: file, Line: lines[e.key], Key: e.key, Err: err,
				Reason: fmt.Sprintf("%s does not exist in %s", e.path, where)}
		case info.IsDir():
			return nil, &ConfigError{File: file, Line: lines[e.key], Key: e.key,
				Reason: fmt.Sprintf("%s is a folder; name a file in it", e.path)}
		}
	}
	if err := p.checkSounds(func(name string) error { _, err := fs.Stat(p.FS, name); return err }); err != nil {
		return nil, err
	}
	return p, nil
}

// loadExtended loads the project p extends. line is where project.toml
// sets extends, and chain the projects that extend p.
func (p *Project) loadExtended(from folders, line int, chain []extendsLink) (*Project, error) {
	fail := func(err error, format string, args ...any) error {
		return &ConfigError{File: p.File, Line: line, Key: "extends", Reason: fmt.Sprintf(format, args...), Err: err}
	}
	dir := from.join(p.Dir, p.Extends)
	info, err := from.stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrInvalid):
		return nil, fail(err, "%q: there is no folder %s (extends names the folder of the project this one builds on, relative to this project's folder)", p.Extends, dir)
	case err != nil:
		return nil, fail(err, "%q: %v", p.Extends, err)
	case !info.IsDir():
		return nil, fail(nil, "%q: %s is a file; extends names the folder of the project this one builds on", p.Extends, dir)
	}
	if _, err := from.stat(from.join(dir, ProjectFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, fail(err, "%q: %s is not a project folder: it holds no %s", p.Extends, dir, ProjectFile)
	}
	chain = append(slices.Clone(chain), extendsLink{p.Dir, from.real(p.Dir)})
	next := extendsLink{dir, from.real(dir)}
	for i, l := range chain {
		if l.real != next.real {
			continue
		}
		var names []string
		for _, l := range chain[i:] {
			names = append(names, l.dir)
		}
		names = append(names, dir)
		return nil, fail(nil, "%q goes round in a circle: %s; a project cannot build on itself", p.Extends, strings.Join(names, " extends "))
	}
	if len(chain) >= MaxExtends {
		return nil, fail(nil, "%q is the %dth project of a chain of extends, and a chain holds at most %d", p.Extends, len(chain)+1, MaxExtends)
	}
	return loadProject(from, dir, chain)
}

// realDir is dir as the file system resolves it, absolute and through its
// symlinks, so that two ways of naming one folder compare equal.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// inherit takes from base every setting p's project.toml leaves out (set
// holds the keys it sets), but the name and the title; the input actions
// come as a whole.
func (p *Project) inherit(base *Project, set map[string]bool) {
	if !set["players"] {
		p.Players = base.Players
	}
	if !set["port"] {
		p.Port = base.Port
	}
	if !set["spectators"] {
		p.Spectators = base.Spectators
	}
	if !set["tickRate"] {
		p.TickRate = base.TickRate
	}
	if !set["reach"] {
		p.Reach = base.Reach
	}
	if !set["viewWidth"] {
		p.ViewWidth = base.ViewWidth
	}
	if !set["scoreboard"] {
		p.Scoreboard = base.Scoreboard
	}
	if !set["icon"] {
		p.Icon = base.Icon
	}
	if !set["camera"] {
		p.Camera = base.Camera
	}
	if !set["renderer"] {
		p.Renderer = base.Renderer
	}
	if !set["sound"] {
		p.Sounds = base.Sounds
	}
	if !set["hud"] {
		p.HUD = base.HUD
	}
	if !set["rejoinWindow"] {
		p.RejoinWindow = base.RejoinWindow
	}
	if !set["motd"] {
		p.MOTD = base.MOTD
	}
	if !set["entryScene"] {
		p.EntryScene = base.EntryScene
	}
	if !set["entryScript"] {
		p.EntryScript = base.EntryScript
	}
	if !set["axis"] && !set["button"] {
		p.Axes, p.Buttons = base.Axes, base.Buttons
	}
	if !set["collision"] {
		p.Categories = base.Categories
	}
}

// Where returns the path of the file FS reads name (a slash-separated path
// inside the project) from, for messages: in the first of Folders that
// holds it, or in Dir when none does.
func (p *Project) Where(name string) string {
	rel := filepath.FromSlash(name)
	if len(p.Folders) > 1 {
		for _, d := range p.Folders {
			if _, err := os.Stat(filepath.Join(d, rel)); err == nil {
				return filepath.Join(d, rel)
			}
		}
	}
	return filepath.Join(p.Dir, rel)
}

// ParseProject parses the contents of a project.toml. It reads nothing else:
// Dir, Folders and FS are left empty, and so is Name when the file has none.
// file is used only in messages. A file that sets extends may leave out
// every setting, players and the entry paths included: ParseProject leaves
// those it leaves out at their defaults (0 or empty where there is none),
// and LoadProject takes them from the project extended.
func ParseProject(file string, data []byte) (*Project, error) {
	p, _, err := parseProject(file, data)
	return p, err
}

// parseProject is ParseProject, also returning which of the top-level keys
// the file sets.
func parseProject(file string, data []byte) (*Project, map[string]bool, error) {
	doc, root, cerr := decodeTOML(file, projectKind, data)
	if cerr != nil {
		return nil, nil, cerr
	}
	p := &Project{File: file, Port: DefaultPort, TickRate: DefaultTickRate, RejoinWindow: DefaultRejoinWindow}
	root.only()
	set := map[string]bool{}
	for _, k := range tableKeys[projectKind][""] {
		set[k] = root.has(k)
	}
	if name, ok := root.str("name"); ok && strings.TrimSpace(name) == "" {
		root.fail("name", "is empty; leave it out to use the folder's name")
	} else {
		p.Name = name
	}
	p.Extends = readExtends(root)
	if title, ok := root.str("title"); ok {
		if strings.TrimSpace(title) == "" {
			root.fail("title", "is empty; leave it out to use the game's name")
		}
		p.Title = title
	}
	if root.has("renderer") {
		p.Renderer = readEntryPath(root, "renderer", ".js", "a JavaScript file in the project folder that draws the game, e.g. \"web/draw.js\"")
	}
	if root.has("icon") {
		p.Icon = readEntryPath(root, "icon", ".png", "a PNG image in the project folder, the page's icon, e.g. \"icon.png\"")
	}
	required := p.Extends == ""
	if required || root.has("players") {
		p.Players = readPlayers(root)
	}
	p.Spectators = readSpectators(root)
	if port, ok := root.integer("port"); ok {
		if port < 1 || port > 65535 {
			root.fail("port", "%d is not a UDP port (1..65535); leave port out for %d", port, DefaultPort)
		}
		p.Port = int(port)
	}
	if rate, ok := root.integer("tickRate"); ok {
		switch {
		case rate > MaxTickRate:
			root.fail("tickRate", "%d is above the limit of %d (commands, pacing and the server's queue are counted in ticks; faster rates would need deeper queues and wider packets)", rate, MaxTickRate)
		case rate < 1:
			root.fail("tickRate", "%d is not a rate: the simulation needs at least 1 tick a second (%d is the default)", rate, DefaultTickRate)
		}
		p.TickRate = int(rate)
	}
	if reach, ok := root.number("reach"); ok {
		if !(reach > 0 && reach <= MaxReach) {
			root.fail("reach", "%v is not a distance from 0 to %d metres: the distance from a player within which its snapshots look every round; leave reach out to look at the whole world every round", reach, MaxReach)
		}
		p.Reach = reach
	}
	p.ViewWidth = DefaultViewWidth
	if w, ok := root.number("viewWidth"); ok {
		if !(w >= 1 && w <= MaxViewWidth) {
			root.fail("viewWidth", "%v is not a width from 1 to %d metres: how much of the world the reference client shows across", w, MaxViewWidth)
		}
		p.ViewWidth = w
	}
	if names, ok := root.strList("scoreboard"); ok {
		for _, n := range names {
			typ, field, dotted := strings.Cut(n, ".")
			if !isIdentifier(typ) || (dotted && !isIdentifier(field)) {
				root.fail("scoreboard", "%q is not a component type's name, or a type's and a field's joined by a dot: letters, digits and _, not starting with a digit (e.g. \"Score\" or \"Round.left\")", n)
			}
		}
		p.Scoreboard = names
	}
	if secs, ok := root.number("rejoinWindow"); ok {
		if !(secs >= 0 && secs <= MaxRejoinWindow.Seconds()) {
			root.fail("rejoinWindow", "%v is not a time from 0 to %v seconds: how long a dropped player's seat is kept for them to rejoin; 0 keeps none", secs, MaxRejoinWindow.Seconds())
		}
		p.RejoinWindow = time.Duration(secs * float64(time.Second))
	}
	if motd, ok := root.str("motd"); ok {
		if len(motd) > MaxMOTD {
			root.fail("motd", "is %d bytes, at most %d: the message of the day is one chat line", len(motd), MaxMOTD)
		}
		p.MOTD = motd
	}
	if required || root.has("entryScene") {
		p.EntryScene = readEntryPath(root, "entryScene", ".toml", "the scene a match starts with, e.g. \"scenes/arena.toml\"")
	}
	if required || root.has("entryScript") {
		p.EntryScript = readEntryPath(root, "entryScript", ".lua", "the script that registers the behaviors, e.g. \"scripts/main.lua\"")
	}
	readActions(root, p)
	readCollision(root, p)
	readHUD(root, p)
	readCamera(root, p)
	readSounds(root, p)
	readVoice(root, p)
	if doc.err != nil {
		return nil, nil, doc.err
	}
	return p, set, nil
}

// readExtends reads extends: a folder, relative to the project's own and
// written with forward slashes so that a project folder moves from one
// machine to another with what it extends.
func readExtends(root *tomlTable) string {
	dir, ok := root.str("extends")
	if !ok {
		return ""
	}
	const what = "extends names the folder of the project this one builds on, relative to this project's folder, e.g. \"../arena\""
	switch {
	case strings.TrimSpace(dir) == "":
		root.fail("extends", "is empty; %s, or leave it out", what)
	case strings.Contains(dir, `\`):
		root.fail("extends", "%q contains a backslash; write it with forward slashes (%s)", dir, what)
	case strings.HasPrefix(dir, "/") || filepath.IsAbs(dir) || filepath.VolumeName(dir) != "":
		root.fail("extends", "%q is absolute; %s, so the two folders can move together", dir, what)
	case strings.ContainsRune(dir, 0):
		root.fail("extends", "%q contains a NUL byte", dir)
	case path.Clean(dir) == ".":
		root.fail("extends", "%q is this project's own folder; a project cannot build on itself", dir)
	default:
		return dir
	}
	return ""
}

func readPlayers(root *tomlTable) int {
	if !root.has("players") {
		root.fail("players", "players is required: how many players the game is for belongs to the game, so there is no default (e.g. players = 4)")
		return 0
	}
	n, ok := root.integer("players")
	switch {
	case !ok:
	case n < 1:
		root.fail("players", "%d is below 1: a game is for at least one player", n)
	case n > MaxPlayers:
		root.fail("players", "%d is above the limit of %d (every player costs the server a command queue, a snapshot stream and lag-compensation history each tick)", n, MaxPlayers)
	}
	return int(n)
}

// readEntryPath reads a required path inside the project folder and returns
// it cleaned.
func readEntryPath(root *tomlTable, key, ext, what string) string {
	if !root.has(key) {
		root.fail(key, "%s is required: %s", key, what)
		return ""
	}
	p, ok := root.str(key)
	if !ok {
		return ""
	}
	if reason := checkProjectPath(p); reason != "" {
		root.fail(key, "%q %s", p, reason)
		return ""
	}
	p = path.Clean(p)
	if !strings.HasSuffix(p, ext) {
		root.fail(key, "%q does not end in %s: %s", p, ext, what)
	}
	return p
}

// checkProjectPath says what is wrong with p as a path inside the project
// folder, or returns "".
func checkProjectPath(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.Contains(p, `\`):
		return "contains a backslash; write paths inside the project with forward slashes"
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "is absolute; write it relative to the project folder"
	case strings.Contains(p, "\x00"):
		return "contains a NUL byte"
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "leaves the project folder (..); everything a project uses lives inside it"
		}
	}
	if c := path.Clean(p); c == "." || !fs.ValidPath(c) {
		return "does not name a file inside the project folder"
	}
	return ""
}

// readActions reads the [[axis]] and [[button]] tables into p.
func readActions(root *tomlTable, p *Project) {
	names := map[string]string{} // action name → where it was first defined, for messages
	axes, _ := root.tables("axis", "[[axis]]")
	for i, t := range axes {
		if i == prediction.MaxAxes {
			t.fail("", "%d axes: a command carries at most %d", len(axes), prediction.MaxAxes)
			break
		}
		t.only()
		a := Axis{Name: readActionName(t, names, "axis")}
		a.Negative = readKeyCodes(t, "negative")
		a.Positive = readKeyCodes(t, "positive")
		a.Mouse = readMouse(t, "x", "y", "point_x", "point_y")
		a.Reach = readPointReach(t, a.Mouse)
		p.Axes = append(p.Axes, a)
	}
	buttons, _ := root.tables("button", "[[button]]")
	for i, t := range buttons {
		if i == prediction.MaxButtons {
			t.fail("", "%d buttons: a command carries at most %d", len(buttons), prediction.MaxButtons)
			break
		}
		t.only()
		b := Button{Name: readActionName(t, names, "button")}
		b.Keys = readKeyCodes(t, "keys")
		b.Mouse = readMouse(t, "left", "right")
		p.Buttons = append(p.Buttons, b)
	}
}

func readActionName(t *tomlTable, seen map[string]string, kind string) string {
	if !t.has("name") {
		t.fail("name", "every %s needs a name; behaviors read the command by it", kind)
		return ""
	}
	name, ok := t.str("name")
	switch {
	case !ok:
	case !isIdentifier(name):
		t.fail("name", "%q is not a name behaviors can use: letters, digits and _, not starting with a digit (e.g. \"aim_x\")", name)
	case seen[name] != "":
		t.fail("name", "%q is already the name of %s; action names must be unique", name, seen[name])
	default:
		where := kind
		if l := t.lineOf("name"); l > 0 {
			where = fmt.Sprintf("the %s at line %d", kind, l)
		}
		seen[name] = where
	}
	return name
}

func readMouse(t *tomlTable, allowed ...string) string {
	m, ok := t.str("mouse")
	if !ok || m == "" {
		return ""
	}
	for _, a := range allowed {
		if m == a {
			return m
		}
	}
	t.fail("mouse", "%q is not a mouse input here: use %s, or leave mouse out", m, quotedList(allowed))
	return ""
}

// quotedList is "a" or "b", or "a", "b" or "c".
func quotedList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// readPointReach reads an axis's reach: required with a pointer's
// position (mouse "point_x" or "point_y"), refused otherwise.
func readPointReach(t *tomlTable, mouse string) float64 {
	point := mouse == "point_x" || mouse == "point_y"
	if !t.has("reach") {
		if point {
			t.fail("mouse", "mouse = %q needs reach: the metres from the player the axis's -1..1 spans (reach = 8)", mouse)
		}
		return 0
	}
	r, ok := t.number("reach")
	switch {
	case !ok:
	case !point:
		t.fail("reach", "reach is for an axis with mouse = \"point_x\" or \"point_y\": the metres from the player its -1..1 spans")
	case !(r > 0 && r <= MaxPointReach):
		t.fail("reach", "%v is not a distance above 0 and at most %d metres", r, MaxPointReach)
	default:
		return r
	}
	return 0
}

func readKeyCodes(t *tomlTable, key string) []string {
	codes, ok := t.strList(key)
	if !ok {
		return nil
	}
	for _, c := range codes {
		if !keyCodes[c] {
			t.fail(key, "%q is not a KeyboardEvent.code name%s", c, suggestKeyCode(c))
			return nil
		}
	}
	return codes
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// suggestKeyCode returns ` (did you mean "KeyA"?)` or a hint on the naming,
// for a string that is not a key code.
func suggestKeyCode(c string) string {
	for k := range keyCodes {
		if strings.EqualFold(k, c) {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	var guess string
	switch u := strings.ToUpper(c); {
	case len(c) == 1 && 'A' <= u[0] && u[0] <= 'Z':
		guess = "Key" + u
	case len(c) == 1 && '0' <= c[0] && c[0] <= '9':
		guess = "Digit" + c
	case keyCodes["Arrow"+titleCase(c)]:
		guess = "Arrow" + titleCase(c)
	case keyCodes[titleCase(c)+"Left"]:
		guess = titleCase(c) + "Left"
	}
	if guess != "" {
		return fmt.Sprintf(" (did you mean %q?)", guess)
	}
	return ` (codes name physical keys: "KeyA".."KeyZ", "Digit0".."Digit9", "Space", "ArrowLeft", "ShiftLeft", ...)`
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}

// keyCodes holds the KeyboardEvent.code values of the UI Events KeyboardEvent
// code specification (w3.org/TR/uievents-code), which name physical keys
// independently of the keyboard layout.
var keyCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`
		Backquote Backslash BracketLeft BracketRight Comma Equal IntlBackslash
		IntlRo IntlYen Minus Period Quote Semicolon Slash
		AltLeft AltRight Backspace CapsLock ContextMenu ControlLeft ControlRight
		Enter MetaLeft MetaRight ShiftLeft ShiftRight Space Tab Convert KanaMode
		Lang1 Lang2 Lang3 Lang4 Lang5 NonConvert
		Delete End Help Home Insert PageDown PageUp
		ArrowDown ArrowLeft ArrowRight ArrowUp
		NumLock NumpadAdd NumpadBackspace NumpadClear NumpadClearEntry
		NumpadComma NumpadDecimal NumpadDivide NumpadEnter NumpadEqual
		NumpadHash NumpadMemoryAdd NumpadMemoryClear NumpadMemoryRecall
		NumpadMemoryStore NumpadMemorySubtract NumpadMultiply NumpadParenLeft
		NumpadParenRight NumpadStar NumpadSubtract
		Escape Fn FnLock PrintScreen ScrollLock Pause
		BrowserBack BrowserFavorites BrowserForward BrowserHome BrowserRefresh
		BrowserSearch BrowserStop Eject LaunchApp1 LaunchApp2 LaunchMail
		MediaPlayPause MediaSelect MediaStop MediaTrackNext MediaTrackPrevious
		Power Sleep AudioVolumeDown AudioVolumeMute AudioVolumeUp WakeUp
		Hyper Super Turbo Abort Resume Suspend Again Copy Cut Find Open Paste
		Props Select Undo Hiragana Katakana`) {
		m[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		m["Key"+string(c)] = true
	}
	for d := 0; d <= 9; d++ {
		m[fmt.Sprintf("Digit%d", d)] = true
		m[fmt.Sprintf("Numpad%d", d)] = true
	}
	for f := 1; f <= 24; f++ {
		m[fmt.Sprintf("F%d", f)] = true
	}
	return m
}()
