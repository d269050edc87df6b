package scripting

import (
	"context"
	"reflect"
	"sync"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Checkpoints: where the VM looks at a state's context.
//
// With a context set (SetContext), gopher-lua's VM asks it for Done()
// before every instruction: a method call and a channel receive, about a
// tenth of a behavior call's instructions. A call can only run away by
// going back: a jump backwards (while, repeat, goto), a numeric or generic
// for loop's next round, or a call (recursion, a tail call that never
// ends, a call tree that grows without bound). Between two of those a
// frame runs forward through its own code, at most once through each
// instruction, and returns only from frames a call made. A function that
// Go calls (a string.gsub or table.sort callback) need not loop or call to
// be called without end, so a return is looked at too: every function
// run meets at least one look. So the VM's
// per-instruction look is moved to those instructions: their handlers in
// gopher-lua's table are wrapped here with the same look and the same
// error, and a state this package runs keeps its context but the VM's
// loop without the look (plainLoop). A runaway is stopped as before, at
// its next backward jump or call, with the error the VM raised, from the
// same instruction's line.
//
// The handler table and the loop field are gopher-lua's own, not exported:
// the table is reached by its link name and the field by its offset, both
// checked for gopher-lua v1.1.2's layout. If the field is not found,
// plainLoop leaves the VM's looking loop in place, which is correct, only
// slower.

// luaInst is gopher-lua's instFunc; its last argument, a *callFrame, is
// only passed through.
type luaInst func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int

//go:linkname luaJumpTable github.com/yuin/gopher-lua.jumpTable
var luaJumpTable [lua.OP_NOP + 1]luaInst

// luaMaxArgSbx is gopher-lua's opMaxArgSbx: the bias of an sBx operand.
const luaMaxArgSbx = (1<<18 - 1) >> 1

func init() {
	for _, op := range []int{lua.OP_CALL, lua.OP_TAILCALL, lua.OP_RETURN, lua.OP_FORLOOP, lua.OP_TFORLOOP} {
		run := luaJumpTable[op]
		luaJumpTable[op] = func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
			checkpoint(L)
			return run(L, inst, baseframe)
		}
	}
	jump := luaJumpTable[lua.OP_JMP]
	luaJumpTable[lua.OP_JMP] = func(L *lua.LState, inst uint32, baseframe unsafe.Pointer) int {
		if int(inst&0x3ffff) < luaMaxArgSbx { // backwards
			checkpoint(L)
		}
		return jump(L, inst, baseframe)
	}
}

// checkpoint is the look the VM makes before an instruction when L has a
// context: a call stopped by it raises its error in the script.
func checkpoint(L *lua.LState) {
	ctx := L.Context()
	if ctx == nil {
		return
	}
	if w, ok := ctx.(*watchdog); ok {
		// The runtime's own: Done's look without the channel.
		if w.look() {
			L.RaiseError("%s", w.Err().Error())
		}
		return
	}
	select {
	case <-ctx.Done():
		L.RaiseError("%s", ctx.Err().Error())
	default:
	}
}

// loopField is the offset of LState's mainLoop field and the VM's loop
// without the context's look, as a fresh state holds it; ok is false when
// the field is not where gopher-lua v1.1.2 has it.
var loopField = sync.OnceValues(func() (uintptr, unsafe.Pointer) {
	st := reflect.TypeFor[lua.LState]()
	f, ok := st.FieldByName("mainLoop")
	ctx, okCtx := st.FieldByName("ctx")
	if !ok || !okCtx || f.Type.Kind() != reflect.Func || f.Type.NumIn() != 2 || f.Type.NumOut() != 0 ||
		f.Type.In(0) != reflect.TypeFor[*lua.LState]() || ctx.Type != reflect.TypeFor[context.Context]() {
		return 0, nil
	}
	fresh := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer fresh.Close()
	return f.Offset, *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(fresh), f.Offset))
})

// plainLoop gives L, whose context is set, the VM's loop without the
// per-instruction look: the checkpoints look instead. It reports whether
// it could.
func plainLoop(L *lua.LState) bool {
	off, loop := loopField()
	if loop == nil || L.Context() == nil {
		return false
	}
	*(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), off)) = loop
	return true
}
