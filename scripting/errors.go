package scripting

import (
	"errors"
	"fmt"
	"regexp"
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

// whereRE finds a Lua source position, "path:line:", as gopher-lua writes it
// in messages and tracebacks. "[G]" (a Go function) has no line and never
// matches.
var whereRE = regexp.MustCompile(`([^\s:'"\[\]]+):(\d+):`)

// splitWhere takes a leading "path:line: " off msg.
func splitWhere(msg string) (where, rest string) {
	m := whereRE.FindStringSubmatchIndex(msg)
	if m == nil || m[0] != 0 {
		return "", msg
	}
	return msg[m[2]:m[5]], strings.TrimLeft(msg[m[1]:], " ")
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
		if m := whereRE.FindStringSubmatch(api.StackTrace); m != nil {
			e.Where = m[1] + ":" + m[2]
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
