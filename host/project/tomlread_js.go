//go:build js

package project

import "errors"

// decodeTOMLMap decodes a TOML file with parseTOML: the browser client
// reads files the server has read first, and links no other TOML decoder
// (tomlparse.go). The package's tests run with it, and with the browser's
// zip reader, under Node:
//
//	GOOS=js GOARCH=wasm go test -c -o project.wasm ./host/project/
//	(cd host/project && node "$(go env GOROOT)/lib/wasm/wasm_exec_node.js" ../../project.wasm)
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
