package scripting

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// gopher-lua's scanner forgets the line once it reads past the last byte:
// every error it or the parser raises at the end of the file has no line
// (Pos.Line is parse.EOF) and names only the last token. A half-typed save
// ends that way, so parseFailure finds the lines again by scanning the
// source with the same scanner.

// parseFailure returns the line and the message (without its location) for
// gopher-lua's parse error pe in src.
//
// An error at the end of the file is placed on the file's last line that
// is not blank, and says so: "syntax error at end of file: 'end' expected
// (to close 'function' at line 7)" when appending that one closing word
// would let the parser go on, "syntax error at end of file after '+'"
// otherwise, and "unterminated multiline string at end of file (starting
// at line 2)" for a string or comment left open. An unterminated string in
// the middle of the file is placed on its own line rather than the next,
// and a token quoted in a message is cut to its first line.
func parseFailure(src []byte, pe *parse.Error) (line int, msg string) {
	s := scanLua(src)
	scannerFailed := s.err != nil && s.err.Message == pe.Message &&
		s.err.Pos.Line == pe.Pos.Line && s.err.Pos.Column == pe.Pos.Column
	start := s.bad.Pos.Line // where the token the scanner failed on starts
	switch {
	case pe.Pos.Line != parse.EOF && scannerFailed && start > 0:
		return start, pe.Message + near(pe.Token)
	case pe.Pos.Line != parse.EOF:
		return pe.Pos.Line, pe.Message + near(pe.Token)
	case scannerFailed:
		msg = pe.Message
		if msg == "invalid multiline comment" {
			msg = "unterminated multiline comment"
		}
		msg += " at end of file"
		if start > 0 {
			msg += " (starting at line " + strconv.Itoa(start) + ")"
		}
		return lastLine(src), msg
	}
	msg = pe.Message + " at end of file"
	if o, ok := s.innermost(); ok && closedBy(src, o.probe) {
		return lastLine(src), msg + ": '" + o.closer + "' expected (to close '" + o.word + "' at line " + strconv.Itoa(o.line) + ")"
	}
	if s.last.Type != 0 {
		msg += " after '" + shortToken(s.last.Str) + "'"
	}
	return lastLine(src), msg
}

// near is the " near 'token'" of a message, or nothing for no token.
func near(tok string) string {
	if tok == "" {
		return ""
	}
	return " near '" + shortToken(tok) + "'"
}

// shortToken cuts a token for a message: its first line, at most 40 bytes.
// (A long string's whole text is one token.)
func shortToken(tok string) string {
	const limit = 40
	cut := false
	if i := strings.IndexAny(tok, "\r\n"); i >= 0 {
		tok, cut = tok[:i], true
	}
	if len(tok) > limit {
		tok, cut = tok[:limit], true
	}
	if cut {
		tok += "..."
	}
	return tok
}

// lastLine is the line of the last character of src that is not white
// space, counting line breaks as gopher-lua's scanner does ("\r\n" and
// "\n\r" are one break).
func lastLine(src []byte) int {
	src = bytes.TrimRight(src, " \t\r\n")
	line := 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\n' && c != '\r' {
			continue
		}
		line++
		if i+1 < len(src) && (c == '\n' && src[i+1] == '\r' || c == '\r' && src[i+1] == '\n') {
			i++
		}
	}
	return line
}

// opener is a construct open at the end of a scan: a block keyword or a
// bracket, waiting for its closer.
type opener struct {
	word   string // "function", "if", "while", "for", "do", "repeat", "{", "(", "["
	line   int
	closer string // "end", "until", "}", ")", "]"
	probe  string // Lua text that closes it, appended to test that it would
	waitDo bool   // a while or for whose "do" has not come yet
}

// luaScan is what scanning a source with gopher-lua's scanner found.
type luaScan struct {
	open   []opener
	broken bool         // a closer that closed nothing open: the open list means nothing
	last   ast.Token    // the last token; Type 0 if there was none
	bad    ast.Token    // the token the scanner failed on, when err is set
	err    *parse.Error // the scanner's own error, if it raised one
}

// scanLua scans src to its end or to the scanner's first error, keeping
// the constructs left open. It only tokenizes: on source whose tokens are
// a prefix the parser accepted (the parser got to the end of the file),
// every closer closes the innermost open construct.
func scanLua(src []byte) luaScan {
	var s luaScan
	sc := parse.NewScanner(bytes.NewReader(src), "")
	lx := &parse.Lexer{} // Scan reads and sets only its PrevTokenType and PNewLine
	for {
		tok, err := sc.Scan(lx)
		if err != nil {
			s.bad = tok
			if !errors.As(err, &s.err) {
				s.err = &parse.Error{Message: err.Error()}
			}
			return s
		}
		if tok.Type == parse.EOF {
			return s
		}
		lx.PrevTokenType = tok.Type
		s.last = tok
		s.step(tok)
	}
}

// step updates the open constructs for one token.
func (s *luaScan) step(tok ast.Token) {
	push := func(closer, probe string) {
		s.open = append(s.open, opener{word: tok.Str, line: tok.Pos.Line, closer: closer, probe: probe})
	}
	pop := func(closer string) {
		n := len(s.open)
		if n == 0 || s.open[n-1].closer != closer || s.open[n-1].waitDo {
			s.broken = true
			return
		}
		s.open = s.open[:n-1]
	}
	switch tok.Type {
	case parse.TFunction, parse.TIf:
		push("end", "end")
	case parse.TWhile, parse.TFor:
		push("end", "end")
		s.open[len(s.open)-1].waitDo = true
	case parse.TDo:
		if n := len(s.open); n > 0 && s.open[n-1].waitDo {
			s.open[n-1].waitDo = false
		} else {
			push("end", "end")
		}
	case parse.TRepeat:
		push("until", "until true")
	case '(':
		push(")", ")")
	case '{':
		push("}", "}")
	case '[':
		push("]", "]")
	case parse.TEnd:
		pop("end")
	case parse.TUntil:
		pop("until")
	case ')', '}', ']':
		pop(tok.Str)
	}
}

// innermost is the construct opened last and still open, if the scan could
// tell.
func (s *luaScan) innermost() (opener, bool) {
	if s.broken || len(s.open) == 0 {
		return opener{}, false
	}
	return s.open[len(s.open)-1], true
}

// closedBy reports whether the parser, given src followed by probe on a
// line of its own, takes probe and gets to the end of the file: then probe
// is what src was missing at its end (perhaps among other things).
func closedBy(src []byte, probe string) bool {
	_, err := parse.Parse(io.MultiReader(bytes.NewReader(src), strings.NewReader("\n"+probe)), "")
	if err == nil {
		return true
	}
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Pos.Line == parse.EOF
}
