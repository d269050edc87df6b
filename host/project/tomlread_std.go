//go:build !js

package project

import (
	"errors"

	"github.com/BurntSushi/toml"
)

// decodeTOMLMap decodes a TOML file with BurntSushi/toml, whose errors
// name the line and say what is wrong; a browser build decodes with
// parseTOML instead (tomlread_js.go).
func decodeTOMLMap(file string, data []byte) (map[string]any, *ConfigError) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: file, Line: pe.Position.Line, Reason: "TOML syntax error: " + pe.Message, Err: err}
		}
		return nil, &ConfigError{File: file, Reason: err.Error(), Err: err}
	}
	return m, nil
}
