package main

import (
	"flag"
	"fmt"
	"io"

	"vkm/host"
	"vkm/internal/cli"
)

// wasmCommand is vkmd wasm's command line.
var wasmCommand = cli.Command{Name: "vkmd wasm", Arg: "<file.wasm>", Exits: `  0  the browser client and wasm_exec.js were written; or -h or --version
     answered
  1  the client could not be built (no go toolchain, not in vkm's source,
     a build error) or written
  2  the command line cannot be run: an unknown flag or argument, no file
`}

// runWasm builds the browser client as vkmd --web would at start, with
// the same flags, and writes it and wasm_exec.js to the file args name
// and beside it: what --wasm serves, for a server with no go toolchain (a
// container image) or one that should start at once.
func runWasm(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("vkmd wasm: no file to write (%s)", wasmCommand.Synopsis())
	}
	fs := flag.NewFlagSet("vkmd wasm", flag.ContinueOnError)
	file, done, err := wasmCommand.Parse(fs, args, stdout)
	if err != nil || done {
		return err
	}
	if err := host.BuildWebClient(file); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "wrote %s and wasm_exec.js beside it: serve them with vkmd --web ADDR --wasm %s\n", file, file)
	return err
}
