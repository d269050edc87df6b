package conformance

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"
)

// end is one end of the connection as "Data: the connection header"
// describes it: what it has sent and received, and its seal's counter.
type end struct {
	name     string
	started  bool
	nextSeq  uint16
	sentAny  bool
	lastSent uint16
	got      []uint16 // sequences accepted
	newest   uint16   // newest accepted; NoAck before any
	counter  uint64   // the next sealing counter
	key      []byte
}

// ackFields is what this end's next connection header must say.
func (e *end) ackFields() (uint16, uint32) {
	if len(e.got) == 0 {
		return NoAck, 0
	}
	var bits uint32
	for i := range 32 {
		if slices.Contains(e.got, e.newest-1-uint16(i)) {
			bits |= 1 << i
		}
	}
	return e.newest, bits
}

// send checks a Data from e: its counter, sequence and acks.
func (e *end) send(t testing.TB, n int, counter uint64, c Conn) {
	t.Helper()
	if !e.started {
		t.Errorf("datagram %d: the %s sends Data before its connection started", n, e.name)
	}
	if counter != e.counter {
		t.Errorf("datagram %d: counter %d; the %s's next is %d", n, counter, e.name, e.counter)
	}
	e.counter++
	if c.Sequence != e.nextSeq {
		t.Errorf("datagram %d: sequence %d; the %s numbers from 0 and is at %d", n, c.Sequence, e.name, e.nextSeq)
	}
	e.nextSeq = c.Sequence + 1
	if ack, bits := e.ackFields(); c.Ack != ack || c.AckBits != bits {
		t.Errorf("datagram %d: ack %d bits %#x; what the %s received gives %d and %#x", n, c.Ack, c.AckBits, e.name, ack, bits)
	}
	e.sentAny, e.lastSent = true, c.Sequence
}

// receive applies a Data at e: it refuses an ack newer than what e sent
// and a sequence not newer than the newest accepted.
func (e *end) receive(t testing.TB, n int, c Conn) {
	t.Helper()
	last := uint16(NoAck) // "before 0"
	if e.sentAny {
		last = e.lastSent
	}
	if Newer(c.Ack, last) {
		t.Errorf("datagram %d: ack %d is newer than the %s's last sent %d", n, c.Ack, e.name, last)
	}
	if len(e.got) > 0 && !Newer(c.Sequence, e.newest) {
		t.Errorf("datagram %d: sequence %d is not newer than %d", n, c.Sequence, e.newest)
	}
	e.got = append(e.got, c.Sequence)
	e.newest = c.Sequence
}

// dataTrace is the transcript's Data datagrams decoded.
type dataTrace struct {
	commands  []datagram // client Data with a command packet
	snapshots []datagram // server Data with a snapshot
	keepAlive []datagram
	conns     map[int]Conn
}

// TestTranscriptData opens every Data datagram under its direction's key,
// compares the opened bytes with the transcript's, and holds each
// connection header to the rules of "Data: the connection header".
func TestTranscriptData(t *testing.T) {
	tr := readTranscript(t)
	j := decodeJoin(t, tr)
	trace := walkData(t, tr, j)
	if len(trace.keepAlive) == 0 || len(trace.commands) == 0 || len(trace.snapshots) == 0 {
		t.Fatalf("%d keep-alives, %d command packets, %d snapshots; the transcript has one of each at least", len(trace.keepAlive), len(trace.commands), len(trace.snapshots))
	}
	first := trace.keepAlive[0]
	if !first.fromClient || first.at != j.welcomeAt {
		t.Errorf("the client's first Data goes at %v; welcomed at %v it sends at once", first.at, j.welcomeAt)
	}
	if trace.snapshots[0].at < first.at {
		t.Error("the server sends Data before the client's first Data")
	}
}

func walkData(t testing.TB, tr transcript, j join) dataTrace {
	t.Helper()
	// Both connections have started: the server's when it sent the
	// Welcome (sealed under its counter 0), the client's when it arrived.
	client := &end{name: "client", key: j.token.ClientToServer, newest: NoAck, started: true}
	server := &end{name: "server", key: j.token.ServerToClient, newest: NoAck, started: true, counter: 1}
	trace := dataTrace{conns: map[int]Conn{}}
	for _, d := range tr.datagrams[4:] {
		from, to := server, client
		if d.fromClient {
			from, to = client, server
		}
		c, counter := openData(t, d, from.key, j.welcome.Token)
		checkStatedConn(t, d, counter, c)
		from.send(t, d.n, counter, c)
		to.receive(t, d.n, c)
		trace.conns[d.n] = c
		switch {
		case len(c.Payload) == 0:
			trace.keepAlive = append(trace.keepAlive, d)
		case d.fromClient:
			trace.commands = append(trace.commands, d)
		default:
			trace.snapshots = append(trace.snapshots, d)
		}
	}
	return trace
}

// openData opens a sealed Data (46 + n bytes) and decodes its connection
// header.
func openData(t testing.TB, d datagram, key []byte, token uint64) (Conn, uint64) {
	t.Helper()
	h, err := expectKind(d.bytes, KindData)
	if err != nil {
		t.Fatalf("datagram %d: %v", d.n, err)
	}
	if h.Token != token {
		t.Errorf("datagram %d: token %#x, the seat's is %#x", d.n, h.Token, token)
	}
	counter, body, err := Open(key, d.bytes)
	if err != nil {
		t.Fatalf("datagram %d: %v", d.n, err)
	}
	if !bytes.Equal(body, d.opened) {
		t.Errorf("datagram %d opens to\n%x\nthe transcript says\n%x", d.n, body, d.opened)
	}
	c, err := ParseConn(body)
	if err != nil {
		t.Fatalf("datagram %d: %v", d.n, err)
	}
	if len(c.Payload) > MaxDataPayload {
		t.Errorf("datagram %d: a %d-byte payload, over %d", d.n, len(c.Payload), MaxDataPayload)
	}
	if want := 46 + len(c.Payload); len(d.bytes) != want {
		t.Errorf("datagram %d: %d bytes; sealed, 22 bytes of headers and %d of payload are %d", d.n, len(d.bytes), len(c.Payload), want)
	}
	return c, counter
}

// checkStatedConn compares a Data with what its comment says: "counter N",
// "seq N", "ack N", "ack bits N".
func checkStatedConn(t testing.TB, d datagram, counter uint64, c Conn) {
	t.Helper()
	got := map[string]uint64{`counter (\d+)`: counter, `seq (\d+)`: uint64(c.Sequence), `ack (\d+)`: uint64(c.Ack)}
	if statesAckBits.MatchString(d.what) {
		got[`ack bits (\d+)`] = uint64(c.AckBits)
	}
	for pat, v := range got {
		if want := num(t, stated(t, d.what, pat)); v != want {
			t.Errorf("datagram %d: %s is %d, its comment says %d", d.n, pat, v, want)
		}
	}
}

var statesAckBits = regexp.MustCompile(`ack bits \d+`)

// TestTranscriptCommands decodes the client's command packet: the values
// the doc's example gives it (first sequence 1 at client tick 1000, drawn
// tick 0 as no snapshot has arrived yet, axes {1, −0.5} with nothing held,
// then {1, 0} with button 0 held and pressed), and the packet's length by
// the sizes formula.
func TestTranscriptCommands(t *testing.T) {
	tr := readTranscript(t)
	j := decodeJoin(t, tr)
	trace := walkData(t, tr, j)
	d := trace.commands[0]
	p, err := ParsePayload(trace.conns[d.n].Payload, false)
	if err != nil || p.Flags != 0 {
		t.Fatalf("datagram %d payload: flags %#x, %v", d.n, p.Flags, err)
	}
	axes, buttons := transcriptActions(t)
	cp, err := ParseCommandPacket(p.Packet, axes, buttons)
	if err != nil {
		t.Fatalf("datagram %d: %v", d.n, err)
	}
	if len(p.Packet) != CommandPacketLen(len(cp.Commands), axes, buttons) {
		t.Errorf("%d bytes, the formula gives %d", len(p.Packet), CommandPacketLen(len(cp.Commands), axes, buttons))
	}
	checkCommandValues(t, cp)
	checkCommandClock(t, d, cp, j, trace)
}

// transcriptActions is the transcript project's axes and buttons: its
// action fingerprint is the actions vector's.
func transcriptActions(t testing.TB) (int, int) {
	t.Helper()
	a, err := ParseActions(fingerprintVectors(t, actionsWorldFile)["actions"].input)
	if err != nil {
		t.Fatal(err)
	}
	return len(a.Axes), len(a.Buttons)
}

func checkCommandValues(t *testing.T, cp CommandPacket) {
	t.Helper()
	axis := quantised{8, 1.0 / 127}
	want := []Command{
		{Axes: []uint8{uint8(axis.code(1)), uint8(axis.code(-0.5))}},
		{Axes: []uint8{uint8(axis.code(1)), uint8(axis.code(0))}, Held: 1, Pressed: 1},
	}
	if cp.FirstSequence != 1 || cp.FirstTick != 1000 || cp.DrawnTick != 0 || cp.DrawnFraction != 0 {
		t.Errorf("first %d at %d, drawn %d+%d/256; the doc says 1 at 1000, drawn 0+0/256", cp.FirstSequence, cp.FirstTick, cp.DrawnTick, cp.DrawnFraction)
	}
	if len(cp.Commands) != len(want) {
		t.Fatalf("%d commands, want %d", len(cp.Commands), len(want))
	}
	for i, c := range cp.Commands {
		if !slices.Equal(c.Axes, want[i].Axes) || c.Held != want[i].Held || c.Pressed != want[i].Pressed {
			t.Errorf("command %d is %+v, want %+v", i, c, want[i])
		}
		if c.Pressed&^c.Held != 0 {
			t.Errorf("command %d: pressed without held", i)
		}
	}
	if v := AxisValue(cp.Commands[0].Axes[1]); v > -0.5 || v < -0.51 {
		t.Errorf("axis −0.5 decodes to %v", v)
	}
}

// checkCommandClock holds the packet's ticks to "How far ahead a client
// runs" and "Command packets": a client's ticks are its own count, started
// at the Welcome's server tick, and a drawn tick of 0 (fraction 0) means
// none shown yet, as before any snapshot has arrived.
func checkCommandClock(t *testing.T, d datagram, cp CommandPacket, j join, trace dataTrace) {
	t.Helper()
	elapsed := d.at - j.welcomeAt
	// Up to 5 % fast, and one tick for where in a tick the Welcome fell.
	most := uint32(float64(elapsed)/float64(time.Second)*float64(j.welcome.TickRate)*1.05) + 1
	if err := tickWithin(cp.FirstTick, j.welcome.ServerTick, most); err != nil {
		t.Errorf("datagram %d: %v", d.n, err)
	}
	shown := false
	for _, s := range trace.snapshots {
		shown = shown || s.at < d.at
	}
	if !shown {
		if err := drawnNone(cp); err != nil {
			t.Errorf("datagram %d: %v", d.n, err)
		}
	}
}

// tickWithin says whether a client tick lies in from..from+most.
func tickWithin(tick, from, most uint32) error {
	if tick-from > most {
		return fmt.Errorf("conformance: client tick %d, %d ticks from the Welcome's server tick %d, over the %d its clock can have run", tick, int64(tick)-int64(from), from, most)
	}
	return nil
}

// drawnNone says whether a packet made before any snapshot arrived says
// so: drawn tick and fraction 0.
func drawnNone(cp CommandPacket) error {
	if cp.DrawnTick != 0 || cp.DrawnFraction != 0 {
		return fmt.Errorf("conformance: drawn tick %d+%d/256 before any snapshot arrived", cp.DrawnTick, cp.DrawnFraction)
	}
	return nil
}
