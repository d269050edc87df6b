package record

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"time"

	"vkm/host/game"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/internal/cli"
	"vkm/internal/entity"
)

// Defaults of Config.
const (
	// DefaultMaxBytes bounds a recording's file: some 200 hours of a
	// four-player arena match at 64 Hz (see BENCHMARKS.md).
	DefaultMaxBytes = 256 << 20
	// DefaultHashEvery writes the world's hash every 16 ticks, a quarter
	// of a second at 64 Hz: a desync is found within that many ticks of
	// where it began, for 9 bytes each.
	DefaultHashEvery = 16
)

// Config says how a Writer records.
type Config struct {
	// MaxBytes bounds the file; past it the recording ends, saying so,
	// and the match plays on unrecorded. 0 is DefaultMaxBytes.
	MaxBytes int64
	// HashEvery is how many ticks apart the world's hash is written; 0 is
	// DefaultHashEvery.
	HashEvery uint32
	// FlushEvery is how many ticks go in one record, written as it
	// closes: what a crash can lose. 0 is the tick rate (a second).
	FlushEvery uint32
	// Started is when the match started (the header's Started).
	Started time.Time
	// Logger receives the line saying why a recording stopped early.
	Logger *slog.Logger
}

// Writer records a server's match (session.Recorder) to an io.Writer as
// it goes: the header with the project's files at once, then a record of
// events every FlushEvery ticks. It is bounded (Config.MaxBytes), and a
// write that fails stops it without stopping the match.
type Writer struct {
	w   io.Writer
	cfg Config
	log *slog.Logger

	e       enc    // the record being filled
	te      enc    // the tick being written
	out     []byte // the record being written, framed
	written int64
	seats   []seatState
	quiet   uint64 // quiet ticks not yet written

	// The tick between Tick and AfterTick: its reload and commands, and
	// the round trips its scripts read.
	inTick bool
	tick   uint32
	reload map[string][]byte
	cmds   []session.TickCommand
	rtts   []RoundTrip

	stopped string // why the recording stopped ("": it goes on)
	ticks   uint32 // ticks recorded
	names   []string
}

var _ session.Recorder = (*Writer)(nil)

// NewWriter writes g's header to w and returns the Writer that records the
// match g is about to play: hand it to the server (session.Server.Record)
// before its first tick.
func NewWriter(w io.Writer, g *game.Game, cfg Config) (*Writer, error) {
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.HashEvery == 0 {
		cfg.HashEvery = DefaultHashEvery
	}
	if cfg.FlushEvery == 0 {
		cfg.FlushEvery = uint32(g.TickRate())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var zip bytes.Buffer
	if err := project.WriteZip(&zip, g.Project()); err != nil {
		return nil, fmt.Errorf("record: the project's files: %w", err)
	}
	hello := session.Hello(g)
	h := &Header{Project: g.Project().Name, TickRate: g.TickRate(), SchemaFP: hello.SchemaFP, ActionFP: hello.ActionFP,
		WorldFP: hello.WorldFP, HashEvery: cfg.HashEvery, Started: cfg.Started.UnixMilli(), Build: cli.Version("vkm"), Archive: zip.Bytes()}
	rw := &Writer{w: w, cfg: cfg, log: cfg.Logger}
	rw.e.header(h)
	frame := append(Magic[:], appendRecord(nil, rw.e.b)...)
	rw.e.b = rw.e.b[:0]
	if int64(len(frame)) > cfg.MaxBytes {
		return nil, fmt.Errorf("record: the header alone is %d bytes, past the bound of %d", len(frame), cfg.MaxBytes)
	}
	if _, err := w.Write(frame); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	rw.written = int64(len(frame))
	return rw, nil
}

// Bytes is how many bytes have been written.
func (w *Writer) Bytes() int64 { return w.written }

// Ticks is how many ticks have been recorded.
func (w *Writer) Ticks() uint32 { return w.ticks }

// Stopped says why the recording stopped before the match ended ("": it
// has not).
func (w *Writer) Stopped() string { return w.stopped }

// Joined implements session.Recorder.
func (w *Writer) Joined(player uint16, name string, id entity.ID, failed bool) {
	if !w.between() {
		return
	}
	w.e.byte1(tagJoin)
	w.e.uvarint(uint64(player))
	w.e.str(name)
	switch {
	case failed:
		w.e.byte1(joinFailed)
	case id.IsNone():
		w.e.byte1(joinDeclined)
	default:
		w.e.byte1(joinSeated)
		w.e.id(id)
		i, _ := seatIndex(w.seats, player)
		w.seats = slices.Insert(w.seats, i, seatState{player: player})
	}
}

// Left implements session.Recorder.
func (w *Writer) Left(player uint16) {
	if !w.between() {
		return
	}
	w.e.byte1(tagLeave)
	w.e.uvarint(uint64(player))
	if i, ok := seatIndex(w.seats, player); ok {
		w.seats = slices.Delete(w.seats, i, i+1)
	}
}

// Drained implements session.Recorder.
func (w *Writer) Drained(secondsLeft float64) {
	if !w.between() {
		return
	}
	w.e.byte1(tagDrain)
	w.e.f64(secondsLeft)
}

// Message implements session.Recorder.
func (w *Writer) Message(player uint16, number uint16, body []byte) {
	if !w.between() {
		return
	}
	w.e.byte1(tagMessage)
	w.e.uvarint(uint64(player))
	w.e.uvarint(uint64(number))
	w.e.bytes(body)
}

// Chat implements session.Recorder.
func (w *Writer) Chat(player uint16, text string) {
	if !w.between() {
		return
	}
	w.e.byte1(tagChat)
	w.e.uvarint(uint64(player))
	w.e.str(text)
}

// RoundTrip implements session.Recorder: during a tick the round trip
// goes with the tick, read before it runs; between ticks it is an event of
// its own.
func (w *Writer) RoundTrip(player uint16, rtt time.Duration) {
	if w.stopped != "" {
		return
	}
	if w.inTick {
		w.rtts = append(w.rtts, RoundTrip{Player: player, RTT: rtt})
		return
	}
	w.flushQuiet()
	w.e.byte1(tagRoundTrip)
	w.e.uvarint(uint64(player))
	w.e.uvarint(uint64(max(rtt, 0)))
}

// Tick implements session.Recorder; the tick is written once it has run
// (AfterTick), with the round trips its scripts read.
func (w *Writer) Tick(tick uint32, reload map[string][]byte, cmds []session.TickCommand) {
	if w.stopped != "" {
		return
	}
	w.inTick, w.tick, w.reload = true, tick, reload
	w.cmds = append(w.cmds[:0], cmds...)
	w.rtts = w.rtts[:0]
}

// AfterTick implements session.Recorder.
func (w *Writer) AfterTick(g *game.Game) {
	if w.stopped != "" || !w.inTick {
		return
	}
	w.inTick = false
	if len(w.cmds) != len(w.seats) {
		w.stop(fmt.Sprintf("tick %d has %d commands for %d seated players", w.tick, len(w.cmds), len(w.seats)))
		return
	}
	// The tick is written apart first: a quiet one is only counted.
	t := &w.te
	t.b = t.b[:0]
	t.byte1(tagTick)
	var head byte
	if w.reload != nil {
		head |= headReload
	}
	if len(w.rtts) > 0 {
		head |= headRoundTrips
	}
	t.byte1(head)
	if w.reload != nil {
		w.names = slices.AppendSeq(w.names[:0], maps.Keys(w.reload))
		slices.Sort(w.names)
		t.uvarint(uint64(len(w.names)))
		for _, name := range w.names {
			t.str(name)
			t.bytes(w.reload[name])
		}
	}
	if len(w.rtts) > 0 {
		t.uvarint(uint64(len(w.rtts)))
		for _, r := range w.rtts {
			t.uvarint(uint64(r.Player))
			t.uvarint(uint64(max(r.RTT, 0)))
		}
	}
	seatsAt := len(t.b)
	for i := range w.cmds {
		st := &w.seats[i]
		if st.player != w.cmds[i].Player {
			w.stop(fmt.Sprintf("tick %d has a command for player %d where player %d is seated", w.tick, w.cmds[i].Player, st.player))
			return
		}
		if !t.seat(st, &w.cmds[i]) {
			w.stop(fmt.Sprintf("tick %d: player %d's drawn tick was forgotten", w.tick, st.player))
			return
		}
	}
	if head == 0 && len(t.b)-seatsAt == len(w.cmds) && !slices.ContainsFunc(t.b[seatsAt:], func(b byte) bool { return b != 0 }) {
		// Every player's command is the one predicted: the tick is one
		// more of a quiet run.
		if w.quiet++; w.quiet == MaxQuiet {
			w.flushQuiet()
		}
	} else {
		w.flushQuiet()
		w.e.b = append(w.e.b, t.b...)
	}
	w.reload = nil
	w.ticks++
	if w.tick%w.cfg.HashEvery == 0 {
		w.flushQuiet()
		w.e.byte1(tagHash)
		w.e.uvarint(uint64(w.tick))
		w.e.u64(WorldHash(g))
	}
	if w.tick%w.cfg.FlushEvery == 0 || len(w.e.b) > 1<<16 {
		w.flush()
	}
}

// between readies the record for an event between ticks: false when the
// recording has stopped.
func (w *Writer) between() bool {
	if w.stopped != "" {
		return false
	}
	w.flushQuiet()
	return true
}

// flushQuiet writes the quiet run counted so far.
func (w *Writer) flushQuiet() {
	if w.quiet == 0 {
		return
	}
	w.e.byte1(tagQuiet)
	w.e.uvarint(w.quiet)
	w.quiet = 0
}

// endReserve is room kept under the bound for the end record.
const endReserve = 128

// flush writes the record filled so far.
func (w *Writer) flush() {
	w.flushQuiet()
	if len(w.e.b) == 0 || w.stopped != "" {
		return
	}
	w.out = appendRecord(w.out[:0], w.e.b)
	w.e.b = w.e.b[:0]
	if w.written+int64(len(w.out)) > w.cfg.MaxBytes-endReserve {
		w.stop(fmt.Sprintf("the recording reached its bound of %d bytes", w.cfg.MaxBytes))
		return
	}
	w.write(w.out)
}

// write writes a framed record.
func (w *Writer) write(b []byte) {
	n, err := w.w.Write(b)
	w.written += int64(n)
	if err != nil {
		w.stopped = "writing the recording failed: " + err.Error()
		w.log.Error("recording stopped", "why", w.stopped, "ticks", w.ticks)
	}
}

// stop ends the recording early, with an end record saying why; the
// record being filled is dropped.
func (w *Writer) stop(why string) {
	if w.stopped != "" {
		return
	}
	w.e.b = w.e.b[:0]
	w.quiet = 0
	w.writeEnd("stopped: " + why)
	if w.stopped == "" {
		w.stopped = why
	}
	w.log.Error("recording stopped; the match plays on", "why", why, "ticks", w.ticks, "bytes", w.written)
}

// writeEnd writes an end record saying why.
func (w *Writer) writeEnd(why string) {
	var e enc
	e.byte1(tagEnd)
	if len(why) > endReserve/2 {
		why = why[:endReserve/2]
	}
	e.str(why)
	w.write(appendRecord(nil, e.b))
}

// Close writes what is left and the end record; the match is over.
func (w *Writer) Close() error {
	if w.stopped != "" {
		return nil
	}
	w.flush()
	if w.stopped != "" {
		return nil
	}
	w.writeEnd("the match ended")
	w.stopped = "closed"
	return nil
}
