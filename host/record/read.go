package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"vkm/host/session"
)

// Recording is a recording's file as read: its header and its whole
// records. A file cut short, or whose last record is damaged (a crash
// while it was written), still reads: Torn says so, and the records
// before the damage are kept.
type Recording struct {
	Header *Header
	// records are the payloads after the header's, checked.
	records [][]byte
	// Torn is set when the file ends in a record that is short or fails
	// its checksum; TornAt is that record's offset, and Size the file's.
	Torn   bool
	TornAt int
	Size   int
}

// ReadFile reads the recording at path (Parse).
func ReadFile(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse reads a recording's records from b, checking each one's length
// and checksum. The header must be whole; a later record that is not ends
// the recording there (Torn), so that a file a crash cut short plays up to
// its last whole record. The records alias b.
func Parse(b []byte) (*Recording, error) {
	if len(b) < len(Magic) || !bytes.Equal(b[:len(Magic)-1], Magic[:len(Magic)-1]) {
		return nil, errors.New("record: not a recording (no vkmrec magic)")
	}
	if v := b[len(Magic)-1]; v != Version {
		return nil, fmt.Errorf("record: format version %d; this build reads %d", v, Version)
	}
	r := &Recording{Size: len(b)}
	off := len(Magic)
	for off < len(b) {
		payload, n, ok := nextRecord(b[off:])
		if !ok {
			if r.Header == nil {
				return nil, corrupt("the header record is cut short or damaged")
			}
			r.Torn, r.TornAt = true, off
			break
		}
		if r.Header == nil {
			d := dec{b: payload}
			r.Header = d.header()
			if d.err != nil {
				return nil, d.err
			}
		} else {
			r.records = append(r.records, payload)
		}
		off += n
	}
	if r.Header == nil {
		return nil, corrupt("no header")
	}
	return r, nil
}

// nextRecord splits the record at the start of b: its payload and its
// whole length; ok false when it is short or its checksum fails.
func nextRecord(b []byte) (payload []byte, n int, ok bool) {
	size, k := binary.Uvarint(b)
	if k <= 0 || size > MaxRecord || uint64(len(b)-k) < 4+size {
		return nil, 0, false
	}
	sum := binary.LittleEndian.Uint32(b[k:])
	payload = b[k+4 : k+4+int(size)]
	if crc32.Checksum(payload, castagnoli) != sum {
		return nil, 0, false
	}
	return payload, k + 4 + int(size), true
}

// Records returns how many whole records follow the header.
func (r *Recording) Records() int { return len(r.records) }

// Decoder reads a recording's events in order. It keeps the seated
// players, whose commands each tick names, as the recording's joins and
// leaves seat them.
type Decoder struct {
	rec   *Recording
	next  int // the next record
	d     dec
	seats []seatState
	quiet int // ticks of a quiet run still to hand out
	tick  uint32
	ended bool
	ev    Event
	files map[string][]byte
}

// NewDecoder returns a Decoder at the start of r's events.
func NewDecoder(r *Recording) *Decoder { return &Decoder{rec: r} }

// Tick is the last tick handed out.
func (dc *Decoder) Tick() uint32 { return dc.tick }

// Next returns the next event, or io.EOF after the last one (the end
// event, or the last whole record of a torn file). An error says where the
// recording stops making sense; no event follows it.
func (dc *Decoder) Next() (*Event, error) {
	if dc.quiet > 0 {
		dc.quiet--
		return dc.quietTick(), nil
	}
	for len(dc.d.b) == 0 {
		if dc.ended || dc.next >= len(dc.rec.records) {
			return nil, io.EOF
		}
		dc.d = dec{b: dc.rec.records[dc.next]}
		dc.next++
	}
	ev, err := dc.event()
	if err != nil {
		dc.ended = true
		dc.d.b = nil
		return nil, fmt.Errorf("record %d, after tick %d: %w", dc.next, dc.tick, err)
	}
	return ev, nil
}

// quietTick is a tick in which every seated player's command is the one
// predicted.
func (dc *Decoder) quietTick() *Event {
	dc.tick++
	dc.ev = Event{Kind: KindTick, Tick: dc.tick, Commands: dc.ev.Commands[:0]}
	for i := range dc.seats {
		var c session.TickCommand
		q := dec{b: quietByte}
		q.seat(&dc.seats[i], &c)
		dc.ev.Commands = append(dc.ev.Commands, c)
	}
	return &dc.ev
}

// quietByte is a quiet player's residual.
var quietByte = []byte{0}

// event decodes the event at the reader.
func (dc *Decoder) event() (*Event, error) {
	d := &dc.d
	cmds := dc.ev.Commands[:0]
	rtts := dc.ev.RoundTrips[:0]
	dc.ev = Event{}
	ev := &dc.ev
	switch tag := d.byte1(); tag {
	case tagJoin:
		ev.Kind = KindJoin
		ev.Player = d.player()
		ev.Text = d.str()
		switch o := d.byte1(); o {
		case joinSeated:
			ev.Outcome = JoinSeated
			ev.Entity = d.id()
			if d.err != nil {
				break
			}
			i, seated := seatIndex(dc.seats, ev.Player)
			if seated || len(dc.seats) >= MaxPlayers {
				d.fail("player %d joins while seated, or past %d players", ev.Player, MaxPlayers)
				break
			}
			dc.seats = slices.Insert(dc.seats, i, seatState{player: ev.Player})
		case joinDeclined:
			ev.Outcome = JoinDeclined
		case joinFailed:
			ev.Outcome = JoinFailed
		default:
			d.fail("join outcome %d", o)
		}
	case tagLeave:
		ev.Kind = KindLeave
		ev.Player = d.player()
		if i, ok := seatIndex(dc.seats, ev.Player); ok {
			dc.seats = slices.Delete(dc.seats, i, i+1)
		} else if d.err == nil {
			d.fail("player %d leaves unseated", ev.Player)
		}
	case tagDrain:
		ev.Kind = KindDrain
		ev.Seconds = d.f64()
	case tagMessage:
		ev.Kind = KindMessage
		ev.Player = d.player()
		ev.Number = uint16(d.uvarintMax(math.MaxUint16, "message number"))
		ev.Body = d.bytes()
	case tagChat:
		ev.Kind = KindChat
		ev.Player = d.player()
		ev.Text = d.str()
	case tagRoundTrip:
		ev.Kind = KindRoundTrip
		ev.Player = d.player()
		ev.RTT = time.Duration(d.uvarintMax(math.MaxInt64, "round trip"))
	case tagTick:
		ev.Kind = KindTick
		dc.tick++
		ev.Tick = dc.tick
		head := d.byte1()
		if head&^(headReload|headRoundTrips) != 0 {
			d.fail("tick head %#x", head)
		}
		if head&headReload != 0 {
			n := d.uvarintMax(MaxReloadFiles, "reload files")
			if dc.files == nil {
				dc.files = map[string][]byte{}
			}
			clear(dc.files)
			for range n {
				name := d.str()
				dc.files[name] = d.bytes()
				if d.err != nil {
					break
				}
			}
			ev.Reload = dc.files
		}
		if head&headRoundTrips != 0 {
			n := d.uvarintMax(MaxPlayers, "round trips")
			for range n {
				rtts = append(rtts, RoundTrip{Player: d.player(), RTT: time.Duration(d.uvarintMax(math.MaxInt64, "round trip"))})
				if d.err != nil {
					break
				}
			}
			ev.RoundTrips = rtts
		}
		for i := range dc.seats {
			var c session.TickCommand
			d.seat(&dc.seats[i], &c)
			cmds = append(cmds, c)
		}
		ev.Commands = cmds
	case tagQuiet:
		n := d.uvarintMax(MaxQuiet, "quiet ticks")
		if d.err == nil && n == 0 {
			d.fail("a quiet run of no ticks")
		}
		if d.err != nil {
			break
		}
		dc.ev.Commands = cmds
		dc.quiet = int(n) - 1
		return dc.quietTick(), nil
	case tagHash:
		ev.Kind = KindHash
		ev.Tick = uint32(d.uvarintMax(math.MaxUint32, "tick"))
		ev.Hash = d.u64()
		if d.err == nil && ev.Tick != dc.tick {
			d.fail("the hash of tick %d after tick %d", ev.Tick, dc.tick)
		}
	case tagEnd:
		ev.Kind = KindEnd
		ev.Text = d.str()
		dc.ended = true
	default:
		d.fail("event tag %d", tag)
	}
	if d.err != nil {
		return nil, d.err
	}
	return ev, nil
}
