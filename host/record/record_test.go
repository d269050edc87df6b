package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vkm/host/project"
)

// matchTicks is the recorded match's length: two minutes at 64 Hz, or
// twenty seconds with -short or under the race detector.
func matchTicks() uint32 {
	if testing.Short() || raceOn {
		return 20 * 64
	}
	return 120 * 64
}

// TestArenaMatchReplaysExactly records an arena match of four bots with a
// leave, a join (a full dev client, which chats) and a hot reload, and
// plays it again offline from the file alone: every world hash the server
// wrote is the replay's, and the replay runs every tick.
func TestArenaMatchReplaysExactly(t *testing.T) {
	ticks := matchTicks()
	b := arenaMatch(t, ticks, Config{})
	rec, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Torn {
		t.Fatal("a whole recording reads as torn")
	}
	rep, err := Play(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	minutes := float64(ticks) / 64 / 60
	t.Logf("%d ticks replayed, %d hashes equal, end %q; %d bytes, %d after the header: %.0f bytes per player-minute",
		rep.Ticks, rep.Checked, rep.End, len(b), len(b)-headerBytes(t, b), float64(len(b)-headerBytes(t, b))/(4*minutes))
	if rep.Err != nil || rep.Mismatch != nil {
		t.Fatalf("replay: %v %v", rep.Err, rep.Mismatch)
	}
	if rep.Ticks != ticks || rep.Checked != int(ticks/DefaultHashEvery) || rep.End != "the match ended" {
		t.Fatalf("replayed %d ticks with %d hashes, end %q; want %d and %d", rep.Ticks, rep.Checked, rep.End, ticks, ticks/DefaultHashEvery)
	}
	var kinds [KindEnd + 1]int
	dc := NewDecoder(rec)
	for {
		ev, err := dc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds[ev.Kind]++
		if ev.Kind == KindTick && ev.Reload != nil {
			kinds[0]++ // the reloads
		}
	}
	t.Logf("events: %d joins, %d leaves, %d messages, %d chat lines, %d round trips, %d reloads", kinds[KindJoin], kinds[KindLeave], kinds[KindMessage], kinds[KindChat], kinds[KindRoundTrip], kinds[0])
	if kinds[KindJoin] != 5 || kinds[KindLeave] != 1 || kinds[KindChat] != 1 || kinds[0] != 1 {
		t.Errorf("the recording holds %d joins, %d leaves, %d chat lines, %d reloads; want 5, 1, 1, 1", kinds[KindJoin], kinds[KindLeave], kinds[KindChat], kinds[0])
	}
}

// TestTruncatedRecordingPlaysToItsLastWholeRecord cuts a recording inside
// a record: it reads as torn, and plays every tick of the records before
// the cut, their hashes equal.
func TestTruncatedRecordingPlaysToItsLastWholeRecord(t *testing.T) {
	b := arenaMatch(t, 12*64, Config{})
	whole, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	// Cut halfway through the record that follows the header's sixth.
	off := headerBytes(t, b)
	for range 6 {
		_, n, _ := nextRecord(b[off:])
		off += n
	}
	_, n, _ := nextRecord(b[off:])
	cut := b[:off+n/2]
	rec, err := Parse(cut)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Torn || rec.TornAt != off || rec.Records() != 6 {
		t.Fatalf("cut at %d of %d: torn %v at %d with %d records; want torn at %d with 6 (of %d)", len(cut), len(b), rec.Torn, rec.TornAt, rec.Records(), off, whole.Records())
	}
	rep, err := Play(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cut at byte %d of %d: %d ticks replayed, %d hashes equal", len(cut), len(b), rep.Ticks, rep.Checked)
	// Every record holds a second of ticks.
	if rep.Err != nil || rep.Mismatch != nil || rep.Ticks != 6*64 || rep.Checked != 6*64/DefaultHashEvery || rep.End != "" {
		t.Fatalf("replay of the cut file: %d ticks, %d hashes, end %q, %v %v; want %d ticks", rep.Ticks, rep.Checked, rep.End, rep.Err, rep.Mismatch, 6*64)
	}
	// A flipped byte in a record is damage too: the file ends before it.
	bad := append([]byte(nil), b...)
	bad[off+n/2] ^= 0x40
	if rec, err := Parse(bad); err != nil || !rec.Torn || rec.Records() != 6 {
		t.Fatalf("a damaged record: %v, torn %v, %d records", err, rec != nil && rec.Torn, rec.Records())
	}
}

// TestChangedScriptsReportTheFirstTickOfDifference replays a recording on
// a copy of the arena whose walker runs slower than its command asks: the replay
// reports the first tick whose world differs, with every tick before it
// equal (a hash every tick here), and playing the recording's own files
// to that tick finds it equal.
func TestChangedScriptsReportTheFirstTickOfDifference(t *testing.T) {
	b := arenaMatch(t, 10*64, Config{HashEvery: 1})
	rec, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	dir := slowerArena(t)
	p, err := project.LoadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Play(rec, PlayConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mismatch == nil {
		t.Fatalf("the changed scripts replayed %d ticks with every hash equal", rep.Ticks)
	}
	m := rep.Mismatch
	t.Logf("changed scripts: %v", m)
	if m.LastGood != m.Tick-1 || m.Tick < 2 {
		t.Fatalf("mismatch at tick %d after tick %d was equal; want the tick after the last equal one", m.Tick, m.LastGood)
	}
	// The change cannot show before a player's command first runs (it
	// shows once the slower character's speed tops out).
	dc := NewDecoder(rec)
	firstRun := uint32(0)
	for firstRun == 0 {
		ev, err := dc.Next()
		if err != nil {
			t.Fatalf("no command runs: %v", err)
		}
		for _, c := range ev.Commands {
			if ev.Kind == KindTick && c.Command.Axes[0] != 0 {
				firstRun = ev.Tick
			}
		}
	}
	if m.Tick < firstRun {
		t.Fatalf("the difference shows at tick %d, before the first command runs at tick %d", m.Tick, firstRun)
	}
	pl, err := NewPlayer(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	if err := pl.PlayTo(m.Tick); err != nil {
		t.Fatalf("the recording's own files to tick %d: %v", m.Tick, err)
	}
	if pl.Checked != int(m.Tick) {
		t.Fatalf("the recording's own files checked %d hashes to tick %d", pl.Checked, m.Tick)
	}
}

// slowerArena copies the arena's folder to a temporary one and changes its
// walker.lua: a character runs at nine tenths of the speed its command
// asks for.
func slowerArena(t testing.TB) string {
	t.Helper()
	dir := copyArena(t)
	walker := filepath.Join(dir, "scripts", "walker.lua")
	src, err := os.ReadFile(walker)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "self:move(run)", "self:move(run * 0.9)", 1)
	if changed == string(src) {
		t.Fatal("walker.lua has no self:move(run) to change")
	}
	if err := os.WriteFile(walker, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyArena copies the arena's folder to a temporary one.
func copyArena(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "arena")
	if err := os.CopyFS(dir, os.DirFS("../../projects/arena")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestJumpLandsWhereThePlayGoes jumps to the middle of a recording
// (PlayTo) and compares the world with one played there a tick at a time:
// the same hash, and the recorded hash at that tick.
func TestJumpLandsWhereThePlayGoes(t *testing.T) {
	b := arenaMatch(t, 8*64, Config{})
	rec, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	mid := uint32(4*64 + 3)
	jump, err := NewPlayer(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer jump.Close()
	if err := jump.PlayTo(mid); err != nil {
		t.Fatal(err)
	}
	step, err := NewPlayer(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer step.Close()
	for step.Tick() < mid {
		if err := step.Step(); err != nil {
			t.Fatal(err)
		}
	}
	hj, hs := WorldHash(jump.Game()), WorldHash(step.Game())
	t.Logf("tick %d: jumped %016x, stepped %016x", mid, hj, hs)
	if jump.Tick() != mid || hj != hs {
		t.Fatalf("jumped to tick %d with hash %016x; stepped to %d with %016x", jump.Tick(), hj, step.Tick(), hs)
	}
	// On to the next recorded hash, both agree with the match.
	next := (mid/DefaultHashEvery + 1) * DefaultHashEvery
	for _, pl := range []*Player{jump, step} {
		if err := pl.PlayTo(next); err != nil || pl.LastGood != next {
			t.Fatalf("to tick %d: %v, last equal hash at %d", next, err, pl.LastGood)
		}
	}
}

// TestRecordingStopsAtItsBound records into a small bound: the file stays
// under it, ends with a record saying why, and what it holds replays.
func TestRecordingStopsAtItsBound(t *testing.T) {
	const bound = 20 << 10
	b := arenaMatch(t, 12*64, Config{MaxBytes: bound})
	if len(b) > bound {
		t.Fatalf("%d bytes past the bound of %d", len(b), bound)
	}
	rec, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Play(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bound %d: %d bytes, %d ticks replayed, end %q", bound, len(b), rep.Ticks, rep.End)
	if rep.Err != nil || rep.Mismatch != nil || rep.Ticks == 0 || rep.Ticks >= 12*64 || !strings.Contains(rep.End, "bound") {
		t.Fatalf("replay of the bounded file: %d ticks, end %q, %v %v", rep.Ticks, rep.End, rep.Err, rep.Mismatch)
	}
}

// TestNotARecording: a file that is not one is refused by name.
func TestNotARecording(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello"), append(Magic[:7:7], 9)} {
		if _, err := Parse(b); err == nil {
			t.Errorf("%q parsed", b)
		} else if !strings.Contains(err.Error(), "record") {
			t.Errorf("%q: %v", b, err)
		}
	}
	_, err := Parse(append(Magic[:], 5, 0, 0, 0, 0))
	if !errors.Is(err, errCorrupt) {
		t.Errorf("a damaged header: %v", err)
	}
}

// TestReplayReports plays a recording file as vkmd replay and client
// FILE.vkmrec --headless do: the summary and every hash equal; stopped at a
// tick with the world dumped; and on changed scripts, the first
// difference, which is the error.
func TestReplayReports(t *testing.T) {
	path := writeTemp(t, arenaMatch(t, 6*64, Config{HashEvery: 1}))
	var out strings.Builder
	var sum Summary
	if err := Replay(path, &out, Options{Summary: &sum}); err != nil {
		t.Fatalf("%v\n%s", err, &out)
	}
	if sum.Ticks != 384 || sum.Checked != 384 || sum.Desync != nil || sum.End != "the match ended" || sum.Project != "arena" {
		t.Errorf("summary %+v", sum)
	}
	t.Logf("whole:\n%s", &out)
	if !strings.Contains(out.String(), "played 384 ticks") || !strings.Contains(out.String(), "every one of 384 world hashes equal; end: the match ended") {
		t.Errorf("the whole replay says:\n%s", &out)
	}
	out.Reset()
	if err := Replay(path, &out, Options{Until: 200, Dump: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"played 200 ticks", "tick 200\nworld hash ", `player 1 "bot1" entity `, "  Health hp 100", "body dynamic mass "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the dump at tick 200 has no %q:\n%s", want, &out)
		}
	}
	dir := slowerArena(t)
	out.Reset()
	err := Replay(path, &out, Options{ProjectDir: dir, Summary: &sum})
	var m *Mismatch
	if !errors.As(err, &m) || !strings.Contains(out.String(), "DESYNC at tick ") || sum.Desync == nil || sum.Desync.Tick != m.Tick {
		t.Fatalf("changed scripts: %v\n%s", err, &out)
	}
	t.Logf("changed scripts:\n%s", &out)
}

// TestCoinsMatchWithMessagesReplays records the coins game, whose
// runners buy a boost with a message (net.send) their player's end sends
// when the boost button goes down: a full client playing a wander bot
// sends some, and the replay hands each to the server's scripts at the
// same point of the match, every hash equal.
func TestCoinsMatchWithMessagesReplays(t *testing.T) {
	p, err := project.LoadProject("../../projects/coins")
	if err != nil {
		t.Fatal(err)
	}
	m := newMatch(t, p, nil, Config{HashEvery: 4})
	m.join(false, 21)
	m.join(true, 22)
	m.join(false, 23)
	m.run(8 * 64)
	if err := m.rec.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := Parse(m.out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	messages := 0
	dc := NewDecoder(rec)
	for {
		ev, err := dc.Next()
		if err != nil {
			break
		}
		if ev.Kind == KindMessage {
			messages++
		}
	}
	rep, err := Play(rec, PlayConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("coins: %d bytes, %d messages; %d ticks replayed, %d hashes equal", m.out.Len(), messages, rep.Ticks, rep.Checked)
	if messages == 0 {
		t.Fatal("the recording holds no message")
	}
	if rep.Err != nil || rep.Mismatch != nil || rep.Ticks != 8*64 || rep.Checked != 8*64/4 {
		t.Fatalf("replay: %d ticks, %d hashes, %v %v", rep.Ticks, rep.Checked, rep.Err, rep.Mismatch)
	}
}
