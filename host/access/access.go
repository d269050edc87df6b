// Package access is a server's access list: bans and an allow list, by
// connect-token client id and by address, kept in a file that survives
// restarts (docs/operating.md, "Moderation").
//
// The file is text, one rule a line, in the order they were made:
//
//	ban id 4242 cheating in round 3
//	ban addr 203.0.113.7 spam
//	allow id 7
//	# a comment, and blank lines, are kept out
//
// A ban keeps out a joining player whose client id or address it names,
// with its reason (the rest of the line), which the player is shown. When
// any allow rule exists, only players an allow rule names (and no ban) may
// join. A List is safe for concurrent use: the admin listener and the
// console change it while the serving loop reads it.
package access

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Kind is what a rule names.
type Kind string

// The kinds of rule.
const (
	ByID   Kind = "id"
	ByAddr Kind = "addr"
)

// Rule is one line of the list.
type Rule struct {
	Allow  bool // an allow rule; otherwise a ban
	Kind   Kind
	Value  string // the client id in decimal, or the address (no port)
	Reason string // a ban's, shown to the player; may be empty
}

// List is an access list, kept in the file at its path (none: in memory
// only).
type List struct {
	mu    sync.Mutex
	path  string
	rules []Rule
}

// Load reads the list in the file at path; a file that does not exist is
// an empty list, made when a rule is first added. An empty path is a list
// kept in memory only.
func Load(path string) (*List, error) {
	l := &List{path: path}
	if path == "" {
		return l, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("access: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := ParseRule(line)
		if err != nil {
			return nil, fmt.Errorf("access: %s:%d: %w", path, n, err)
		}
		l.rules = append(l.rules, r)
	}
	return l, sc.Err()
}

// ParseRule reads one rule: "ban|allow id|addr VALUE [reason...]".
func ParseRule(line string) (Rule, error) {
	f := strings.Fields(line)
	if len(f) < 3 || (f[0] != "ban" && f[0] != "allow") {
		return Rule{}, fmt.Errorf("%q: want \"ban|allow id|addr VALUE [reason]\"", line)
	}
	r := Rule{Allow: f[0] == "allow", Kind: Kind(f[1])}
	v, err := canonical(r.Kind, f[2])
	if err != nil {
		return Rule{}, err
	}
	r.Value = v
	if len(f) > 3 {
		r.Reason = strings.Join(f[3:], " ")
	}
	return r, nil
}

// canonical returns v as a rule of kind k writes it.
func canonical(k Kind, v string) (string, error) {
	switch k {
	case ByID:
		id, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a client id (a whole number)", v)
		}
		return strconv.FormatUint(id, 10), nil
	case ByAddr:
		a, err := netip.ParseAddr(v)
		if err != nil {
			if ap, err2 := netip.ParseAddrPort(v); err2 == nil {
				a = ap.Addr()
			} else {
				return "", fmt.Errorf("%q is not an IP address", v)
			}
		}
		return a.Unmap().String(), nil
	}
	return "", fmt.Errorf("%q is not id or addr", k)
}

// String is the rule's line in the file.
func (r Rule) String() string {
	s := "ban"
	if r.Allow {
		s = "allow"
	}
	s += " " + string(r.Kind) + " " + r.Value
	if r.Reason != "" {
		s += " " + r.Reason
	}
	return s
}

// Add adds r (a rule for the same kind and value replaces the old one) and
// saves the list.
func (l *List) Add(r Rule) error {
	v, err := canonical(r.Kind, r.Value)
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	r.Value = strings.Join(strings.Fields(v), " ")
	r.Reason = strings.Join(strings.Fields(r.Reason), " ")
	l.mu.Lock()
	defer l.mu.Unlock()
	l.removeLocked(r.Allow, r.Kind, r.Value)
	l.rules = append(l.rules, r)
	return l.saveLocked()
}

// Remove drops the ban (or, with allow, the allow rule) of kind k and value
// v, and saves the list; it reports whether there was one.
func (l *List) Remove(allow bool, k Kind, v string) (bool, error) {
	v, err := canonical(k, v)
	if err != nil {
		return false, fmt.Errorf("access: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.removeLocked(allow, k, v) {
		return false, nil
	}
	return true, l.saveLocked()
}

func (l *List) removeLocked(allow bool, k Kind, v string) bool {
	n := len(l.rules)
	kept := l.rules[:0]
	for _, r := range l.rules {
		if r.Allow != allow || r.Kind != k || r.Value != v {
			kept = append(kept, r)
		}
	}
	l.rules = kept
	return len(kept) != n
}

// Rules returns a copy of the rules, in order.
func (l *List) Rules() []Rule {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Rule(nil), l.rules...)
}

// Check says whether a player joining from addr, with client id (when
// hasID) may join; when not, why, in a sentence for the player.
func (l *List) Check(addr netip.Addr, id uint64, hasID bool) (ok bool, why string) {
	a := addr.Unmap().String()
	ids := strconv.FormatUint(id, 10)
	l.mu.Lock()
	defer l.mu.Unlock()
	allows, allowed := false, false
	for _, r := range l.rules {
		hit := r.Kind == ByAddr && r.Value == a || r.Kind == ByID && hasID && r.Value == ids
		if r.Allow {
			allows = true
			allowed = allowed || hit
			continue
		}
		if hit {
			if r.Reason == "" {
				return false, "You are banned from this server."
			}
			return false, "You are banned from this server: " + r.Reason
		}
	}
	if allows && !allowed {
		return false, "This server admits only the players on its allow list."
	}
	return true, ""
}

// saveLocked writes the list to its file, whole, through a file beside it
// renamed over it, so a crash leaves the old list or the new one.
func (l *List) saveLocked() error {
	if l.path == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("# vkm access list: ban|allow id|addr VALUE [reason]\n")
	for _, r := range l.rules {
		b.WriteString(r.String() + "\n")
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.path), ".access-*")
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("access: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("access: %w", err)
	}
	if err := os.Rename(tmp.Name(), l.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("access: %w", err)
	}
	return nil
}
