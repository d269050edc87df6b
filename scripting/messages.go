package scripting

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"vkm/replication"
)

// Messages are declared in vkmSetupNetwork like components, and handled
// there:
//
//	net.message(name, { {field, codec}, ... })    -- a message type
//	net.on_message(name, function(player, fields) ... end)
//	net.send(name, fields)                        -- a client (or offline) to the server
//	net.send_to(player | {players}, name, fields) -- the server (or offline) to players
//	net.broadcast(name, fields)                   -- the server (or offline) to every player
//	net.tell(player | "all" | {players}, name, fields) -- either of the two above
//
// A handler runs at the top of the next tick this end plays, before any
// behavior, and never during a replay; on the server player is the sender,
// on a client it is nil (the server sent it). A send made during a replay
// is not made (the tick was played once already, and sent then). Offline,
// nothing leaves the process: net.send reaches the handler as player 1 and
// net.send_to or net.broadcast as the server's, so the same code plays
// single-player.

// keyMessage keys math.random inside a message handler.
const keyMessage uint64 = 0x6d657373 << 8

// Outgoing is a message a script sent, for the session to carry.
type Outgoing struct {
	// Message is its number in Schema().Messages.
	Message int
	// All says it goes to every player (net.broadcast); otherwise To
	// lists them (net.send_to). A client's net.send goes to the server
	// and has neither.
	All bool
	To  []uint16
	// Values are its fields in declared order, as their codecs carry them.
	Values []float64
}

// incoming is a message waiting for the next tick's handlers.
type incoming struct {
	from    uint16
	message int
	values  []float64
}

// messaging is a runtime's message handlers and queues.
type messaging struct {
	handlers    map[string]*lua.LFunction
	newHandlers map[string]*lua.LFunction // while vkmSetupNetwork runs
	chat        *lua.LFunction
	newChat     *lua.LFunction // while vkmSetupNetwork runs
	out         []Outgoing
	in          []incoming
	errors      int
	// fromServer hears each message from the server as it is handed to
	// the handlers (OnServerMessage).
	fromServer func(message int, values []float64)
}

// installMessages adds the message functions to net.
func (r *Runtime) installMessages(net *lua.LTable) {
	L := r.ls
	rawSetString(net, "message", newFunction(L, r.luaMessageType))
	rawSetString(net, "on_message", newFunction(L, r.luaOnMessage))
	rawSetString(net, "send", newFunction(L, r.luaSend))
	rawSetString(net, "send_to", newFunction(L, r.luaSendTo))
	rawSetString(net, "broadcast", newFunction(L, r.luaBroadcast))
	rawSetString(net, "tell", newFunction(L, r.luaTell))
	rawSetString(net, "on_chat", newFunction(L, r.luaOnChat))
}

// luaMessageType implements net.message(name, fields).
func (r *Runtime) luaMessageType(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.message may only be called while vkmSetupNetwork runs")
	}
	name := L.CheckString(1)
	var fields []replication.Field
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		list := L.CheckTable(2)
		n := list.Len()
		for k, _ := list.Next(lua.LNil); k != lua.LNil; k, _ = list.Next(k) {
			if i, ok := k.(lua.LNumber); !ok || float64(i) != math.Trunc(float64(i)) || i < 1 || int(i) > n {
				L.RaiseError("net.message(%q): fields must be a list of {name, codec} pairs in wire order, found key %s", name, k.String())
			}
		}
		for i := 1; i <= n; i++ {
			fields = append(fields, r.fieldPair(L, name, i, list.RawGetInt(i)))
		}
	}
	where := strings.TrimSuffix(L.Where(1), ":")
	if err := r.building.AddMessage(replication.Type{Name: name, Fields: fields, Where: where}); err != nil {
		L.RaiseError("net.message(%q): %s", name, strings.TrimPrefix(err.Error(), "replication: "))
	}
	return 0
}

// luaOnMessage implements net.on_message(name, fn).
func (r *Runtime) luaOnMessage(L *lua.LState) int {
	if r.building == nil {
		L.RaiseError("net.on_message may only be called while vkmSetupNetwork runs")
	}
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	if r.building.MessageIndex(name) < 0 {
		L.RaiseError("net.on_message(%q): no such message (declare it with net.message first)", name)
	}
	if r.msg.newHandlers[name] != nil {
		L.RaiseError("net.on_message(%q) called twice", name)
	}
	r.msg.newHandlers[name] = fn
	return 0
}

// beginMessages starts a vkmSetupNetwork run's handlers.
func (r *Runtime) beginMessages() {
	r.msg.newHandlers, r.msg.newChat = map[string]*lua.LFunction{}, nil
}

// endMessages keeps the run's handlers when it succeeded. Messages queued
// under the old schema are dropped: their numbers may mean others now.
func (r *Runtime) endMessages(ok bool) {
	if ok {
		r.msg.handlers, r.msg.chat = r.msg.newHandlers, r.msg.newChat
		r.msg.out, r.msg.in = r.msg.out[:0], r.msg.in[:0]
	}
	r.msg.newHandlers, r.msg.newChat = nil, nil
}

// luaSend implements net.send(name, fields): true if the message goes.
func (r *Runtime) luaSend(L *lua.LState) int {
	role := r.world.Role()
	if role == RoleServer {
		L.RaiseError("net.send is a client's: a server sends with net.send_to or net.broadcast")
	}
	typ, values := r.messageArgs(L, "net.send", 1)
	if r.world.IsReplaying() || r.world.Disconnected() {
		L.Push(lua.LFalse)
		return 1
	}
	if role == RoleOffline {
		r.msg.in = append(r.msg.in, incoming{from: max(r.world.LocalPlayer(), 1), message: typ, values: values})
	} else {
		r.msg.out = append(r.msg.out, Outgoing{Message: typ, Values: values})
	}
	L.Push(lua.LTrue)
	return 1
}

// luaSendTo implements net.send_to(player or players, name, fields).
func (r *Runtime) luaSendTo(L *lua.LState) int {
	var to []uint16
	switch v := L.Get(1).(type) {
	case lua.LNumber:
		to = append(to, checkPlayer(L, v, 1))
	case *lua.LTable:
		for i := 1; i <= v.Len(); i++ {
			n, ok := v.RawGetInt(i).(lua.LNumber)
			if !ok {
				L.ArgError(1, "a list of player numbers expected")
			}
			to = append(to, checkPlayer(L, n, 1))
		}
	default:
		L.ArgError(1, "a player number or a list of them expected")
	}
	return r.tell(L, "net.send_to", 2, false, to)
}

// luaTell implements net.tell(player | "all" | {players}, name, fields):
// net.broadcast for "all", net.send_to otherwise.
func (r *Runtime) luaTell(L *lua.LState) int {
	if s, ok := L.Get(1).(lua.LString); ok {
		if s != "all" {
			L.ArgError(1, fmt.Sprintf("a player number, a list of them or \"all\" expected, got %q", string(s)))
		}
		return r.tell(L, "net.tell", 2, true, nil)
	}
	return r.luaSendTo(L)
}

// luaBroadcast implements net.broadcast(name, fields).
func (r *Runtime) luaBroadcast(L *lua.LState) int {
	return r.tell(L, "net.broadcast", 1, true, nil)
}

// tell queues a message from the server for all players or those in to.
func (r *Runtime) tell(L *lua.LState, what string, arg int, all bool, to []uint16) int {
	role := r.world.Role()
	if role == RoleClient {
		L.RaiseError("%s is the server's: a client sends with net.send", what)
	}
	typ, values := r.messageArgs(L, what, arg)
	if r.world.IsReplaying() {
		L.Push(lua.LFalse)
		return 1
	}
	if role == RoleOffline {
		local := r.world.LocalPlayer()
		for _, p := range to {
			all = all || p == max(local, 1)
		}
		if all {
			r.msg.in = append(r.msg.in, incoming{message: typ, values: values})
		}
	} else {
		r.msg.out = append(r.msg.out, Outgoing{Message: typ, All: all, To: to, Values: values})
	}
	L.Push(lua.LTrue)
	return 1
}

// checkPlayer returns v as a player number.
func checkPlayer(L *lua.LState, v lua.LNumber, arg int) uint16 {
	if f := float64(v); f != math.Trunc(f) || f < 1 || f > 65535 {
		L.ArgError(arg, fmt.Sprintf("player number expected, got %v", f))
	}
	return uint16(v)
}

// messageArgs reads a message's name (argument arg) and its fields table
// (the next, optional) into its number and values. A field the message
// does not declare is an error; one left out is zero.
func (r *Runtime) messageArgs(L *lua.LState, what string, arg int) (int, []float64) {
	name := L.CheckString(arg)
	typ := r.schema.MessageIndex(name)
	if typ < 0 {
		L.RaiseError("%s: no message %q (declare it with net.message in vkmSetupNetwork)", what, name)
	}
	t := &r.schema.Messages[typ]
	values := make([]float64, len(t.Fields))
	if L.GetTop() <= arg || L.Get(arg+1) == lua.LNil {
		return typ, values
	}
	fields := L.CheckTable(arg + 1)
	fields.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		i := -1
		if ok {
			for j, f := range t.Fields {
				if f.Name == string(ks) {
					i = j
				}
			}
		}
		if i < 0 {
			L.RaiseError("%s(%q): the message has no field %s", what, name, k.String())
		}
		values[i] = fieldValue(L, v, t.Fields[i].Codec, fmt.Sprintf("%s(%q).%s", what, name, ks))
	})
	return typ, values
}

// PostMessage hands a message to this end's handlers: one a player sent
// the server (from is their number), or the server sent this client (from
// 0). values are its fields in declared order; the runtime keeps its own
// copy. The handler runs at the top of the next tick this end plays. A
// message the schema does not declare is ignored.
func (r *Runtime) PostMessage(from uint16, message int, values []float64) {
	if message < 0 || message >= len(r.schema.Messages) {
		return
	}
	r.msg.in = append(r.msg.in, incoming{from: from, message: message, values: append([]float64(nil), values...)})
}

// TakeMessages calls fn with every message the scripts sent since it was
// last called, in the order they sent them, and forgets them. fn owns
// each Outgoing.
func (r *Runtime) TakeMessages(fn func(Outgoing)) {
	for _, m := range r.msg.out {
		fn(m)
	}
	clear(r.msg.out)
	r.msg.out = r.msg.out[:0]
}

// MessageErrors returns how many message handlers have failed.
func (r *Runtime) MessageErrors() int { return r.msg.errors }

// deliverMessages runs the handler of every message posted, in the order
// they came. A handler's error is logged and counted; the next runs.
func (r *Runtime) deliverMessages() {
	if len(r.msg.in) == 0 {
		return
	}
	// A handler may send more (offline, they loop back for the next tick).
	queue := r.msg.in
	r.msg.in = nil
	for _, m := range queue {
		t := &r.schema.Messages[m.message]
		if m.from == 0 && r.msg.fromServer != nil {
			r.msg.fromServer(m.message, m.values)
		}
		fn := r.msg.handlers[t.Name]
		if fn == nil {
			continue
		}
		fields := r.ls.CreateTable(0, len(t.Fields))
		for i, f := range t.Fields {
			if f.Codec.Kind == replication.Bool {
				fields.RawSetString(f.Name, lua.LBool(m.values[i] != 0))
			} else {
				fields.RawSetString(f.Name, lua.LNumber(m.values[i]))
			}
		}
		from := lua.LValue(lua.LNil)
		if m.from != 0 {
			from = lua.LNumber(m.from)
		}
		if err := r.callSetup("message handler "+t.Name, keyMessage^uint64(m.from)<<32, fn, 0, from, fields); err != nil {
			r.msg.errors++
			r.log.Warn("message handler failed", "message", t.Name, "player", m.from, "err", err)
		}
	}
	if len(r.msg.in) == 0 {
		r.msg.in = queue[:0]
	}
}

// OnServerMessage calls fn with each message from the server (a client's
// net.tell, net.send_to or net.broadcast; offline, the same looped back)
// when it is handed to this end's handlers: once, at the top of the next
// tick played, never in a replay, whether or not a handler is declared.
// values are its fields in declared order, valid during the call. The
// page's own code hears them this way. nil stops.
func (r *Runtime) OnServerMessage(fn func(message int, values []float64)) { r.msg.fromServer = fn }

// Send sends a message as net.send does, from outside the scripts (the
// page's vkm.send): name is a declared message, fields its fields by name
// (a bool field's value 0 or 1; one left out is zero), quantized by their
// codecs. It reports whether the message goes (not on a disconnected
// client) and refuses an undeclared message or field, a value that is not
// finite, and a server, which sends with net.tell. It goes with the
// scripts' sends after the next tick, under the same bounds.
func (r *Runtime) Send(name string, fields map[string]float64) (bool, error) {
	role := r.world.Role()
	if role == RoleServer {
		return false, fmt.Errorf("scripting: send %q: a server sends with net.tell", name)
	}
	typ := r.schema.MessageIndex(name)
	if typ < 0 {
		return false, fmt.Errorf("scripting: send: no message %q (declare it with net.message in vkmSetupNetwork)", name)
	}
	t := &r.schema.Messages[typ]
	values := make([]float64, len(t.Fields))
	for k, v := range fields {
		i := -1
		for j, f := range t.Fields {
			if f.Name == k {
				i = j
			}
		}
		if i < 0 {
			return false, fmt.Errorf("scripting: send %q: the message has no field %q", name, k)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false, fmt.Errorf("scripting: send %q: field %s: finite number expected", name, k)
		}
		if t.Fields[i].Codec.Kind == replication.Bool {
			if v != 0 {
				v = 1
			}
		} else {
			v = t.Fields[i].Codec.Quantize(v)
		}
		values[i] = v
	}
	if r.world.Disconnected() {
		return false, nil
	}
	if role == RoleOffline {
		r.msg.in = append(r.msg.in, incoming{from: max(r.world.LocalPlayer(), 1), message: typ, values: values})
	} else {
		r.msg.out = append(r.msg.out, Outgoing{Message: typ, Values: values})
	}
	return true, nil
}
