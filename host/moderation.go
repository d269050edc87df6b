package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"vkm/host/access"
	"vkm/host/session"
)

// An operator moderates a running server with console lines, typed on
// vkmd's standard input (ServeConfig.Console) or posted to the admin
// listener (admin.Config.Command): both hand the line to the serving loop,
// which alone touches the session, and wait for its answer.
//
//	players                    who is seated: number, name, address, client id
//	kick N [reason]            remove player N, showing them the reason
//	ban N [reason]             ban player N's client id (with a key) and address, and kick them
//	ban id|addr VALUE [reason] ban a client id or an address
//	unban id|addr VALUE        lift a ban
//	mute N, unmute N           drop (or stop dropping) player N's chat
//	say TEXT                   a chat line from the server to everyone

// command is a console line on its way to the serving loop, and where
// its answer goes.
type command struct {
	line  string
	reply chan string
}

// moderator answers console lines on the serving loop.
type moderator struct {
	s    *session.Server
	log  *slog.Logger
	list *access.List
	// bans counts the bans made, kicks those kicks made by an operator.
	bans uint64
}

// gate is the session's Gate: the access list's word on a joining player.
func (m *moderator) gate(from netip.AddrPort, client uint64, hasClient bool) (string, bool) {
	ok, why := m.list.Check(from.Addr(), client, hasClient)
	return why, ok
}

// do answers one console line.
func (m *moderator) do(line string) string {
	verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "":
		return ""
	case "players":
		return m.players()
	case "kick":
		n, reason, err := playerArg(rest)
		if err != nil {
			return err.Error()
		}
		if !m.s.Kick(n, kickSentence("kicked", reason)) {
			return fmt.Sprintf("no player %d", n)
		}
		return fmt.Sprintf("kicked player %d", n)
	case "ban":
		return m.ban(rest)
	case "unban":
		kind, value, _ := strings.Cut(rest, " ")
		ok, err := m.list.Remove(false, access.Kind(kind), strings.TrimSpace(value))
		switch {
		case err != nil:
			return err.Error()
		case !ok:
			return "no such ban"
		}
		m.log.Info("unbanned", "rule", rest)
		return "unbanned " + rest
	case "mute", "unmute":
		n, _, err := playerArg(rest)
		if err != nil {
			return err.Error()
		}
		if !m.s.Mute(n, verb == "mute") {
			return fmt.Sprintf("no player %d", n)
		}
		return fmt.Sprintf("%sd player %d", verb, n)
	case "say":
		if !m.s.Say(rest) {
			return "say: nothing to say"
		}
		return "said"
	}
	return fmt.Sprintf("%q: not a command (players, kick N reason, ban N reason, ban id|addr VALUE reason, unban id|addr VALUE, mute N, unmute N, say TEXT)", verb)
}

// kickSentence is what a kicked or banned player is shown.
func kickSentence(what, reason string) string {
	if reason == "" {
		return "You were " + what + " by the server's operator."
	}
	return "You were " + what + ": " + reason
}

// playerArg reads "N [rest]".
func playerArg(s string) (uint16, string, error) {
	num, rest, _ := strings.Cut(s, " ")
	n, err := strconv.ParseUint(num, 10, 16)
	if err != nil || n == 0 {
		return 0, "", fmt.Errorf("%q is not a player number", num)
	}
	return uint16(n), strings.TrimSpace(rest), nil
}

// ban bans a seated player (by client id, with a key, and address) and
// kicks them, or bans a client id or address given.
func (m *moderator) ban(rest string) string {
	kind, tail, _ := strings.Cut(rest, " ")
	if kind == string(access.ByID) || kind == string(access.ByAddr) {
		value, reason, _ := strings.Cut(strings.TrimSpace(tail), " ")
		if err := m.list.Add(access.Rule{Kind: access.Kind(kind), Value: value, Reason: strings.TrimSpace(reason)}); err != nil {
			return err.Error()
		}
		m.bans++
		m.log.Warn("banned", "kind", kind, "value", value, "why", strings.TrimSpace(reason))
		return "banned " + kind + " " + value
	}
	n, reason, err := playerArg(rest)
	if err != nil {
		return err.Error()
	}
	for _, p := range m.s.Net().Players(nil, 0) {
		if p.Player != n {
			continue
		}
		if p.Authed {
			if err := m.list.Add(access.Rule{Kind: access.ByID, Value: strconv.FormatUint(p.Client, 10), Reason: reason}); err != nil {
				return err.Error()
			}
		}
		if err := m.list.Add(access.Rule{Kind: access.ByAddr, Value: p.Addr.Addr().String(), Reason: reason}); err != nil {
			return err.Error()
		}
		m.bans++
		m.log.Warn("player banned", "player", n, "name", p.Name, "addr", p.Addr.Addr(), "client", p.Client, "authed", p.Authed, "why", reason)
		m.s.Kick(n, kickSentence("banned", reason))
		return fmt.Sprintf("banned player %d", n)
	}
	return fmt.Sprintf("no player %d", n)
}

// players lists who is seated.
func (m *moderator) players() string {
	var b strings.Builder
	all := m.s.Net().Players(nil, 0)
	ps, watching := splitSpectators(all)
	gs := m.s.Guests()
	fmt.Fprintf(&b, "%d players", len(ps)+len(gs))
	for _, p := range ps {
		id := "-"
		if p.Authed {
			id = strconv.FormatUint(p.Client, 10)
		}
		fmt.Fprintf(&b, "\n%d %q %s client %s rtt %dms", p.Player, p.Name, p.Addr, id, p.RTT.Milliseconds())
	}
	for _, g := range gs {
		fmt.Fprintf(&b, "\n%d %q guest %d of player %d", g.Player, g.Name, g.Local, g.Owner)
	}
	writeSpectators(&b, watching)
	return b.String()
}

// ask hands line to the serving loop through cmds and returns its answer,
// or ctx's error.
func ask(ctx context.Context, cmds chan<- command, line string) (string, error) {
	c := command{line: line, reply: make(chan string, 1)}
	select {
	case cmds <- c:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// console reads lines from in until it ends or ctx does, asks the loop
// each, and writes each answer to out.
func console(ctx context.Context, in io.Reader, out io.Writer, cmds chan<- command) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		r, err := ask(ctx, cmds, sc.Text())
		if err != nil {
			return
		}
		if r != "" {
			fmt.Fprintln(out, r)
		}
	}
}

// ReadPasswordFile reads a server's password from the file at path: its
// text, spaces and line breaks at either end trimmed. An empty one is an
// error: it would let anyone in while seeming not to.
func ReadPasswordFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host: the password file: %w", err)
	}
	pw := bytes.TrimSpace(b)
	if len(pw) == 0 {
		return nil, fmt.Errorf("host: the password file %s is empty", path)
	}
	return pw, nil
}
