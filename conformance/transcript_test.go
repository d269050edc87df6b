package conformance

import (
	"bytes"
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// datagram is one datagram of the transcript.
type datagram struct {
	n          int
	fromClient bool
	at         time.Duration
	what       string // its comment
	bytes      []byte
	opened     []byte // for a sealed one: the bytes after header and counter, opened
}

// transcript is transport/testdata/transcript.txt read.
type transcript struct {
	preamble  string
	sharedKey []byte
	held      []byte // the client's 387-byte connect token
	datagrams []datagram
}

var datagramLine = regexp.MustCompile(`^datagram (\d+) (client|server) -> (client|server) at (\d+)(ms|s), (\d+) bytes$`)

func readTranscript(t testing.TB) transcript {
	t.Helper()
	tr := transcript{preamble: preamble(t, transcriptFile)}
	for _, e := range readEntries(t, transcriptFile) {
		m := datagramLine.FindStringSubmatch(e.label)
		switch {
		case e.label == "shared key":
			tr.sharedKey = e.data
		case len(e.label) > 24 && e.label[:24] == "client's connect token (":
			if statedLen(t, e.label[24:]) != len(e.data) {
				t.Fatalf("connect token of %d bytes, stated %q", len(e.data), e.label)
			}
			tr.held = e.data
		case m != nil:
			tr.datagrams = append(tr.datagrams, parseDatagramEntry(t, e, m))
		case e.label == "opened" && len(tr.datagrams) > 0:
			tr.datagrams[len(tr.datagrams)-1].opened = e.data
		default:
			t.Fatalf("transcript:%d: unexpected %q", e.line, e.label)
		}
	}
	if len(tr.sharedKey) != 32 || tr.held == nil || len(tr.datagrams) == 0 {
		t.Fatal("transcript without its shared key, connect token or datagrams")
	}
	return tr
}

func parseDatagramEntry(t testing.TB, e *entry, m []string) datagram {
	t.Helper()
	n, _ := strconv.Atoi(m[1])
	v, _ := strconv.Atoi(m[4])
	unit := time.Millisecond
	if m[5] == "s" {
		unit = time.Second
	}
	d := datagram{n: n, fromClient: m[2] == "client", at: time.Duration(v) * unit, bytes: e.data}
	if m[2] == m[3] {
		t.Fatalf("datagram %d from %s to itself", n, m[2])
	}
	if len(e.comments) > 0 {
		d.what = e.comments[0]
	}
	if want, _ := strconv.Atoi(m[6]); len(e.data) != want {
		t.Fatalf("datagram %d: %d bytes, stated %d", n, len(e.data), want)
	}
	return d
}

// stated reads "pattern (\d+)" out of the preamble or a comment.
func stated(t testing.TB, text, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %q in %q", pattern, text)
	}
	return m[1]
}

// setting is the transcript's preamble read: who is where, under which
// keys.
type setting struct {
	server, client netip.AddrPort
	cookieKey      [16]byte
	maxPlayers     uint64
	tickRate       uint64
	serverTick     uint64
	clientID       uint64
	name, project  string
	minted         int64
}

func readSetting(t testing.TB, p string) setting {
	t.Helper()
	s := setting{
		server:     netip.MustParseAddrPort(stated(t, p, `server at (\S+) `)),
		client:     netip.MustParseAddrPort(stated(t, p, `client at (\S+) `)),
		maxPlayers: num(t, stated(t, p, `max (\d+) players`)),
		tickRate:   num(t, stated(t, p, `(\d+) Hz`)),
		serverTick: num(t, stated(t, p, `server tick (\d+)`)),
		clientID:   num(t, stated(t, p, `client id (\d+)`)),
		name:       stated(t, p, `name "([^"]*)"`),
		project:    stated(t, p, `protocol id of "([^"]*)"`),
		minted:     int64(num(t, stated(t, p, `minted at unix (\d+)`))),
	}
	b := mustHex(t, stated(t, p, `cookie key 16 × ([0-9a-f]{2})`))
	for i := range s.cookieKey {
		s.cookieKey[i] = b[0]
	}
	return s
}

// join is the handshake of the transcript decoded.
type join struct {
	first, echo Hello
	challenge   Challenge
	token       Token
	welcome     Welcome
	welcomeAt   time.Duration
}

// TestTranscriptJoin checks the four datagrams of the join: the first
// Hello, the Challenge and its cookie, the Hello with the connect token
// and its proof, the sealed Welcome.
func TestTranscriptJoin(t *testing.T) {
	tr := readTranscript(t)
	j := decodeJoin(t, tr)
	s := readSetting(t, tr.preamble)
	if j.first.Token != 0 || j.first.ConnectToken != nil {
		t.Error("the first Hello has a token or a connect token")
	}
	if j.echo.Nonce != j.first.Nonce || j.challenge.Nonce != j.first.Nonce {
		t.Errorf("nonces: hello %#x, challenge %#x, echo %#x; one attempt has one", j.first.Nonce, j.challenge.Nonce, j.echo.Nonce)
	}
	if j.echo.Token != j.challenge.Token || j.welcome.Token != j.challenge.Token {
		t.Errorf("tokens: challenge %#x, echo %#x, welcome %#x", j.challenge.Token, j.echo.Token, j.welcome.Token)
	}
	// The cookie is computable here: the preamble gives the server's key.
	window := int64(tr.datagrams[1].at / CookieWindow)
	if c := Cookie(s.cookieKey, s.client, window, j.first.Nonce); c != j.challenge.Token {
		t.Errorf("cookie %#x; SipHash-2-4 of the client's address, window %d and nonce gives %#x", j.challenge.Token, window, c)
	}
	checkHellosAgree(t, j.first, j.echo)
	checkJoinToken(t, tr, j, s)
	w := j.welcome
	if uint64(w.ServerTick) != s.serverTick || w.Player == 0 || uint64(w.MaxPlayers) != s.maxPlayers || uint64(w.TickRate) != s.tickRate || w.TickRate != j.first.TickRate {
		t.Errorf("welcome %+v; the preamble says tick %d, max %d, %d Hz", w, s.serverTick, s.maxPlayers, s.tickRate)
	}
}

func decodeJoin(t testing.TB, tr transcript) join {
	t.Helper()
	if len(tr.datagrams) < 4 {
		t.Fatal("fewer than four datagrams")
	}
	var j join
	var err error
	d := tr.datagrams
	if j.first, err = ParseHello(d[0].bytes); err != nil || !d[0].fromClient {
		t.Fatalf("datagram 1: %v", err)
	}
	if j.challenge, err = ParseChallenge(d[1].bytes); err != nil || d[1].fromClient {
		t.Fatalf("datagram 2: %v", err)
	}
	if j.echo, err = ParseHello(d[2].bytes); err != nil || !d[2].fromClient {
		t.Fatalf("datagram 3: %v", err)
	}
	sealed, c2s, s2c, err := SplitHeldToken(tr.held)
	if err != nil {
		t.Fatal(err)
	}
	if j.token, err = OpenToken(tr.sharedKey, sealed); err != nil {
		t.Fatalf("the client's connect token: %v", err)
	}
	if !j.token.KeysMatch(c2s, s2c) {
		t.Fatal("the client's keys are not the ones its token seals")
	}
	var counter uint64
	if j.welcome, counter, err = OpenWelcome(s2c, d[3].bytes); err != nil || d[3].fromClient {
		t.Fatalf("datagram 4: %v", err)
	}
	if counter != 0 {
		t.Errorf("the Welcome's counter is %d; the server's first sealed datagram counts 0", counter)
	}
	j.welcomeAt = d[3].at
	return j
}

// checkHellosAgree: the Hellos of one attempt differ only in the token,
// the connect token and the proof.
func checkHellosAgree(t *testing.T, a, b Hello) {
	t.Helper()
	if a.SchemaFP != b.SchemaFP || a.ActionFP != b.ActionFP || a.WorldFP != b.WorldFP || a.TickRate != b.TickRate ||
		a.ActionCount != b.ActionCount || a.Dev != b.Dev || a.Name != b.Name {
		t.Errorf("the two Hellos of the attempt differ:\n%+v\n%+v", a, b)
	}
}

// checkJoinToken: the Hello carries the client's sealed token and its
// proof; the token opens to the preamble's claims.
func checkJoinToken(t *testing.T, tr transcript, j join, s setting) {
	t.Helper()
	if !bytes.Equal(j.echo.ConnectToken, tr.held[:SealedTokenLen]) {
		t.Error("the Hello's connect token is not the client's")
	}
	proof, err := HelloProof(j.token.ClientToServer, tr.datagrams[2].bytes)
	if err != nil || !bytes.Equal(proof, j.echo.Proof) {
		t.Errorf("proof %x; HMAC-SHA256 as the doc says gives %x (%v)", j.echo.Proof, proof, err)
	}
	tok := j.token
	if want := FNV1a64([]byte("vkm:" + s.project)); tok.ProtocolID != want {
		t.Errorf("protocol id %#x; FNV-1a 64 of %q is %#x", tok.ProtocolID, "vkm:"+s.project, want)
	}
	if len(tok.Servers) != 1 || tok.Servers[0] != s.server {
		t.Errorf("servers %v; the server is at %v", tok.Servers, s.server)
	}
	if tok.ClientID != s.clientID || tok.Name != s.name || tok.Name != j.echo.Name {
		t.Errorf("client %d name %q; the preamble says %d %q", tok.ClientID, tok.Name, s.clientID, s.name)
	}
	if tok.Created != s.minted || tok.Expires != s.minted+3600 {
		t.Errorf("created %d expires %d; minted at %d, expiring an hour later", tok.Created, tok.Expires, s.minted)
	}
}

// TestTranscriptFingerprints: the Hello's action fingerprint is the
// actions vector's (axes x, y; buttons jump, fire), and its action count
// is their number; the world is generated (0).
func TestTranscriptFingerprints(t *testing.T) {
	j := decodeJoin(t, readTranscript(t))
	v := fingerprintVectors(t, actionsWorldFile)["actions"]
	a, _ := ParseActions(v.input)
	if j.first.ActionFP != v.want || int(j.first.ActionCount) != len(a.Axes)+len(a.Buttons) {
		t.Errorf("action fingerprint %#x count %d; the actions vector is %#x with %d", j.first.ActionFP, j.first.ActionCount, v.want, len(a.Axes)+len(a.Buttons))
	}
	if j.first.WorldFP != 0 || j.first.SchemaFP == 0 {
		t.Errorf("world %#x schema %#x", j.first.WorldFP, j.first.SchemaFP)
	}
}

func TestCookieSipHash(t *testing.T) {
	// The SipHash paper's vector: key 00..0f, message 00..0e.
	k := counting(0, 16)
	le := func(b []byte) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	if got := sipHash24(le(k[:8]), le(k[8:]), counting(0, 15)); got != 0xa129ca6149be45e5 {
		t.Errorf("SipHash-2-4 reference vector: %#x", got)
	}
}
