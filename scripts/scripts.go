// Package scripts holds the engine's own Lua, embedded in the binary so every
// end runs the same bytes: the prelude the scripting runtime runs first in
// every Lua state, and the stock behaviors projects take by name with
// vkm.stock (DESIGN.md, "Packages").
package scripts

import "embed"

// FS holds the engine's Lua files: the prelude by base name ("prelude.lua")
// and each stock behavior under StockDir ("stock/walker.lua"). It is
// read-only and safe for concurrent use.
//
//go:embed *.lua stock/*.lua
var FS embed.FS

// Prelude is the name of the file in FS that the runtime runs first in every
// state, before the project's entry script.
const Prelude = "prelude.lua"

// StockDir is the folder of FS that holds the stock behaviors, one file
// each, named after the behavior: vkm.stock("walker") runs
// stock/walker.lua.
const StockDir = "stock"
