package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"time"

	"vkm/host/session"
	"vkm/internal/entity"
	"vkm/prediction"
	"vkm/wire"
)

// The file: Magic, then records. A record is its payload's length (a
// uvarint), the CRC-32C of the payload (4 bytes, little-endian), and the
// payload: one or more events. The first record holds the header event
// alone. A record that is short or fails its checksum ends the file: what
// came before it plays (see Parse).

// Magic opens every recording: "vkmrec", a zero byte and the format's
// version.
var Magic = [8]byte{'v', 'k', 'm', 'r', 'e', 'c', 0, Version}

// Version is the recording format's version; a reader refuses another.
const Version = 1

// Bounds a reader holds a file to, so that a damaged or hostile file costs
// no more than a real one.
const (
	// MaxRecord is the largest record payload: the header, which carries
	// the project's archive, is the largest (project.MaxZipBytes and some).
	MaxRecord = 65 << 20
	// MaxPlayers is the most players seated at once a recording names.
	MaxPlayers = 1 << 12
	// MaxReloadFiles is the most files one reload names.
	MaxReloadFiles = 4096
	// MaxQuiet is the longest run of quiet ticks one event says.
	MaxQuiet = 1 << 16
)

// The events' tags.
const (
	tagHeader    = 1
	tagJoin      = 2
	tagLeave     = 3
	tagDrain     = 4
	tagMessage   = 5
	tagChat      = 6
	tagRoundTrip = 7
	tagTick      = 8
	tagQuiet     = 9
	tagHash      = 10
	tagEnd       = 11
)

// A tick's head byte.
const (
	headReload = 1 << iota
	headRoundTrips
)

// A seated player's residual byte in a tick: what differs from what the
// reader predicts (the last command again with no press, the client tick
// after the last, the drawn tick one tick on). Zero is a quiet player.
const (
	resAxes       = 1 << iota // a mask byte of the axes that changed, then a code byte each (0: a float64 follows)
	resHeld                   // the held buttons, a uvarint
	resPressed                // the pressed buttons, a uvarint
	resAway                   // the seat's away state turned over
	resClientTick             // the client tick's difference from the next, a zigzag varint
	resDrawn                  // the drawn tick's difference from the predicted one, in 256ths, a zigzag varint
	resDrawnRaw               // the drawn tick whole, a float64
	resDrawnSame              // the drawn tick did not move
)

// Join outcomes.
const (
	joinSeated   = 0
	joinDeclined = 1
	joinFailed   = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is what a recording says of itself before its first event.
type Header struct {
	// Project is the project's name; TickRate its tick rate; Seed the
	// seed its behaviors' math.random ran on.
	Project  string
	TickRate int
	Seed     uint64
	// SchemaFP, ActionFP and WorldFP are the fingerprints a joining
	// client is compared on (handshake.Hello): the project's replicated
	// types, its input actions and its entry scene.
	SchemaFP, ActionFP, WorldFP uint64
	// HashEvery is how many ticks apart the world's hash is written.
	HashEvery uint32
	// Started is when the match started, in Unix milliseconds.
	Started int64
	// Build is the build of vkm that recorded it (cli.Version): another
	// build may simulate differently, which a replay's hashes tell.
	Build string
	// Archive is the project folder as project.WriteZip packs it (the
	// folders it extends included): the files the match ran, whole.
	Archive []byte
}

// Event is one thing that entered the simulation, in the order it did.
type Event struct {
	Kind Kind
	// Player is who joined, left, sent, typed or has a round trip.
	Player uint16
	// Text is a joining player's name, a chat line, or why the
	// recording ended.
	Text string
	// Entity and Outcome are what the join handler gave (Outcome
	// JoinSeated), or that it declined or failed.
	Entity  entity.ID
	Outcome JoinOutcome
	// Seconds is the drain's time left.
	Seconds float64
	// Number and Body are a message's.
	Number uint16
	Body   []byte
	// RTT is a round trip the scripts read.
	RTT time.Duration
	// Tick is a hash's tick, or the tick a KindTick runs; Hash the world's
	// hash after it.
	Tick uint32
	Hash uint64
	// Reload, RoundTrips and Commands are a tick's: the files reloaded at
	// its top, the round trips its scripts read, and every seated
	// player's command in number order. They belong to the Decoder and
	// are valid until its next event.
	Reload     map[string][]byte
	RoundTrips []RoundTrip
	Commands   []session.TickCommand
}

// Kind is what an Event is.
type Kind uint8

// The kinds of Event.
const (
	KindJoin Kind = iota + 1
	KindLeave
	KindDrain
	KindMessage
	KindChat
	KindRoundTrip
	KindTick
	KindHash
	KindEnd
)

var kindNames = [...]string{"", "join", "leave", "drain", "message", "chat", "round trip", "tick", "hash", "end"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// JoinOutcome is what a join handler did.
type JoinOutcome uint8

// The outcomes of a join.
const (
	JoinSeated JoinOutcome = iota
	JoinDeclined
	JoinFailed
)

// RoundTrip is one player's round trip.
type RoundTrip struct {
	Player uint16
	RTT    time.Duration
}

// seatState is what the writer and the reader both keep of one seated
// player, to predict the next tick's command from.
type seatState struct {
	player     uint16
	cmd        prediction.Command
	clientTick uint32
	away       bool
	drawn      bool    // the server holds a drawn tick for the player
	drawnAt    float64 // and this is it
}

// drawn256 returns d in 256ths of a tick, when it is a whole number of
// them that a float64 holds exactly.
func drawn256(d float64) (int64, bool) {
	x := d * 256
	if !(math.Abs(x) < 1<<52) || x != math.Trunc(x) || x == 0 && math.Signbit(x) {
		return 0, false
	}
	return int64(x), true
}

// errCorrupt is every decoding error's root.
var errCorrupt = errors.New("record: corrupt")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errCorrupt}, args...)...)
}

// --- writing ---

// enc appends a payload's fields.
type enc struct{ b []byte }

func (e *enc) byte1(v byte)     { e.b = append(e.b, v) }
func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) u64(v uint64)     { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) f64(v float64)    { e.u64(math.Float64bits(v)) }
func (e *enc) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) id(id entity.ID)  { e.uvarint(uint64(id.Slot)); e.uvarint(uint64(id.Gen)) }
func appendRecord(dst, payload []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(payload)))
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Checksum(payload, castagnoli))
	return append(dst, payload...)
}

func (e *enc) header(h *Header) {
	e.byte1(tagHeader)
	e.uvarint(Version)
	e.str(h.Project)
	e.uvarint(uint64(h.TickRate))
	e.u64(h.Seed)
	e.u64(h.SchemaFP)
	e.u64(h.ActionFP)
	e.u64(h.WorldFP)
	e.uvarint(uint64(h.HashEvery))
	e.varint(h.Started)
	e.str(h.Build)
	e.bytes(h.Archive)
}

// seat appends one seated player's residual for command c and moves st
// on to it. It returns false for a command the format cannot say (a drawn
// tick the server forgot), which ends the recording.
func (e *enc) seat(st *seatState, c *session.TickCommand) bool {
	at := len(e.b)
	e.byte1(0)
	var res byte
	if c.Away != st.away {
		res |= resAway
		st.away = c.Away
	}
	var mask byte
	for i := range prediction.MaxAxes {
		if c.Command.Axes[i] != st.cmd.Axes[i] || math.Signbit(c.Command.Axes[i]) != math.Signbit(st.cmd.Axes[i]) {
			mask |= 1 << i
		}
	}
	if mask != 0 {
		res |= resAxes
		e.byte1(mask)
		for i := range prediction.MaxAxes {
			if mask&(1<<i) == 0 {
				continue
			}
			a := c.Command.Axes[i]
			code := wire.Axis.Encode(a)
			if v := wire.Axis.Decode(code); v == a && math.Signbit(v) == math.Signbit(a) && code != 0 {
				e.byte1(byte(code))
			} else {
				e.byte1(0)
				e.f64(a)
			}
		}
	}
	if c.Command.Held != st.cmd.Held {
		res |= resHeld
		e.uvarint(uint64(c.Command.Held))
	}
	if c.Command.Pressed != 0 {
		res |= resPressed
		e.uvarint(uint64(c.Command.Pressed))
	}
	st.cmd = c.Command
	if !c.Away {
		if c.ClientTick != st.clientTick+1 {
			res |= resClientTick
			e.varint(int64(c.ClientTick) - int64(st.clientTick) - 1)
		}
		st.clientTick = c.ClientTick
	}
	switch {
	case !c.Drawn:
		if st.drawn {
			return false
		}
	case !st.drawn:
		res |= resDrawnRaw
		e.f64(c.DrawnAt)
	case st.away:
		if math.Float64bits(c.DrawnAt) != math.Float64bits(st.drawnAt) {
			res |= resDrawnRaw
			e.f64(c.DrawnAt)
		}
	case math.Float64bits(c.DrawnAt) == math.Float64bits(st.drawnAt):
		res |= resDrawnSame
	default:
		was, ok1 := drawn256(st.drawnAt)
		now, ok2 := drawn256(c.DrawnAt)
		if ok1 && ok2 {
			if d := now - was - 256; d != 0 {
				res |= resDrawn
				e.varint(d)
			}
		} else {
			res |= resDrawnRaw
			e.f64(c.DrawnAt)
		}
	}
	st.drawn, st.drawnAt = c.Drawn, c.DrawnAt
	e.b[at] = res
	return true
}

// --- reading ---

// dec reads a payload's fields; the first error sticks.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = corrupt(format, args...)
	}
}

func (d *dec) byte1() byte {
	if d.err != nil || len(d.b) < 1 {
		d.fail("short")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) uvarintMax(max uint64, what string) uint64 {
	v := d.uvarint()
	if v > max {
		d.fail("%s %d past %d", what, v, max)
		return 0
	}
	return v
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail("short")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *dec) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *dec) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail("short bytes")
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) player() uint16 {
	v := d.uvarint()
	if v == 0 || v > math.MaxUint16 {
		d.fail("player %d", v)
		return 0
	}
	return uint16(v)
}

func (d *dec) id() entity.ID {
	slot, gen := d.uvarint(), d.uvarint()
	if slot > math.MaxUint32 || gen > math.MaxUint32 {
		d.fail("entity %d:%d", slot, gen)
	}
	return entity.ID{Slot: uint32(slot), Gen: uint32(gen)}
}

func (d *dec) header() *Header {
	if d.byte1() != tagHeader {
		d.fail("the first record is not the header")
		return nil
	}
	if v := d.uvarint(); v != Version && d.err == nil {
		d.err = fmt.Errorf("record: format version %d; this build reads %d", v, Version)
		return nil
	}
	h := &Header{}
	h.Project = d.str()
	h.TickRate = int(d.uvarintMax(1024, "tick rate"))
	h.Seed = d.u64()
	h.SchemaFP, h.ActionFP, h.WorldFP = d.u64(), d.u64(), d.u64()
	h.HashEvery = uint32(d.uvarintMax(math.MaxUint32, "hash interval"))
	h.Started = d.varint()
	h.Build = d.str()
	h.Archive = d.bytes()
	if d.err == nil && (h.TickRate == 0 || len(d.b) != 0) {
		d.fail("header: tick rate %d, %d bytes after it", h.TickRate, len(d.b))
	}
	if d.err != nil {
		return nil
	}
	return h
}

// seat reads one seated player's residual into c and moves st on.
func (d *dec) seat(st *seatState, c *session.TickCommand) {
	res := d.byte1()
	if res&resAway != 0 {
		st.away = !st.away
	}
	cmd := st.cmd
	cmd.Pressed = 0
	if res&resAxes != 0 {
		mask := d.byte1()
		for i := range prediction.MaxAxes {
			if mask&(1<<i) == 0 {
				continue
			}
			if code := d.byte1(); code != 0 {
				cmd.Axes[i] = wire.Axis.Decode(uint64(code))
			} else {
				cmd.Axes[i] = d.f64()
			}
		}
	}
	if res&resHeld != 0 {
		cmd.Held = uint32(d.uvarintMax(math.MaxUint32, "held"))
	}
	if res&resPressed != 0 {
		cmd.Pressed = uint32(d.uvarintMax(math.MaxUint32, "pressed"))
	}
	st.cmd = cmd
	if !st.away {
		next := int64(st.clientTick) + 1
		if res&resClientTick != 0 {
			next += d.varint()
		}
		if next < 0 || next > math.MaxUint32 {
			d.fail("client tick %d", next)
		}
		st.clientTick = uint32(next)
	}
	switch {
	case res&resDrawnRaw != 0:
		st.drawn, st.drawnAt = true, d.f64()
	case !st.drawn || st.away || res&resDrawnSame != 0:
		if res&resDrawn != 0 {
			d.fail("a drawn tick's difference with none to differ from")
		}
	default:
		was, ok := drawn256(st.drawnAt)
		if !ok {
			d.fail("a drawn tick predicted from one that is not in 256ths")
			break
		}
		now := was + 256
		if res&resDrawn != 0 {
			now += d.varint()
		}
		st.drawnAt = float64(now) / 256
	}
	*c = session.TickCommand{Player: st.player, Command: st.cmd, Away: st.away, ClientTick: st.clientTick,
		Drawn: st.drawn, DrawnAt: st.drawnAt}
}

// seatIndex finds player among seats (kept in number order).
func seatIndex(seats []seatState, player uint16) (int, bool) {
	return slices.BinarySearchFunc(seats, player, func(s seatState, p uint16) int { return int(s.player) - int(p) })
}
