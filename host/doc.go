// Package host composes the engine: it loads a project folder (project.toml,
// scenes and prefabs in TOML, read together with the folders of the projects
// it extends), keeps the entity store (slots, generations,
// hierarchy, components), and runs the fixed tick over physics and Lua
// behaviors in the engine's order. It is the only package with a wall clock;
// offline play, and later the server and client halves of a session, are
// built here from the packages below it.
package host
