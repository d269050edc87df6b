// Package scripts holds the engine's own Lua, embedded in the binary so every
// end runs the same bytes: the prelude the scripting runtime runs first in
// every Lua state (DESIGN.md, "Packages"). A game's rules are not here: they
// are the Lua files of its project (projects/arena/scripts for the example).
package scripts

import "embed"

// FS holds the engine's Lua files by base name ("prelude.lua"). It is
// read-only and safe for concurrent use.
//
//go:embed *.lua
var FS embed.FS

// Prelude is the name of the file in FS that the runtime runs first in every
// state, before the project's entry script.
const Prelude = "prelude.lua"
