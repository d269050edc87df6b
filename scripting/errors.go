package scripting

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"vkm/internal/entity"
)

// ScriptError is one failure of Lua code: a behavior callback that raised an
// error or ran past its budget, or an error in loading a script,
// vkmRegisterBehaviors, vkmSetupNetwork, vkmBuildScene or the join handler.
// A callback's ScriptError is reported once (Config.OnError and the logger)
// and the behavior is disabled for that entity; the others are returned.
type ScriptError struct {
	Entity     entity.ID // the entity whose behavior failed; None outside callbacks
	EntityName string
	Behavior   string // the behavior's registered name; empty outside callbacks
	Callback   string // "on_fixed_update", "vkmSetupNetwork", ...; empty for a load
	Where      string // "file:line" in the project's scripts, when known
	Message    string // the error without its location
	Traceback  string // Lua's stack traceback, when there is one
	Runaway    bool   // the call was stopped for running past its budget
}

// Error returns a one-line description naming the script line, the entity
// and the callback, e.g. `scripting: walker.on_fixed_update on "hero" (slot
// 3): scripts/walker.lua:12: attempt to perform arithmetic on a nil value`.
func (e *ScriptError) Error() string {
	var b strings.Builder
	b.WriteString("scripting: ")
	switch {
	case e.Behavior != "":
		fmt.Fprintf(&b, "%s.%s on %q (slot %d): ", e.Behavior, e.Callback, e.EntityName, e.Entity.Slot)
	case e.Callback != "":
		b.WriteString(e.Callback + ": ")
	}
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// findWhere finds the first Lua source position, "path:line:", as
// gopher-lua writes it in messages and tracebacks: a path of no space,
// colon, quote or bracket, a colon, a decimal line and a colon (the
// regular expression ([^\s:'"\[\]]+):(\d+): scanned by hand, which keeps
// package regexp, and the Unicode tables it names, out of the browser
// client). "[G]" (a Go function) has no line and never matches. It returns
// where the position starts, where "path:line" ends and where the match
// (its last colon included) ends; start < 0 when there is none.
func findWhere(s string) (start, whereEnd, end int) {
	inPath := func(c byte) bool {
		switch c {
		case ' ', '\t', '\n', '\f', '\r', ':', '\'', '"', '[', ']':
			return false
		}
		return true
	}
	for i := 0; i < len(s); {
		if !inPath(s[i]) {
			i++
			continue
		}
		// A path can only end at the first byte outside it, so the run
		// from i matches or no start inside it does.
		j := i
		for j < len(s) && inPath(s[j]) {
			j++
		}
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if j < len(s) && s[j] == ':' && k > j+1 && k < len(s) && s[k] == ':' {
			return i, k, k + 1
		}
		i = j
	}
	return -1, 0, 0
}

// splitWhere takes a leading "path:line: " off msg.
func splitWhere(msg string) (where, rest string) {
	start, whereEnd, end := findWhere(msg)
	if start != 0 {
		return "", msg
	}
	return msg[:whereEnd], strings.TrimLeft(msg[end:], " ")
}

// describe fills e's Where, Message and Traceback from what a protected call
// returned. The position comes from the message when it has one, otherwise
// from the first Lua frame of the traceback (error({...}), a Go panic).
func (e *ScriptError) describe(err error) {
	var api *lua.ApiError
	if !errors.As(err, &api) {
		e.Message = err.Error()
		return
	}
	msg := api.Object.String()
	if s, ok := api.Object.(lua.LString); ok {
		msg = string(s)
	}
	e.Where, e.Message = splitWhere(strings.TrimSpace(msg))
	e.Traceback = api.StackTrace
	if e.Where == "" {
		if start, whereEnd, _ := findWhere(api.StackTrace); start >= 0 {
			e.Where = api.StackTrace[start:whereEnd]
		}
	}
	if api.Type == lua.ApiErrorPanic {
		e.Message = "go panic: " + e.Message
	}
}

// syntaxError turns a failed load of src into a ScriptError naming
// file:line, also for an error at the end of the file (parseFailure).
func syntaxError(name string, src []byte, err error) *ScriptError {
	e := &ScriptError{Where: name}
	var api *lua.ApiError
	if errors.As(err, &api) && api.Cause != nil {
		err = api.Cause // ApiError has no Unwrap
	}
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(err, &pe):
		line, msg := parseFailure(src, pe)
		e.Where, e.Message = name+":"+strconv.Itoa(line), msg
	case errors.As(err, &ce):
		e.Where = name + ":" + strconv.Itoa(ce.Line)
		e.Message = ce.Message
	default:
		e.Message = strings.TrimSpace(err.Error())
	}
	return e
}
