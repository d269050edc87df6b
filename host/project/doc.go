// Package project reads a project folder: project.toml (the settings and
// the input actions), scenes and prefabs, together with the folders of the
// projects it extends. Every mistake comes back as a ConfigError naming
// the file, the line and the key, with what to do about it.
package project
