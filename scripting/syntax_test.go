package scripting

import (
	"errors"
	"strconv"
	"testing"
)

// syntaxCases are scripts that do not parse, each with the line and the
// message (without its location) its error must carry.
var syntaxCases = []struct {
	name, src string
	line      int
	msg       string
}{
	{"unfinished function", "local Walker = {}\n\nfunction Walker:on_start()\n\tself.speed = 2\nend\n\nfunction Walker:on_fixed_update(dt)\n\tself.x = self.x + self.speed * dt\n\n",
		8, "syntax error at end of file: 'end' expected (to close 'function' at line 7)"},
	{"unfinished parameter list", "local Walker = {}\nfunction Walker:on_start(",
		2, "syntax error at end of file: ')' expected (to close '(' at line 2)"},
	{"unfinished loop in a function", "local function clear(t)\n\tfor i = 1, #t do\n\t\tt[i] = 0\n\t-- next: the rest\n",
		4, "syntax error at end of file: 'end' expected (to close 'for' at line 2)"},
	{"unfinished repeat", "local n = 0\nrepeat\n\tn = n + 1\n",
		3, "syntax error at end of file: 'until' expected (to close 'repeat' at line 2)"},
	{"unfinished table constructor", "local Walker = {\n\tspeed = 2,\n\tjump = 5,\n",
		3, "syntax error at end of file: '}' expected (to close '{' at line 1)"},
	{"unfinished expression", "local Walker = {}\nWalker.speed = 2 *\n",
		2, "syntax error at end of file after '*'"},
	{"unfinished function with crlf", "local Walker = {}\r\nfunction Walker:on_start()\r\n\tself.speed = 2\r\n",
		3, "syntax error at end of file: 'end' expected (to close 'function' at line 2)"},
	{"unterminated long string", "local Walker = {}\nWalker.help = [[\nwalks\nto the door\n",
		4, "unterminated multiline string at end of file (starting at line 2)"},
	{"unterminated long comment", "local Walker = {}\n--[[ todo:\n\tjump\n",
		3, "unterminated multiline comment at end of file (starting at line 2)"},
	{"unterminated string at the end", "local Walker = {}\nWalker.name = \"walk",
		2, "unterminated string at end of file (starting at line 2)"},
	{"mid-file syntax error", "local Walker = {}\nlocal speed = = 2\nreturn Walker\n",
		2, "syntax error near '='"},
	{"mid-file unterminated string", "local Walker = {}\nWalker.name = \"walk\nreturn Walker\n",
		2, "unterminated string near 'walk'"},
	{"mid-file error at a long string", "local Walker = {}\nWalker.help = 1 [[walks\nto the door]]\nreturn Walker\n",
		3, "syntax error near 'walks...'"}, // where the parser stood: the string's last line
}

// TestSyntaxErrorNamesItsLine loads, imports, reloads and checks each
// script of syntaxCases: every way names the same file:line and message,
// an error at the end of the file included.
func TestSyntaxErrorNamesItsLine(t *testing.T) {
	for _, tc := range syntaxCases {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how, file string, err error) {
				t.Helper()
				where := file + ":" + strconv.Itoa(tc.line)
				var se *ScriptError
				if !errors.As(err, &se) {
					t.Fatalf("%s: err = %v, want a *ScriptError", how, err)
				}
				if se.Where != where || se.Message != tc.msg {
					t.Errorf("%s: Where %q, Message %q\n\twant %q, %q", how, se.Where, se.Message, where, tc.msg)
				}
				if want := "scripting: " + where + ": " + tc.msg; err.Error() != want {
					t.Errorf("%s: Error() = %q, want %q", how, err.Error(), want)
				}
			}
			_, _, err := tryNew(t, Config{}, tc.src)
			check("entry script at load", "scripts/main.lua", err)
			_, _, err = tryNew(t, Config{}, `import("scripts/util.lua")`, "scripts/util.lua", tc.src)
			check("imported script at load", "scripts/util.lua", err)

			r, _ := newTest(t, reloadV1, "scripts/runner.lua", runnerV1)
			_, err = r.Reload(reloadFS(tc.src, runnerV1))
			check("entry script at reload", "scripts/main.lua", err)
			_, err = r.Reload(reloadFS(reloadV1, tc.src))
			check("imported script at reload", "scripts/runner.lua", err)
			check("CheckSyntax", "scripts/walker.lua", r.CheckSyntax("scripts/walker.lua", []byte(tc.src)))
		})
	}
}
