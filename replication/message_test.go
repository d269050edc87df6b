package replication

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// messageSchema declares buy {item: int 0..15, count: int 1..99, rush: bool}
// and aim {x: fixed -10..10 by 0.25, power: float32} and an empty ready.
func messageSchema(t testing.TB) *Schema {
	t.Helper()
	s := &Schema{}
	for _, m := range []Type{
		{Name: "buy", Fields: []Field{{"item", mustInt(t, 0, 15)}, {"count", mustInt(t, 1, 99)}, {"rush", BoolCodec()}}},
		{Name: "aim", Fields: []Field{{"x", mustFixed(t, -10, 10, 0.25)}, {"power", Float32Codec()}}},
		{Name: "ready"},
	} {
		if err := s.AddMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestMessageBodyRoundTrip(t *testing.T) {
	s := messageSchema(t)
	for _, c := range []struct {
		typ       int
		in, out   []float64
		wantBytes int
	}{
		{0, []float64{7, 3, 1}, []float64{7, 3, 1}, 2},
		{0, []float64{99, 500}, []float64{15, 99, 0}, 2},
		{1, []float64{1.3, -2.5}, []float64{1.25, -2.5}, 5},
		{2, nil, nil, 0},
	} {
		b := s.AppendMessageBody([]byte{0xAA}, c.typ, c.in)
		if b[0] != 0xAA || len(b)-1 != c.wantBytes || s.MessageBodySize(c.typ) != c.wantBytes {
			t.Fatalf("message %d of %v: % x", c.typ, c.in, b)
		}
		got, err := s.ParseMessageBody(c.typ, b[1:], nil)
		if err != nil || !slices.Equal(got, c.out) {
			t.Fatalf("message %d of %v came back %v, %v", c.typ, c.in, got, err)
		}
		for n := range len(b) - 1 {
			if _, err := s.ParseMessageBody(c.typ, b[1:1+n], nil); err == nil {
				t.Fatalf("message %d: a body of %d bytes of %d parsed", c.typ, n, len(b)-1)
			}
		}
	}
	if _, err := s.ParseMessageBody(3, nil, nil); err == nil {
		t.Fatal("an undeclared message parsed")
	}
	// buy's 12 bits leave 4 of padding, which must be zero; 15 is item's
	// top, and count 1..99 takes 7 bits of which 99+ are unused codes.
	if _, err := s.ParseMessageBody(0, []byte{0x0F, 0xF0}, nil); err == nil {
		t.Fatal("a body with padding bits set parsed")
	}
	if _, err := s.ParseMessageBody(0, []byte{0xFF, 0x07}, nil); err == nil {
		t.Fatal("a count code past the range parsed")
	}
}

func TestAddMessageRefuses(t *testing.T) {
	s := messageSchema(t)
	for _, m := range []Type{
		{Name: "buy"},
		{Name: ""},
		{Name: "x", Fields: []Field{{"a", BoolCodec()}, {"a", BoolCodec()}}},
		{Name: "y", Fields: []Field{{"a", Codec{}}}},
		{Name: "z", Fields: make([]Field, MaxMessageFields+1)},
	} {
		if err := s.AddMessage(m); err == nil {
			t.Errorf("message %q with %d fields was declared", m.Name, len(m.Fields))
		} else {
			t.Logf("%s", err)
		}
	}
	// A component may share a message's name: they are apart on the wire.
	if err := s.Add(Type{Name: "buy"}); err != nil {
		t.Fatal(err)
	}
}

func TestFingerprintCoversMessages(t *testing.T) {
	plain := (&Schema{}).Fingerprint()
	s := messageSchema(t)
	with := s.Fingerprint()
	if with == plain {
		t.Fatal("declaring messages left the fingerprint as it was")
	}
	other := messageSchema(t)
	other.Messages[2].Name = "go"
	reordered := messageSchema(t)
	reordered.Messages[0], reordered.Messages[1] = reordered.Messages[1], reordered.Messages[0]
	codec := messageSchema(t)
	codec.Messages[0].Fields[0].Codec = mustInt(t, 0, 16)
	for name, o := range map[string]*Schema{"renamed": other, "reordered": reordered, "recoded": codec} {
		if o.Fingerprint() == with {
			t.Errorf("a %s message kept the fingerprint", name)
		}
	}
	if messageSchema(t).Fingerprint() != with {
		t.Fatal("equal message sets hash apart")
	}
}

// FuzzMessageBody feeds a message body parser anything: it must not panic,
// and what it accepts writes back as the same bytes.
func FuzzMessageBody(f *testing.F) {
	s := messageSchema(f)
	f.Add(uint8(0), s.AppendMessageBody(nil, 0, []float64{7, 3, 1}))
	f.Add(uint8(1), s.AppendMessageBody(nil, 1, []float64{1, 2}))
	f.Add(uint8(2), []byte{})
	f.Add(uint8(3), []byte{1})
	f.Fuzz(func(t *testing.T, typ uint8, b []byte) {
		v, err := s.ParseMessageBody(int(typ), b, nil)
		if err != nil {
			return
		}
		if again := s.AppendMessageBody(nil, int(typ), v); !bytes.Equal(again, b) {
			t.Fatalf("message %d: % x parsed as %v, which writes % x", typ, b, v, again)
		}
	})
}

func TestDescribeListsMessages(t *testing.T) {
	d := messageSchema(t).Describe()
	t.Logf("%s", d)
	for _, want := range []string{"message 0 buy (message)", "    item   int 0..15  4 bits", "message 2 ready (message)"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe has no %q", want)
		}
	}
}
