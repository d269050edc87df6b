package conformance

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// counting is 40 41 42 ... 5f, the session key the handshake vectors use.
func counting(from byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

// statedFields reads the Go-style "Name{Key:value Key:value}" a handshake
// vector's comment states its message as; a value runs to the next key,
// so a Detail with spaces is whole.
func statedFields(t testing.TB, comment, name string) map[string]string {
	t.Helper()
	i := strings.Index(comment, name+"{")
	j := strings.LastIndex(comment, "}")
	if i < 0 || j < i {
		t.Fatalf("no %s{...} in %q", name, comment)
	}
	body := comment[i+len(name)+1 : j]
	keys := regexp.MustCompile(`(?:^| )([A-Z][A-Za-z]*):`).FindAllStringSubmatchIndex(body, -1)
	out := map[string]string{}
	for k, m := range keys {
		end := len(body)
		if k+1 < len(keys) {
			end = keys[k+1][0]
		}
		out[body[m[2]:m[3]]] = strings.TrimSpace(body[m[1]:end])
	}
	return out
}

// statedHeader reads "N bytes: token 0x..." from a handshake vector's
// comment.
func statedHeader(t testing.TB, comment string) (int, uint64) {
	t.Helper()
	m := regexp.MustCompile(`^(\d+) bytes: token 0x([0-9a-f]{16})`).FindStringSubmatch(comment)
	if m == nil {
		t.Fatalf("no length and token in %q", comment)
	}
	n, _ := strconv.Atoi(m[1])
	tok, _ := strconv.ParseUint(m[2], 16, 64)
	return n, tok
}

func num(t testing.TB, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return v
}

// handshakeVector is one vector of transport/handshake/testdata/vectors.txt.
type handshakeVector struct {
	name     string
	datagram []byte
	prose    string // the first comment line
	stated   string // the second: "N bytes: token ..., Kind{...}"
}

func handshakeVectors(t testing.TB) map[string]handshakeVector {
	t.Helper()
	out := map[string]handshakeVector{}
	for name, v := range vectorFile(t, handshakeFile) {
		e := v[0]
		if len(e.comments) < 2 || len(v) != 1 {
			t.Fatalf("vector %s: want two comment lines and the datagram", name)
		}
		out[name] = handshakeVector{name, e.data, e.comments[0], e.comments[1]}
	}
	return out
}

// TestHandshakeVectorsCovered fails when a vector of the file goes
// unchecked here, or one checked here leaves the file.
func TestHandshakeVectorsCovered(t *testing.T) {
	want := []string{"hello-first", "hello-echo", "hello-token", "challenge", "welcome", "refuse-full",
		"refuse-tick-rate", "refuse-version", "refuse-join-failed", "sealed-refuse-token-expired", "goodbye"}
	got := handshakeVectors(t)
	for _, n := range want {
		if _, ok := got[n]; !ok {
			t.Errorf("vector %s is gone", n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d vectors in the file, %d checked", len(got), len(want))
	}
}

func TestHandshakeHeaders(t *testing.T) {
	for name, v := range handshakeVectors(t) {
		n, tok := statedHeader(t, v.stated)
		h, err := ParseHeader(v.datagram)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(v.datagram) != n || h.Token != tok {
			t.Errorf("%s: %d bytes, token %#x; the vector states %d, %#x", name, len(v.datagram), h.Token, n, tok)
		}
	}
}

func TestHandshakeHellos(t *testing.T) {
	vs := handshakeVectors(t)
	for _, name := range []string{"hello-first", "hello-echo", "hello-token"} {
		v := vs[name]
		h, err := ParseHello(v.datagram)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := statedFields(t, v.stated, "Hello")
		checkHelloFields(t, name, h, f)
		if h.Token == 0 && h.ConnectToken != nil {
			t.Errorf("%s: a first Hello carries a connect token", name)
		}
	}
	if h, _ := ParseHello(vs["hello-first"].datagram); h.Token != 0 {
		t.Errorf("hello-first: token %#x, a first Hello's is 0", h.Token)
	}
}

func checkHelloFields(t *testing.T, name string, h Hello, f map[string]string) {
	t.Helper()
	got := map[string]uint64{"SchemaFP": h.SchemaFP, "ActionFP": h.ActionFP, "WorldFP": h.WorldFP,
		"TickRate": uint64(h.TickRate), "ActionCount": uint64(h.ActionCount), "Nonce": h.Nonce}
	for k, v := range got {
		if want := num(t, f[k]); v != want {
			t.Errorf("%s: %s = %#x, the vector states %#x", name, k, v, want)
		}
	}
	if want := strconv.Quote(h.Name); f["Name"] != want {
		t.Errorf("%s: name %s, the vector states %s", name, want, f["Name"])
	}
	if want := strconv.FormatBool(h.Dev); f["Dev"] != want {
		t.Errorf("%s: dev %s, the vector states %s", name, want, f["Dev"])
	}
}

// TestHelloTokenProof checks the hello-token vector's stand-in token (1,
// 2, 3 ... counting mod 251) and its proof under the key 40 41 ... 5f.
func TestHelloTokenProof(t *testing.T) {
	v := handshakeVectors(t)["hello-token"]
	h, err := ParseHello(v.datagram)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.ConnectToken) != SealedTokenLen || len(h.Proof) != 16 {
		t.Fatalf("token %d bytes, proof %d", len(h.ConnectToken), len(h.Proof))
	}
	for i, c := range h.ConnectToken {
		if want := byte(i%251 + 1); c != want {
			t.Fatalf("stand-in token byte %d is %#x, want %#x", i, c, want)
		}
	}
	proof, err := HelloProof(counting(0x40, 32), v.datagram)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(proof, h.Proof) {
		t.Errorf("proof %x, HMAC-SHA256 as the doc says gives %x", h.Proof, proof)
	}
	tampered := bytes.Clone(v.datagram)
	tampered[4] ^= 1 // the cookie is covered
	if p, _ := HelloProof(counting(0x40, 32), tampered); bytes.Equal(p, h.Proof) {
		t.Error("the proof does not cover the header's token")
	}
}

func TestHandshakeChallenge(t *testing.T) {
	vs := handshakeVectors(t)
	c, err := ParseChallenge(vs["challenge"].datagram)
	if err != nil {
		t.Fatal(err)
	}
	if want := num(t, statedFields(t, vs["challenge"].stated, "Challenge")["Nonce"]); c.Nonce != want {
		t.Errorf("nonce %#x, the vector states %#x", c.Nonce, want)
	}
	hello, _ := ParseHello(vs["hello-first"].datagram)
	if c.Nonce != hello.Nonce {
		t.Errorf("the challenge echoes nonce %#x, the Hello's is %#x", c.Nonce, hello.Nonce)
	}
	echo, _ := ParseHello(vs["hello-echo"].datagram)
	if echo.Token != c.Token {
		t.Errorf("hello-echo echoes %#x, the challenge hands out %#x", echo.Token, c.Token)
	}
}

func TestHandshakeWelcome(t *testing.T) {
	v := handshakeVectors(t)["welcome"]
	w, err := ParseWelcome(v.datagram)
	if err != nil {
		t.Fatal(err)
	}
	f := statedFields(t, v.stated, "Welcome")
	got := map[string]uint64{"ServerTick": uint64(w.ServerTick), "Player": uint64(w.Player),
		"MaxPlayers": uint64(w.MaxPlayers), "TickRate": uint64(w.TickRate)}
	for k, g := range got {
		if want := num(t, f[k]); g != want {
			t.Errorf("%s = %d, the vector states %d", k, g, want)
		}
	}
	if f["Dev"] != strconv.FormatBool(w.Dev) {
		t.Errorf("dev %v, the vector states %s", w.Dev, f["Dev"])
	}
}

// reasonByName maps a vector's snake_case reason (tick_rate) to its number.
func reasonByName(t testing.TB, s string) Reason {
	t.Helper()
	for i, n := range reasonNames {
		if i > 0 && strings.EqualFold(n, strings.ReplaceAll(s, "_", "")) {
			return Reason(i)
		}
	}
	t.Fatalf("reason %q is not one of the doc's", s)
	return 0
}

func checkRefuseFields(t *testing.T, name string, r Refuse, f map[string]string) {
	t.Helper()
	if want := reasonByName(t, f["Reason"]); r.Reason != want {
		t.Errorf("%s: reason %v, the vector states %v", name, r.Reason, want)
	}
	got := map[string]uint64{"Nonce": r.Nonce, "MaxPlayers": uint64(r.MaxPlayers),
		"ServerTickRate": uint64(r.ServerTickRate), "ClientTickRate": uint64(r.ClientTickRate),
		"ServerVersion": uint64(r.ServerVersion), "ClientVersion": uint64(r.ClientVersion)}
	for k, g := range got {
		if want := num(t, f[k]); g != want {
			t.Errorf("%s: %s = %d, the vector states %d", name, k, g, want)
		}
	}
	if r.Detail != f["Detail"] {
		t.Errorf("%s: detail %q, the vector states %q", name, r.Detail, f["Detail"])
	}
	if err := r.UnusedFieldsZero(); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

func TestHandshakeRefuses(t *testing.T) {
	vs := handshakeVectors(t)
	hello, _ := ParseHello(vs["hello-first"].datagram)
	for _, name := range []string{"refuse-full", "refuse-tick-rate", "refuse-version", "refuse-join-failed"} {
		v := vs[name]
		r, err := ParseRefuse(v.datagram)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkRefuseFields(t, name, r, statedFields(t, v.stated, "Refuse"))
		if len(v.datagram) != RefuseLen+len(r.Detail) {
			t.Errorf("%s: %d bytes; 30 and the detail is %d", name, len(v.datagram), RefuseLen+len(r.Detail))
		}
		switch {
		case r.Reason == ReasonVersion && r.Nonce != 0:
			t.Errorf("%s: answering another version with nonce %#x, not 0", name, r.Nonce)
		case r.Reason != ReasonVersion && r.Nonce != hello.Nonce:
			t.Errorf("%s: nonce %#x does not echo the Hello's", name, r.Nonce)
		}
	}
	r, _ := ParseRefuse(vs["refuse-join-failed"].datagram)
	if !regexp.MustCompile(`^[^:]+:\d+: .+$`).MatchString(r.Detail) {
		t.Errorf("join-failed detail %q is not file:line: message", r.Detail)
	}
}

// TestSealedRefuse opens the sealed Refuse under the server-to-client key
// 40 41 ... 5f. Its length is also checked against the length the doc
// states in words, "54 bytes and the detail", which its parts add up to.
func TestSealedRefuse(t *testing.T) {
	v := handshakeVectors(t)["sealed-refuse-token-expired"]
	r, counter, err := OpenSealedRefuse(counting(0x40, 32), v.datagram)
	if err != nil {
		t.Fatal(err)
	}
	checkRefuseFields(t, "sealed refuse", r, statedFields(t, v.stated, "Refuse"))
	if counter != 0x8000000000000005 {
		t.Errorf("counter %#x, the vector says 0x8000000000000005", counter)
	}
	if got, want := len(v.datagram), RefuseLen+len(r.Detail)+sealedOverhead; got != want {
		t.Errorf("%d bytes; a sealed Refuse body (header, counter, body as above, tag) is %d", got, want)
	}
	if m := regexp.MustCompile(`the 16-byte tag; (\d+) bytes and the detail\.`).FindStringSubmatch(docWords(t)); m == nil || m[1] != strconv.Itoa(SealedRefuseStatedLen) {
		t.Errorf("the doc states a sealed Refuse's length as %q; the decoder has %d bytes and the detail", m, SealedRefuseStatedLen)
	}
	if SealedRefuseStatedLen != RefuseLen+sealedOverhead {
		t.Errorf("the stated %d bytes are not the header, counter, Refuse body and tag's %d", SealedRefuseStatedLen, RefuseLen+sealedOverhead)
	}
	if err := CheckSealedRefuseStatedLen(v.datagram, len(r.Detail)); err != nil {
		t.Error(err)
	}
	tampered := bytes.Clone(v.datagram)
	tampered[12] ^= 1 // the counter is associated data
	if _, _, err := OpenSealedRefuse(counting(0x40, 32), tampered); err == nil {
		t.Error("a sealed refuse with its counter changed opens")
	}
}

func TestHandshakeGoodbye(t *testing.T) {
	v := handshakeVectors(t)["goodbye"]
	g, err := ParseGoodbye(v.datagram)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]uint8{"quit": GoodbyeQuit, "shutdown": GoodbyeShutdown, "timeout": GoodbyeTimeout,
		"kicked": GoodbyeKicked, "protocol": GoodbyeProtocol, "flood": GoodbyeFlood}
	want, ok := names[statedFields(t, v.stated, "Goodbye")["Reason"]]
	if !ok || g.Reason != want {
		t.Errorf("reason %d, the vector states %q", g.Reason, statedFields(t, v.stated, "Goodbye")["Reason"])
	}
}

// TestHandshakeStrictPrefixes: every strict prefix of each handshake
// vector is refused by its decoder.
func TestHandshakeStrictPrefixes(t *testing.T) {
	key := counting(0x40, 32)
	parse := map[Kind]func([]byte) error{
		KindHello:     func(b []byte) error { _, err := ParseHello(b); return err },
		KindChallenge: func(b []byte) error { _, err := ParseChallenge(b); return err },
		KindWelcome:   func(b []byte) error { _, err := ParseWelcome(b); return err },
		KindRefuse:    func(b []byte) error { _, err := ParseRefuse(b); return err },
		KindGoodbye:   func(b []byte) error { _, err := ParseGoodbye(b); return err },
		KindSealedRefuse: func(b []byte) error {
			_, _, err := OpenSealedRefuse(key, b)
			return err
		},
	}
	for name, v := range handshakeVectors(t) {
		p := parse[Kind(v.datagram[3])]
		if err := p(v.datagram); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for n := range len(v.datagram) {
			if p(v.datagram[:n]) == nil {
				t.Errorf("%s: the %d-byte prefix is accepted", name, n)
				break
			}
		}
	}
}

// TestHelloRefusals: each thing rule 1 of "What the server does with a
// Hello" drops is refused by the decoder.
func TestHelloRefusals(t *testing.T) {
	base := handshakeVectors(t)["hello-echo"].datagram
	for _, c := range []struct {
		what string
		edit func(b []byte) []byte
	}{
		{"longer", func(b []byte) []byte { return append(b, 0) }},
		{"unknown flag", func(b []byte) []byte { b[39] |= 4; return b }},
		{"name over 32", func(b []byte) []byte { b[48] = 33; return b }},
		{"control character in the name", func(b []byte) []byte { b[50] = '\n'; return b }},
		{"invalid UTF-8 name", func(b []byte) []byte { b[50] = 0xff; return b }},
		{"byte after the name", func(b []byte) []byte { b[60] = 1; return b }},
		{"padding", func(b []byte) []byte { b[1199] = 1; return b }},
		{"padding where a token would be", func(b []byte) []byte { b[100] = 1; return b }},
		{"another version", func(b []byte) []byte { b[2] = 7; return b }},
		{"no tag", func(b []byte) []byte { b[0] = 0; return b }},
	} {
		if _, err := ParseHello(c.edit(bytes.Clone(base))); err == nil {
			t.Errorf("a Hello with %s is accepted", c.what)
		}
	}
}

// TestNameRule: a name is graphic characters only, as Go's
// unicode.IsGraphic has them: letters, marks, numbers, punctuation,
// symbols and space separators (U+00A0 and U+3000 with the space), and no
// control or format character, line or paragraph separator.
func TestNameRule(t *testing.T) {
	for _, n := range []string{"", "ada", "a b", " ", "a\u00a0b", "\u3000", "e\u0301", "日本", "٣", "a-b!", "€"} {
		if err := checkName([]byte(n)); err != nil {
			t.Errorf("name %q: %v", n, err)
		}
	}
	for _, n := range []string{"a\nb", "tab\t", "\x00", "\u0085", "zero\u200bwidth", "\u00ad", "\u2028", "\u2029", "\ufeff", "\xff", "\xc3"} {
		if checkName([]byte(n)) == nil {
			t.Errorf("name %q is accepted", n)
		}
	}
}

func TestRefuseDetailRules(t *testing.T) {
	for _, d := range []string{" lead", "trail ", "two  spaces", "line\nbreak", "tab\there", "\xff", "zero\u200bwidth"} {
		if checkDetail([]byte(d)) == nil {
			t.Errorf("detail %q is accepted", d)
		}
	}
	if err := checkDetail([]byte("scripts/join.lua:7: no seats left")); err != nil {
		t.Error(err)
	}
}
