package netmsg

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"vkm/internal/entity"
	"vkm/transport"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.txt from the encoders")

// framed is a Data payload as a reader takes it apart: the messages its
// reliable section completes, its relay and the packet proper.
type framed struct {
	Messages []string
	Relay    Relay
	Main     []byte
}

// vector is one example in testdata/vectors.txt: the bytes an encoder
// writes for value, and a parser that reads them back to it.
type vector struct {
	name, about string
	value       any
	encode      func(testing.TB) []byte
	parse       func(testing.TB, []byte) (any, error)
}

// payloadVector frames f: a channel sending f.Messages, f.Relay (none when
// empty) and f.Main.
func payloadVector(name, about string, f framed) vector {
	return vector{name: name, about: about, value: f,
		encode: func(tb testing.TB) []byte {
			rel := sending(tb, f.Messages...)
			var relay []byte
			if len(f.Relay) > 0 {
				relay = f.Relay.Append(nil)
			}
			return AppendPayload(nil, rel, relay, f.Main, 0)
		},
		parse: func(tb testing.TB, b []byte) (any, error) {
			rel := newReliable(tb)
			var relay Relay
			main, err := ParseServerPayload(b, rel, &relay)
			if err != nil {
				return nil, err
			}
			got := framed{Relay: relay, Main: main}
			if len(got.Relay) == 0 {
				got.Relay = nil
			}
			for m, ok := rel.Receive(); ok; m, ok = rel.Receive() {
				got.Messages = append(got.Messages, string(m))
			}
			return got, nil
		},
	}
}

// message is a vector of a reliable message.
func message[M interface{ Append([]byte) []byte }](name, about string, m M, parse func([]byte) (M, error)) vector {
	return vector{name: name, about: about, value: m,
		encode: func(testing.TB) []byte { return m.Append(nil) },
		parse:  func(_ testing.TB, b []byte) (any, error) { return parse(b) },
	}
}

// vectors are the examples written to testdata/vectors.txt.
func vectors() []vector {
	relay := Relay{{ID: entity.ID{Slot: 60, Gen: 1}, MoveX: 1}, {ID: entity.ID{Slot: 200, Gen: 3}, MoveX: -64.0 / 127}}
	return []vector{
		payloadVector("payload-plain", "A client's payload with no section: the flags byte 0, then the packet proper (here three stand-in bytes c0 ff 01).",
			framed{Main: []byte{0xc0, 0xff, 0x01}}),
		payloadVector("payload-reliable", "A client's payload whose reliable section (flag bit 0) carries message 0, \"hi\", whole: count 1, then the fragment (message 0, size 2, offset 0, length 2, data); then the packet proper.",
			framed{Messages: []string{"hi"}, Main: []byte{0xc0, 0xff, 0x01}}),
		payloadVector("payload-relay", "A server's payload with a reliable section (message 0, \"hi\"), a relay section (flag bit 1; the relay vector's) and the packet proper (a stand-in snapshot, 80 01).",
			framed{Messages: []string{"hi"}, Relay: relay, Main: []byte{0x80, 0x01}}),
		{name: "relay", about: "A relay section: entity 60#1 running right at full speed, 200#3 left at 64/127 of it (slot 200 is LEB128 c8 01; runs are command axes, 128 is 0).",
			value:  relay,
			encode: func(testing.TB) []byte { return relay.Append(nil) },
			parse: func(_ testing.TB, b []byte) (any, error) {
				r, n, err := ParseRelay(b, nil)
				if err == nil && n != len(b) {
					err = fmt.Errorf("%d bytes after the section", len(b)-n)
				}
				return r, err
			}},
		message("players", "A players message (kind 3): players 1 (\"ada\", entity 60#1) and 2 (\"bo\", entity 61#3).",
			Players{{Number: 1, Name: "ada", Entity: entity.ID{Slot: 60, Gen: 1}}, {Number: 2, Name: "bo", Entity: entity.ID{Slot: 61, Gen: 3}}}, parsePlayers),
		message("players-none", "A players message listing a player with no entity (slot and generation 0), a name of 32 bytes, and the highest number.",
			Players{{Number: 7, Name: "Zoë ünstoppable!! 🐉🐉🐉"}, {Number: 65535, Name: "Player 65535"}}, parsePlayers),
		message("round-trips", "A round trips message (kind 4): player 1 at 40 ms, player 2 at 65535 ms, which stands for that or more.",
			RoundTrips{{Player: 1, RTT: 40 * time.Millisecond}, {Player: 2, RTT: MaxRoundTrip}}, parseRoundTrips),
		message("bundle", "A script bundle (kind 1) taking effect at server tick 900, client tick 870: a script and a prefab, in path order; the hash is FNV-1a over each path and content, each preceded by its length as a u64.",
			sampleBundle(), ParseBundle),
		message("no-reload", "A no-reload message (kind 2) and its sentence.",
			NoReload{Sentence: "Rejoin with --dev."}, ParseNoReload),
		message("message", "A project message (kind 5), both ways: message 1 of the project's, with a body of two bytes (its fields through their codecs, which the schema reads).",
			Message{Number: 1, Body: []byte{0x37, 0x01}}, ParseMessage),
		message("chat", "A chat line a player typed (kind 6), client to server: its text to the end.",
			Chat{Text: "gg"}, ParseChat),
		message("chat-line", "A chat line from the server (kind 7): player 2's \"gg wp\"; from 0 it would be the server's own.",
			ChatLine{From: 2, Text: "gg wp"}, ParseChatLine),
		message("kicked", "A kicked message (kind 8): the sentence the player is shown as the server removes them.",
			Kicked{Sentence: "You were kicked: spam."}, ParseKicked),
		message("dev-notice", "A dev notice (kind 9), to a dev client: a reload the server refused, and why.",
			DevNotice{Sentence: "reload refused: scripts/coin.lua:3: unexpected symbol"}, ParseDevNotice),
		message("guest-join", "A guest message (kind 12), client to server: op 1, join, for local player 1, named \"bo\".",
			Guest{Op: GuestJoin, Local: 1, Text: "bo"}, ParseGuest),
		message("guest-leave", "A guest message, client to server: op 2, leave, for local player 2.",
			Guest{Op: GuestLeave, Local: 2}, ParseGuest),
		message("guest-seated", "A guest message, server to client: op 3, local player 1 is seated as player 5.",
			Guest{Op: GuestSeated, Local: 1, Player: 5}, ParseGuest),
		message("guest-refused", "A guest message, server to client: op 4, local player 2 was not seated, and why.",
			Guest{Op: GuestRefused, Local: 2, Text: "Every seat is taken."}, ParseGuest),
		message("guest-kicked", "A guest message, server to client: op 5, local player 1 (player 5) was kicked, and the sentence.",
			Guest{Op: GuestKicked, Local: 1, Player: 5, Text: "You were kicked: spam."}, ParseGuest),
		message("guest-left", "A guest message, server to client: op 6, local player 1 (player 5) has left its seat.",
			Guest{Op: GuestLeft, Local: 1, Player: 5}, ParseGuest),
		{name: "guest-section", about: "A server's payload with a guest section (flag bit 2) after the packet proper (a stand-in snapshot, 80 01): count 2; local 1 is player 5 with entity 61#1, local 2 player 6 with entity 200#3 (slot 200 is LEB128 c8 01); then the section's length, 12.",
			value: guestSample,
			encode: func(testing.TB) []byte {
				return AppendServerPayload(nil, nil, nil, []byte{0x80, 0x01}, guestSample.Append(nil), 0)
			},
			parse: func(tb testing.TB, b []byte) (any, error) {
				var relay Relay
				var g GuestSection
				main, err := ParseServerPayloadGuests(b, newReliable(tb), &relay, &g)
				if err == nil && !bytes.Equal(main, []byte{0x80, 0x01}) {
					err = fmt.Errorf("packet proper % x", main)
				}
				return g, err
			}},
		message("voice", "A voice message (kind 10): nearby, the player may speak, 12.5 m; slot 0 carries player 3 (entity 7#2) at gain 1, slot 5 player 9 (entity 1#1) at 0.25; the rest are empty.",
			sampleVoice(), ParseVoice),
		message("inspect-ask", "An inspector's ask (kind 14), dev client to dev server: the entity 60#1 is inspected (slot and generation 0 would stop the reports).",
			InspectAsk{ID: entity.ID{Slot: 60, Gen: 1}}, ParseInspectAsk),
		message("inspect-report", "An inspector's report (kind 14), dev server to dev client: entity 60#1 has waited 3 rounds with something to say, took 412 bytes a second of this client's snapshots, was last written at server tick 9000, in 250 entries since it was asked for.",
			InspectReport{ID: entity.ID{Slot: 60, Gen: 1}, Priority: 3, BytesPerS: 412, LastWritten: 9000, Entries: 250}, ParseInspectReport),
	}
}

// guestSample is the guest section vector's.
var guestSample = GuestSection{{Local: 1, Player: 5, Entity: entity.ID{Slot: 61, Gen: 1}}, {Local: 2, Player: 6, Entity: entity.ID{Slot: 200, Gen: 3}}}

// parsePlayers and parseRoundTrips parse with no scratch.
func parsePlayers(b []byte) (Players, error)       { return ParsePlayers(b, nil) }
func parseRoundTrips(b []byte) (RoundTrips, error) { return ParseRoundTrips(b, nil) }

// describe prints a vector's value.
func describe(v any) string {
	switch v := v.(type) {
	case *Bundle:
		var s strings.Builder
		fmt.Fprintf(&s, "Bundle{ServerTick:%d ClientTick:%d Hash:%#016x Files:", v.ServerTick, v.ClientTick, v.Hash)
		for _, p := range slices.Sorted(maps.Keys(v.Files)) {
			fmt.Fprintf(&s, " %s (%d bytes)", p, len(v.Files[p]))
		}
		return s.String() + "}"
	case Players:
		var s strings.Builder
		for _, p := range v {
			fmt.Fprintf(&s, " {Number:%d Entity:%v Name:%q}", p.Number, p.Entity, p.Name)
		}
		return "Players[" + strings.TrimSpace(s.String()) + "]"
	case framed:
		return fmt.Sprintf("messages %q, relay %+v, packet % x", v.Messages, v.Relay, v.Main)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T%+v", v, v), "netmsg.")
}

// renderVectors writes the vectors file's text.
func renderVectors(tb testing.TB) string {
	var s strings.Builder
	fmt.Fprintf(&s, `# vkm session datagram formats: test vectors (host/session/netmsg).
#
# docs/protocol.md, "Data: the payload", "The relay section" and
# "Messages a server sends". A Data payload follows the connection header:
# flags (bit 0 a reliable section, bit 1 a relay section, bit 2 a guest
# section at the end), the sections, then the packet proper and the guest
# section. A reliable message starts with its kind: 1 bundle,
# 2 no reload, 3 players, 4 round trips, 5 a project message, 6 chat,
# 7 a chat line, 8 kicked, 9 a dev notice, 10 voice, 11 follow, 12 guest,
# 14 the inspector's. Integers are little endian, bar the relay's slots and
# generations (LEB128). The most a payload holds is %d bytes.
#
# Each vector is a "vector NAME" line, comment lines, then the bytes in
# hex, 16 a row.
#
# Checked by TestVectorsFile; regenerate with
#   go test ./host/session/netmsg -run TestVectorsFile -update
# only when a format changes on purpose, and docs/protocol.md with it.
`, transport.MaxDataPayload)
	for _, v := range vectors() {
		b := v.encode(tb)
		fmt.Fprintf(&s, "\nvector %s\n# %s\n# %d bytes: %s\n", v.name, v.about, len(b), describe(v.value))
		for i := 0; i < len(b); i += 16 {
			fmt.Fprintf(&s, "% x\n", b[i:min(i+16, len(b))])
		}
	}
	return s.String()
}

func TestVectorsFile(t *testing.T) {
	path := filepath.Join("testdata", "vectors.txt")
	want := renderVectors(t)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with the encoders; if a format changed on purpose, say so in docs/protocol.md and run with -update", path)
	}
}

// The file's hex parses back to the values it documents.
func TestVectorsFileParses(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("testdata", "vectors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	vs := vectors()
	blocks := strings.Split(string(got), "\nvector ")[1:]
	if len(blocks) != len(vs) {
		t.Fatalf("%d vectors in the file, want %d", len(blocks), len(vs))
	}
	for i, block := range blocks {
		var b []byte
		for _, line := range strings.Split(block, "\n")[1:] {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			for _, f := range strings.Fields(line) {
				var c byte
				fmt.Sscanf(f, "%02x", &c)
				b = append(b, c)
			}
		}
		v := vs[i]
		back, err := v.parse(t, b)
		if err != nil || !reflect.DeepEqual(back, v.value) || !bytes.Equal(b, v.encode(t)) {
			t.Errorf("vector %s parses as %s, %v; want %s", v.name, describe(back), err, describe(v.value))
		}
	}
}
