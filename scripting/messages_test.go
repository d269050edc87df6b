package scripting

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

const messagesSrc = `
got = {}
Shop = {}
function Shop:on_fixed_update(dt)
	if want_send then
		sent = net.send("buy", {item = want_send, rush = true})
		want_send = nil
	end
end
function vkmRegisterBehaviors(r) r.shop = Shop end
function vkmSetupNetwork(net)
	net.message("buy", { {"item", net.int(0, 15)}, {"rush", net.bool} })
	net.message("bought", { {"item", net.int(0, 15)}, {"price", net.fixed(0, 100, 0.5)} })
	net.message("ready")
	net.on_message("buy", function(player, m)
		got[#got + 1] = string.format("buy %s %d %s", tostring(player), m.item, tostring(m.rush))
		net.send_to(player, "bought", {item = m.item, price = 2.3})
	end)
	net.on_message("bought", function(player, m)
		got[#got + 1] = string.format("bought %s %d %g", tostring(player), m.item, m.price)
	end)
end
`

// mustRun runs Lua source in r's state.
func mustRun(t testing.TB, r *Runtime, src string) {
	t.Helper()
	if err := r.ls.DoString(src); err != nil {
		t.Fatal(err)
	}
}

// mustFail runs Lua source that must raise an error containing want.
func mustFail(t testing.TB, r *Runtime, src, want string) {
	t.Helper()
	err := r.ls.DoString(src)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: %v, want an error with %q", src, err, want)
	}
}

// luaStrings returns the global list name as strings.
func luaStrings(t testing.TB, r *Runtime, name string) []string {
	t.Helper()
	list, ok := r.ls.GetGlobal(name).(*lua.LTable)
	if !ok {
		t.Fatalf("%s is not a table", name)
	}
	var out []string
	for i := 1; i <= list.Len(); i++ {
		out = append(out, list.RawGetInt(i).String())
	}
	return out
}

func TestMessagesLoopBackOffline(t *testing.T) {
	r, w := newTest(t, messagesSrc)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Schema().Messages); n != 3 {
		t.Fatalf("%d messages declared", n)
	}
	w.role, w.local = RoleOffline, 1
	attach(t, r, w.add("shop"), "shop")
	mustRun(t, r, `want_send = 3`)
	var lines []string
	for tick := range 4 {
		w.tick = uint32(tick + 1)
		r.FixedUpdate(1.0/64, false)
		lines = append(lines, strings.Join(luaStrings(t, r, "got"), "; "))
	}
	t.Logf("after each tick: %q", lines)
	// Sent in tick 1, handled at the top of tick 2 as player 1's; the
	// answer, sent in that handler, at the top of tick 3 as the server's.
	want := []string{"", "buy 1 3 true", "buy 1 3 true; bought nil 3 2.5", "buy 1 3 true; bought nil 3 2.5"}
	if !slices.Equal(lines, want) {
		t.Fatalf("got %q, want %q", lines, want)
	}
	r.TakeMessages(func(o Outgoing) { t.Fatalf("offline, %+v left the process", o) })
}

func TestMessagesClientSendsOnceAndNotInReplay(t *testing.T) {
	r, w := newTest(t, messagesSrc)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	w.role, w.local = RoleClient, 2
	attach(t, r, w.add("shop"), "shop")
	mustRun(t, r, `want_send = 5`)
	w.replaying = true
	r.FixedUpdate(1.0/64, true)
	if v := r.ls.GetGlobal("sent").String(); v != "false" {
		t.Fatalf("a send during a replay returned %s", v)
	}
	w.replaying = false
	mustRun(t, r, `want_send = 6`)
	r.FixedUpdate(1.0/64, false)
	var out []Outgoing
	r.TakeMessages(func(o Outgoing) { out = append(out, o) })
	if len(out) != 1 || out[0].Message != 0 || fmt.Sprint(out[0].Values) != "[6 1]" || out[0].All || out[0].To != nil {
		t.Fatalf("sent %+v", out)
	}
	r.TakeMessages(func(o Outgoing) { t.Fatalf("%+v taken twice", o) })
	// The server's answer runs its handler at the next live tick, not in a
	// replay.
	r.PostMessage(0, 1, []float64{6, 4})
	w.replaying = true
	r.FixedUpdate(1.0/64, true)
	if n := len(luaStrings(t, r, "got")); n != 0 {
		t.Fatalf("a handler ran during a replay: %d lines", n)
	}
	w.replaying = false
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false)
	if got := luaStrings(t, r, "got"); !slices.Equal(got, []string{"bought nil 6 4"}) {
		t.Fatalf("handled %q", got)
	}
	mustFail(t, r, `net.send_to(1, "ready")`, "net.send_to is the server's")
	mustFail(t, r, `net.send("buy", {itme = 1})`, "no field")
	mustFail(t, r, `net.send("sell")`, "no message \"sell\"")
	mustFail(t, r, `net.send("buy", {item = "x"})`, "number expected")
}

func TestMessagesServerTells(t *testing.T) {
	r, w := newTest(t, messagesSrc)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	w.role = RoleServer
	r.PostMessage(4, 0, []float64{9, 0})
	r.FixedUpdate(1.0/64, false)
	mustRun(t, r, `net.broadcast("ready"); net.send_to({1, 3}, "ready"); net.tell("all", "ready"); net.tell(2, "ready")`)
	var out []string
	r.TakeMessages(func(o Outgoing) { out = append(out, fmt.Sprintf("%d %v %v %v", o.Message, o.All, o.To, o.Values)) })
	want := []string{"1 false [4] [9 2.5]", "2 true [] []", "2 false [1 3] []", "2 true [] []", "2 false [2] []"}
	if !slices.Equal(out, want) {
		t.Fatalf("sent %q, want %q", out, want)
	}
	mustFail(t, r, `net.send("ready")`, "net.send is a client's")
	mustFail(t, r, `net.send_to(0, "ready")`, "player number expected")
	mustFail(t, r, `net.tell("everyone", "ready")`, "\"all\" expected")
}

func TestMessageDeclarationErrors(t *testing.T) {
	for _, c := range []struct{ setup, want string }{
		{`net.message("a") net.message("a")`, "declared twice"},
		{`net.message("a", { {"x"} })`, "has no codec"},
		{`net.on_message("a", function() end)`, "declare it with net.message first"},
		{`net.message("a") net.on_message("a", function() end) net.on_message("a", function() end)`, "called twice"},
	} {
		src := "function vkmRegisterBehaviors(r) end\nfunction vkmSetupNetwork(net) " + c.setup + " end\n"
		r, _ := newTest(t, src)
		_, err := r.SetupNetwork()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.setup, err, c.want)
		}
	}
}

func TestChatHandler(t *testing.T) {
	src := `function vkmRegisterBehaviors(r) end
function vkmSetupNetwork(net)
  net.on_chat(function(player, text)
    if text:find("darn") then return false end
    if text == "shout" then return string.upper(text) .. " from " .. player end
    if text == "odd" then return 3 end
    if text == "team" then return nil, {1, 3} end
    if text == "badteam" then return text, {0} end
  end)
end`
	r, _ := newTest(t, src)
	if got, ok, _, err := r.Chat(1, "gg"); got != "gg" || !ok || err != nil {
		t.Fatalf("before setup: %q %v %v", got, ok, err)
	}
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, out string
		ok, err bool
		to      string
	}{
		{"gg", "gg", true, false, "[]"},
		{"darn it", "", false, false, "[]"},
		{"shout", "SHOUT from 2", true, false, "[]"},
		{"odd", "", false, true, "[]"},
		{"team", "team", true, false, "[1 3]"},
		{"badteam", "", false, true, "[]"},
	} {
		got, ok, to, err := r.Chat(2, c.in)
		if got != c.out || ok != c.ok || (err != nil) != c.err || fmt.Sprint(to) != c.to {
			t.Errorf("%q: %q %v %v %v", c.in, got, ok, to, err)
		}
	}
}

// TestMessagesFromThePage: Send sends as net.send does, with the same
// checks; OnServerMessage hears each message from the server once, at the
// live tick that hands it to the handlers, never in a replay.
func TestMessagesFromThePage(t *testing.T) {
	r, w := newTest(t, messagesSrc)
	if _, err := r.SetupNetwork(); err != nil {
		t.Fatal(err)
	}
	w.role, w.local = RoleClient, 2
	var heard []string
	r.OnServerMessage(func(m int, values []float64) { heard = append(heard, fmt.Sprint(m, values)) })
	if ok, err := r.Send("buy", map[string]float64{"item": 6.4, "rush": 7}); !ok || err != nil {
		t.Fatalf("send: %v, %v", ok, err)
	}
	var out []Outgoing
	r.TakeMessages(func(o Outgoing) { out = append(out, o) })
	if len(out) != 1 || out[0].Message != 0 || fmt.Sprint(out[0].Values) != "[6 1]" {
		t.Fatalf("sent %+v", out)
	}
	for _, bad := range []struct {
		name   string
		fields map[string]float64
		want   string
	}{
		{"sell", nil, `no message "sell"`},
		{"buy", map[string]float64{"itme": 1}, `no field "itme"`},
	} {
		if ok, err := r.Send(bad.name, bad.fields); ok || err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("send %s %v: %v, %v; want %q", bad.name, bad.fields, ok, err, bad.want)
		}
	}
	r.PostMessage(0, 1, []float64{6, 4})
	w.replaying = true
	r.FixedUpdate(1.0/64, true)
	w.replaying = false
	if len(heard) != 0 {
		t.Fatalf("heard during a replay: %q", heard)
	}
	r.FixedUpdate(1.0/64, false)
	r.FixedUpdate(1.0/64, false)
	if !slices.Equal(heard, []string{"1 [6 4]"}) {
		t.Fatalf("heard %q", heard)
	}
	// Offline the page's send reaches the server's handler as the local
	// player's; a server has no page to send from.
	w.role = RoleOffline
	if ok, err := r.Send("buy", map[string]float64{"item": 2}); !ok || err != nil {
		t.Fatalf("offline send: %v, %v", ok, err)
	}
	r.FixedUpdate(1.0/64, false)
	if got := luaStrings(t, r, "got"); !slices.Contains(got, "buy 2 2 false") {
		t.Fatalf("offline, handled %q", got)
	}
	w.role = RoleServer
	if ok, err := r.Send("ready", nil); ok || err == nil {
		t.Fatalf("a server's send: %v, %v", ok, err)
	}
}
