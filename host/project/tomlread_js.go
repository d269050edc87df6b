//go:build js

package project

import "errors"

// decodeTOMLMap decodes a TOML file with parseTOML: the browser client
// reads files the server has read first, and links no other TOML decoder
// (tomlparse.go).
func decodeTOMLMap(file string, data []byte) (map[string]any, *ConfigError) {
	m, err := parseTOML(data)
	if err != nil {
		var se *tomlSyntaxError
		if errors.As(err, &se) {
			return nil, &ConfigError{File: file, Line: se.Line, Reason: "TOML syntax error: " + se.Msg, Err: err}
		}
		return nil, &ConfigError{File: file, Reason: err.Error(), Err: err}
	}
	return m, nil
}
