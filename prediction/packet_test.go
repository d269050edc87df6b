package prediction

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// arenaAxes and arenaButtons are the example game's input: run, aim x and
// aim y; jump and fire.
const (
	arenaAxes    = 3
	arenaButtons = 2
)

// randomCommand returns a command with every axis and button filled, not
// yet quantised.
func randomCommand(rng *rand.Rand) Command {
	var c Command
	for i := range c.Axes {
		c.Axes[i] = rng.Float64()*2.4 - 1.2
	}
	c.Held = rng.Uint32()
	c.Pressed = rng.Uint32()
	return c
}

// randomPacket returns a packet of n random commands.
func randomPacket(rng *rand.Rand, n int) Packet {
	p := Packet{
		FirstSeq:  1 + rng.Uint32N(1<<30),
		FirstTick: rng.Uint32(),
		DrawnTick: rng.Uint32(),
		DrawnFrac: uint8(rng.Uint32()),
	}
	for range n {
		p.Commands = append(p.Commands, randomCommand(rng))
	}
	return p
}

// quantized returns p as it reads back for a project of nAxes and
// nButtons.
func quantized(p Packet, nAxes, nButtons int) Packet {
	q := p
	q.Commands = nil
	for _, c := range p.Commands {
		q.Commands = append(q.Commands, c.Quantize(nAxes, nButtons))
	}
	return q
}

func TestPacketRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][2]int{{0, 0}, {1, 0}, {0, 1}, {arenaAxes, arenaButtons}, {5, 7}, {MaxAxes, MaxButtons}}
	var n, prefixes int
	for _, s := range shapes {
		for count := 0; count <= MaxPerPacket; count++ {
			p := randomPacket(rng, count)
			b := p.Append(nil, s[0], s[1])
			if len(b) != PacketSize(count, s[0], s[1]) {
				t.Fatalf("%v, %d commands: %d bytes, PacketSize says %d", s, count, len(b), PacketSize(count, s[0], s[1]))
			}
			var got Packet
			if err := ParsePacket(b, s[0], s[1], &got); err != nil {
				t.Fatalf("%v, %d commands: %v", s, count, err)
			}
			want := quantized(p, s[0], s[1])
			if count == 0 {
				want.Commands = got.Commands // empty either way
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%v, %d commands: read back\n%+v\nwant\n%+v", s, count, got, want)
			}
			// A second trip is exact: quantised values are fixed points.
			if b2 := got.Append(nil, s[0], s[1]); !bytes.Equal(b, b2) {
				t.Fatalf("%v, %d commands: re-encoding differs", s, count)
			}
			for i := range b {
				if ParsePacket(b[:i], s[0], s[1], &got) == nil {
					t.Fatalf("%v, %d commands: a %d-byte prefix of %d parsed", s, count, i, len(b))
				}
				prefixes++
			}
			if ParsePacket(append(b, 0), s[0], s[1], &got) == nil {
				t.Fatalf("%v, %d commands: a trailing byte parsed", s, count)
			}
			n++
		}
	}
	t.Logf("%d packets round-tripped, %d strict prefixes refused", n, prefixes)
}

// TestPacketLayout pins the wire form: one arena command packet, byte for
// byte.
func TestPacketLayout(t *testing.T) {
	p := Packet{FirstSeq: 0x01020304, FirstTick: 0x0a0b0c0d, DrawnTick: 0x11223344, DrawnFrac: 0x80,
		Commands: []Command{
			{Axes: [MaxAxes]float64{1, 0, -1}, Held: 0b01, Pressed: 0b01},
			{Axes: [MaxAxes]float64{0.5, 0, 0}, Held: 0b11},
		}}
	b := p.Append(nil, arenaAxes, arenaButtons)
	// 109 header bits + 2 × (24 + 4) = 165 bits: 21 bytes. The count (2)
	// sits in the low five bits of byte 13; the first command's run axis
	// (code 255) starts at its bit 5.
	// Checked by hand: run 1 is code 255, aim 0 code 128, -1 code 1, and
	// 0.5 rounds half away from zero to code 192 (64/127).
	const want = "04030201" + "0d0c0b0a" + "44332211" + "80" + "e21f30a080010107"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("layout\n got %s\nwant %s", got, want)
	}
	var q Packet
	if err := ParsePacket(b, arenaAxes, arenaButtons, &q); err != nil {
		t.Fatal(err)
	}
	t.Logf("arena packet of 2 commands: %d bytes; 12 commands: %d; 16: %d; widest (8 axes, 32 buttons) of 16: %d",
		len(b), PacketSize(12, arenaAxes, arenaButtons), PacketSize(16, arenaAxes, arenaButtons),
		PacketSize(16, MaxAxes, MaxButtons))
}

func TestParsePacketRefuses(t *testing.T) {
	var p Packet
	valid := func(n int) []byte {
		q := Packet{FirstSeq: 1}
		for range n {
			q.Commands = append(q.Commands, Command{Held: 1})
		}
		return q.Append(nil, arenaAxes, arenaButtons)
	}
	// A count over 16: patch the five count bits of a valid 16-command
	// packet (the length then no longer matches either, but the count is
	// refused first).
	over := valid(MaxPerPacket)
	over[13] = over[13]&^0x1f | 17
	// Non-zero padding: one command is 109 + 28 = 137 bits, 7 of padding.
	pad := valid(1)
	pad[len(pad)-1] |= 0x80
	// Sequence 0, and a run past the largest sequence.
	zero := valid(1)
	copy(zero, []byte{0, 0, 0, 0})
	wrap := valid(2)
	copy(wrap, []byte{0xff, 0xff, 0xff, 0xff})
	cases := []struct {
		name string
		b    []byte
		err  error
	}{
		{"empty", nil, nil},
		{"count 17", over, errCount},
		{"padding", pad, errPadding},
		{"seq 0", zero, errSequence},
		{"wraps", wrap, errSequence},
		{"long", append(valid(3), 0), errLength},
		{"short", valid(3)[:20], errLength},
	}
	for _, c := range cases {
		err := ParsePacket(c.b, arenaAxes, arenaButtons, &p)
		if err == nil || (c.err != nil && err != c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	// Sequence 0 is fine with no command: the packet carries acks only.
	empty := (&Packet{}).Append(nil, arenaAxes, arenaButtons)
	if err := ParsePacket(empty, arenaAxes, arenaButtons, &p); err != nil || len(p.Commands) != 0 {
		t.Errorf("an empty packet: %v, %d commands", err, len(p.Commands))
	}
	if err := ParsePacket(empty, MaxAxes+1, 0, &p); err == nil {
		t.Error("9 axes parsed")
	}
}

// TestPacketHostileValues: axes out of range are clamped by the quantiser
// (NaN reads as 0), and an edge without its button is cleared.
func TestPacketHostileValues(t *testing.T) {
	p := Packet{FirstSeq: 7, Commands: []Command{{
		Axes:    [MaxAxes]float64{5, -1e300, math.NaN(), math.Inf(1)},
		Held:    0b10,
		Pressed: 0b11, // button 0 pressed but not held; button 1 both
	}}}
	b := p.Append(nil, 4, arenaButtons)
	// Forge the same edge on the wire, past Append's clearing: the pressed
	// bits follow the held bits, which follow 4 × 8 axis bits.
	bit := headerBits + 4*8 + arenaButtons
	b[bit/8] |= 1 << (bit % 8)
	var got Packet
	if err := ParsePacket(b, 4, arenaButtons, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Commands[0]
	want := [MaxAxes]float64{1, -1, 0, 1}
	if c.Axes != want || c.Held != 0b10 || c.Pressed != 0b10 {
		t.Fatalf("read %+v, want axes %v, held 10, pressed 10", c, want)
	}
	t.Logf("axes 5, -1e300, NaN, +Inf read as %v; an edge without its button is cleared", c.Axes[:4])
}

func TestPacketAppendReusesStorage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randomPacket(rng, MaxPerPacket)
	prefix := []byte("hdr")
	buf := make([]byte, 0, 512)
	buf = append(buf, prefix...)
	out := p.Append(buf, arenaAxes, arenaButtons)
	if !bytes.HasPrefix(out, prefix) || &out[0] != &buf[:1][0] {
		t.Fatal("Append did not append in place")
	}
	var q Packet
	if err := ParsePacket(out[len(prefix):], arenaAxes, arenaButtons, &q); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		out = p.Append(buf[:0], arenaAxes, arenaButtons)
		if err := ParsePacket(out, arenaAxes, arenaButtons, &q); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Append + ParsePacket with storage to reuse: %.0f allocations, want 0", allocs)
	}
}

// FuzzParsePacket: no input panics; what parses has at most MaxPerPacket
// commands, axes in -1..1, no button past the project's and no edge without
// its button, and it encodes back to bytes of the same length that parse to
// the same packet.
func FuzzParsePacket(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][3]int{{arenaAxes, arenaButtons, 0}, {arenaAxes, arenaButtons, 2}, {arenaAxes, arenaButtons, 16}, {MaxAxes, MaxButtons, 16}, {0, 0, 1}, {1, 31, 5}} {
		p := randomPacket(rng, s[2])
		f.Add(p.Append(nil, s[0], s[1]), uint8(s[0]), uint8(s[1]))
	}
	f.Add([]byte{}, uint8(3), uint8(2))
	f.Add(bytes.Repeat([]byte{0xff}, 40), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, nAxes, nButtons uint8) {
		na, nb := int(nAxes%(MaxAxes+2)), int(nButtons%(MaxButtons+2))
		var p Packet
		if err := ParsePacket(b, na, nb, &p); err != nil {
			return
		}
		if len(p.Commands) > MaxPerPacket {
			t.Fatalf("%d commands", len(p.Commands))
		}
		for _, c := range p.Commands {
			for i, a := range c.Axes {
				if a < -1 || a > 1 || (i >= na && a != 0) {
					t.Fatalf("axis %d = %v", i, a)
				}
			}
			if c.Held&^buttonMask(nb) != 0 || c.Pressed&^c.Held != 0 {
				t.Fatalf("held %b, pressed %b", c.Held, c.Pressed)
			}
		}
		b2 := p.Append(nil, na, nb)
		if len(b2) != len(b) {
			t.Fatalf("re-encoded in %d bytes, read from %d", len(b2), len(b))
		}
		var q Packet
		if err := ParsePacket(b2, na, nb, &q); err != nil {
			t.Fatal(err)
		}
		if len(p.Commands) == 0 {
			p.Commands, q.Commands = nil, nil
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("re-encoded packet reads\n%+v\nwant\n%+v", q, p)
		}
	})
}

func BenchmarkParsePacket(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := randomPacket(rng, Redundancy)
	buf := p.Append(nil, arenaAxes, arenaButtons)
	var q Packet
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if err := ParsePacket(buf, arenaAxes, arenaButtons, &q); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(buf)), "bytes/packet")
}

func BenchmarkAppendPacket(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := randomPacket(rng, Redundancy)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.Append(buf[:0], arenaAxes, arenaButtons)
	}
}
