package scripting

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// The chat's judge, set in vkmSetupNetwork:
//
//	net.on_chat(function(player, text) return text end)
//
// It runs on the server for every line a player types, when it arrives:
// it returns the line to send to the players (the text, or another to
// rewrite it), false to refuse it, or nothing to keep it as typed.

// keyChat keys math.random inside the chat handler.
const keyChat uint64 = 0x63686174 << 8

// luaOnChat implements net.on_chat(fn).
func (r *Runtime) luaOnChat(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_chat may only be called while vkmSetupNetwork runs")
	}
	fn := L.CheckFunction(1)
	if r.msg.newChat != nil {
		L.RaiseError("net.on_chat called twice")
	}
	r.msg.newChat = fn
	return 0
}

// HasChatHandler reports whether the last SetupNetwork registered a chat
// handler with net.on_chat.
func (r *Runtime) HasChatHandler() bool { return r.msg.chat != nil }

// Chat asks the chat handler about a line player typed: it returns the
// line to send (text itself without a handler) and whether to send it. A
// script error, or a return value that is neither a string, false nor
// nil, comes back as an error, and the line is refused.
func (r *Runtime) Chat(player uint16, text string) (string, bool, error) {
	if r.msg.chat == nil {
		return text, true, nil
	}
	if err := r.callSetup("chat handler", keyChat^uint64(player)<<32, r.msg.chat, 1, lua.LNumber(player), lua.LString(text)); err != nil {
		return "", false, err
	}
	v := r.ls.Get(-1)
	r.ls.Pop(1)
	switch v := v.(type) {
	case lua.LString:
		return string(v), v != "", nil
	case lua.LBool:
		if !v {
			return "", false, nil
		}
		return text, true, nil
	}
	if v == lua.LNil {
		return text, true, nil
	}
	return "", false, fmt.Errorf("scripting: chat handler returned a %s, want a string, false or nil", v.Type())
}
