package transport_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/replication"
	"vkm/transport"
	"vkm/transport/handshake"
	"vkm/transport/seal"
	"vkm/transport/token"
)

var updateTranscript = flag.Bool("update", false, "rewrite testdata/transcript.txt from a Server and a Client")

// The transcript's fixed world: the client's address, the cookie gate's
// key, and the connect token's randomness.
var (
	transcriptClient    = netip.MustParseAddrPort("198.51.100.7:50000")
	transcriptCookieKey = bytes.Repeat([]byte{0xc0}, 16)
)

// transcriptStep is one datagram of the transcript.
type transcriptStep struct {
	about  string
	at     time.Duration
	up     bool   // client to server
	b      []byte // as sent
	opened []byte // for a sealed datagram: what it opens to, after the header
}

// transcriptCommands is the command packet the client sends: two
// commands of a project with axes x, y and buttons jump, fire.
func transcriptCommands() []byte {
	p := prediction.Packet{FirstSeq: 1, FirstTick: 1000} // drawn 0: no snapshot has arrived yet
	var a, b prediction.Command
	a.Axes[0], a.Axes[1] = 1, -0.5
	b.Axes[0], b.Held, b.Pressed = 1, 1, 1 // jump held, pressed this command
	p.Commands = []prediction.Command{a, b}
	return append([]byte{0}, p.Append(nil, 2, 2)...) // flags 0: no reliable section
}

// transcriptSnapshot is the snapshot the server sends: the first one of
// the connection (full header), the player's own entity 60#1 running,
// and a resting character 61#3.
func transcriptSnapshot() []byte {
	var s replication.Schema
	r := replication.NewRound(&s)
	r.Begin(1000)
	r.Entity(entity.ID{Slot: 60, Gen: 1}, replication.Described)
	r.Transform(entity.Transform{X: 1.5, Y: -2, Scale: 1})
	r.Rigidbody(entity.Rigidbody{VX: 3, VY: 0.25, Awake: true})
	r.Entity(entity.ID{Slot: 61, Gen: 3}, replication.Described)
	r.Transform(entity.Transform{X: -4, Y: 0.5, Scale: 1})
	r.CharacterController(entity.CharacterController{Grounded: true})
	peer := replication.NewPeer(&s)
	peer.SetCommands(replication.Commands{Newest: 2, Judged: 1000, LowWater: 1})
	return append([]byte{0}, peer.Write(nil, r, entity.ID{Slot: 60, Gen: 1}, transport.MaxDataPayload-1)...)
}

// transcriptNonce is the join attempt's nonce the transcript's client
// draws: 0x8877665544332211.
var transcriptNonce = []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}

// runTranscript joins a Client holding a connect token to a Server with
// the key, then has each send one Data, and returns what went by.
func runTranscript(t *testing.T) (*token.Token, []transcriptStep) {
	t.Helper()
	tok := mintToken(t, sealKey, 7, "ada", 0x7a11, nil)
	hello := handshake.Hello{SchemaFP: 0x08e0da77daa66d34, ActionCount: 4, ActionFP: 0x49a09188576b1b18, TickRate: 64}
	srv, err := transport.NewServer(transport.ServerConfig{
		Hello: hello, MaxPlayers: 4, Rand: bytes.NewReader(transcriptCookieKey), Auth: sealAuth(),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetTick(1000)
	ch := hello
	ch.Name = "ada"
	cl := transport.NewClient(transport.ClientConfig{Hello: ch, Token: tok, Rand: bytes.NewReader(transcriptNonce)}, 0)
	rx, err := seal.NewReceiver(&tok.ServerToClient, handshake.HeaderSize)
	if err != nil {
		t.Fatal(err)
	}
	srx, err := seal.NewReceiver(&tok.ClientToServer, handshake.HeaderSize)
	if err != nil {
		t.Fatal(err)
	}
	var steps []transcriptStep
	up := func(at time.Duration, about string) {
		t.Helper()
		b, ok := cl.NextDatagram()
		if !ok {
			t.Fatalf("%s: the client sent nothing", about)
		}
		st := transcriptStep{about: about, at: at, up: true, b: bytes.Clone(b)}
		if k := handshake.Kind(b[3]); k == handshake.KindData || k == handshake.KindGoodbye {
			_, body, err := srx.Open(nil, b)
			if err != nil {
				t.Fatalf("%s: %v", about, err)
			}
			st.opened = body
		}
		steps = append(steps, st)
		srv.Receive(transcriptClient, b, transport.Time(at))
	}
	down := func(at time.Duration, about string) {
		t.Helper()
		_, b, ok := srv.NextDatagram()
		if !ok {
			t.Fatalf("%s: the server sent nothing", about)
		}
		st := transcriptStep{about: about, at: at, b: bytes.Clone(b)}
		if k := handshake.Kind(b[3]); k != handshake.KindChallenge && k != handshake.KindRefuse {
			_, body, err := rx.Open(nil, b)
			if err != nil {
				t.Fatalf("%s: %v", about, err)
			}
			st.opened = body
		}
		steps = append(steps, st)
		cl.Receive(b, transport.Time(at))
	}
	ms := time.Millisecond
	cl.Poll(0)
	up(0, "Hello: the first, token 0, no connect token, the join attempt's nonce 0x8877665544332211 at offset 40; padded to 1200 bytes")
	down(20*ms, "Challenge: the cookie for 198.51.100.7:50000 and the nonce in the window of time 0, echoing the nonce")
	cl.Poll(transport.Time(20 * ms))
	up(20*ms, "Hello: echoing the cookie, carrying the sealed connect token at offset 81 (flags bit 1) and at 404 its proof under the client-to-server key")
	down(40*ms, "Welcome, sealed with the server-to-client key, counter 0: tick 1000, player 1 of 4, 64 Hz")
	cl.Poll(transport.Time(40 * ms))
	up(40*ms, "Data, sealed with the client-to-server key, counter 0: the first, an empty payload (keep-alive); seq 0, ack 65535 (nothing received), ack bits 0")
	if _, err := cl.Send(transcriptCommands(), transport.Time(50*ms)); err != nil {
		t.Fatal(err)
	}
	up(50*ms, "Data, counter 1: seq 1, ack 65535, a command packet (flags 0, then the packet)")
	if _, err := srv.Send(1, transcriptSnapshot(), transport.Time(60*ms)); err != nil {
		t.Fatal(err)
	}
	down(60*ms, "Data, counter 1 (the Welcome used 0): seq 0, ack 1, ack bits 1 (seq 0 too), a snapshot (flags 0, then the snapshot)")
	return tok, steps
}

// renderTranscript writes the transcript file's text.
func renderTranscript(t *testing.T) string {
	tok, steps := runTranscript(t)
	var s strings.Builder
	hexRows := func(b []byte) {
		for i := 0; i < len(b); i += 16 {
			fmt.Fprintf(&s, "% x\n", b[i:min(i+16, len(b))])
		}
	}
	fmt.Fprintf(&s, `# vkm join transcript, protocol version %d (transport), checked by
# TestTranscriptFile; regenerate with
#   go test ./transport -run TestTranscriptFile -update
# when the protocol changes on purpose.
#
# A server at %v with the shared key below (Auth), cookie key
# 16 × c0, max 4 players, 64 Hz, server tick 1000; a client at %v
# holding the connect token below (client id 7, name "ada", protocol id of
# "arena", minted at unix %d, expiring an hour later). Times are from the
# start of both ends' clocks. Each datagram: a "datagram" line (direction,
# time, what it is), its bytes in hex, 16 a row (a Hello's zero tail as
# "zeros N"), and for a sealed one "opened": the bytes after the 12-byte
# header and 8-byte counter once decrypted (no tag).
`, handshake.Version, sealAddr, transcriptClient, sealEpoch.Unix())
	s.WriteString("\nshared key\n")
	hexRows(sealKey[:])
	s.WriteString("\nclient's connect token (387 bytes: sealed 323, client-to-server key, server-to-client key)\n")
	hexRows(tok.Append(nil))
	for i, st := range steps {
		dir := "server -> client"
		if st.up {
			dir = "client -> server"
		}
		fmt.Fprintf(&s, "\ndatagram %d %s at %v, %d bytes\n# %s\n", i+1, dir, st.at, len(st.b), st.about)
		end := len(bytes.TrimRight(st.b, "\x00"))
		if len(st.b)-end < 16 {
			end = len(st.b)
		}
		hexRows(st.b[:end])
		if end < len(st.b) {
			fmt.Fprintf(&s, "zeros %d\n", len(st.b)-end)
		}
		if st.opened != nil {
			s.WriteString("opened\n")
			hexRows(st.opened)
		}
	}
	return s.String()
}

func TestTranscriptFile(t *testing.T) {
	path := filepath.Join("testdata", "transcript.txt")
	want := renderTranscript(t)
	if *updateTranscript {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with the transport; if the protocol changed on purpose, run with -update", path)
	}
}

// The transcript says what docs/protocol.md says it does: a Data's
// connection header, the first acknowledgement 65535, the payload framing.
func TestTranscriptMatchesDoc(t *testing.T) {
	_, steps := runTranscript(t)
	if len(steps) != 7 {
		t.Fatalf("%d datagrams", len(steps))
	}
	if len(steps[0].b) != handshake.HelloSize || len(steps[1].b) != handshake.HeaderSize+8 ||
		!bytes.Equal(steps[1].b[12:], transcriptNonce) || !bytes.Equal(steps[0].b[40:48], transcriptNonce) {
		t.Fatalf("Hello %d bytes, Challenge %d", len(steps[0].b), len(steps[1].b))
	}
	if w := steps[3]; len(w.b) != handshake.HeaderSize+handshake.WelcomeSize+seal.Overhead ||
		binary.LittleEndian.Uint64(w.b[12:20]) != 0 {
		t.Fatalf("sealed Welcome % x", w.b)
	}
	type conn struct {
		seq, ack uint16
		bits     uint32
		payload  []byte
	}
	read := func(st transcriptStep) conn {
		o := st.opened
		n := int(binary.LittleEndian.Uint16(o[8:10]))
		if n != len(o)-transport.HeaderLen || len(st.b) != handshake.HeaderSize+seal.Overhead+len(o) {
			t.Fatalf("payload length %d in %d opened bytes", n, len(o))
		}
		return conn{binary.LittleEndian.Uint16(o), binary.LittleEndian.Uint16(o[2:]), binary.LittleEndian.Uint32(o[4:]), o[10:]}
	}
	keep, cmd, snap := read(steps[4]), read(steps[5]), read(steps[6])
	if keep.seq != 0 || keep.ack != 0xffff || keep.bits != 0 || len(keep.payload) != 0 {
		t.Errorf("first Data %+v: want seq 0, ack 65535, bits 0, empty", keep)
	}
	if cmd.seq != 1 || cmd.ack != 0xffff || !bytes.Equal(cmd.payload, transcriptCommands()) {
		t.Errorf("command Data %+v", cmd)
	}
	if snap.seq != 0 || snap.ack != 1 || snap.bits != 1 || !bytes.Equal(snap.payload, transcriptSnapshot()) {
		t.Errorf("snapshot Data %+v", snap)
	}
	var p prediction.Packet
	if err := prediction.ParsePacket(cmd.payload[1:], 2, 2, &p); err != nil || len(p.Commands) != 2 || p.FirstTick != 1000 {
		t.Errorf("command packet %+v, %v", p, err)
	}
	var sn replication.Snapshot
	if err := sn.Decode(&replication.Schema{}, snap.payload[1:], replication.Refs{Sequence: 2, ClientTick: 1002}); err != nil ||
		sn.Tick != 1000 || len(sn.Entries) != 2 || sn.Own != (entity.ID{Slot: 60, Gen: 1}) || sn.Commands.Judged != 1000 {
		t.Errorf("snapshot %+v, %v", sn, err)
	}
}
