package lan

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestRequestRoundTrip(t *testing.T) {
	b := AppendRequest(nil, 0x0123456789abcdef)
	if len(b) != RequestSize {
		t.Fatalf("request is %d bytes, want %d", len(b), RequestSize)
	}
	n, err := ParseRequest(b)
	if err != nil || n != 0x0123456789abcdef {
		t.Fatalf("ParseRequest = %x, %v", n, err)
	}
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"short", b[:10], ErrShort},
		{"cut", b[:RequestSize-1], ErrSize},
		{"long", append(bytes.Clone(b), 0), ErrSize},
		{"magic", append([]byte("XKML"), b[4:]...), ErrMagic},
		{"version", append(append([]byte(Magic), 9), b[5:]...), ErrVersion},
		{"kind", append(append([]byte(Magic), Version, KindAnswer), b[6:]...), ErrKind},
		{"padding", append(bytes.Clone(b[:RequestSize-1]), 1), ErrPadding},
	} {
		if _, err := ParseRequest(c.b); err != c.want {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
}

func TestAnswerRoundTrip(t *testing.T) {
	a := Answer{Nonce: 7, Project: "arena", Fingerprint: 0xfeedface, Players: 3, Seats: 16, Port: 27961, Key: true}
	b := AppendAnswer(nil, a)
	got, err := ParseAnswer(b)
	if err != nil || got != a {
		t.Fatalf("ParseAnswer = %+v, %v; want %+v", got, err, a)
	}
	// A long name is cut at a character, and the answer is no larger than
	// a request.
	a.Project = strings.Repeat("é", 40)
	b = AppendAnswer(nil, a)
	if len(b) > RequestSize {
		t.Fatalf("answer of %d bytes, above a request's %d", len(b), RequestSize)
	}
	got, err = ParseAnswer(b)
	if err != nil || !strings.HasPrefix(a.Project, got.Project) || len(got.Project) < MaxName-1 {
		t.Fatalf("long name: %q, %v", got.Project, err)
	}
	good := AppendAnswer(nil, Answer{Nonce: 1, Project: "x", Port: 1})
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"short", good[:20], ErrShort},
		{"name cut", good[:len(good)-1], ErrSize},
		{"extra", append(bytes.Clone(good), 'y'), ErrSize},
		{"flags", func() []byte { b := bytes.Clone(good); b[14] = 2; return b }(), ErrFlags},
		{"control", func() []byte { b := bytes.Clone(good); b[len(b)-1] = '\n'; return b }(), ErrName},
		{"utf8", func() []byte { b := bytes.Clone(good); b[len(b)-1] = 0xff; return b }(), ErrName},
		{"request", AppendRequest(nil, 1), ErrKind},
	} {
		if _, err := ParseAnswer(c.b); err != c.want {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
}

func TestLimiterBoundsOneSource(t *testing.T) {
	l := NewLimiter()
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	n := 0
	for range 100 {
		if l.Allow(a, 0) {
			n++
		}
	}
	if n != int(l.Burst) {
		t.Fatalf("one source answered %d times in an instant, want the burst %v", n, l.Burst)
	}
	if !l.Allow(b, 0) {
		t.Fatal("another source refused")
	}
	if l.Allow(a, 100*time.Millisecond) {
		t.Fatal("answered before a token came back")
	}
	if !l.Allow(a, 300*time.Millisecond) {
		t.Fatal("not answered once a token came back")
	}
	// The table of sources stays bounded.
	l.MaxSources = 10
	for i := range 50 {
		l.Allow(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}), time.Second)
	}
	if len(l.src) > 10 {
		t.Fatalf("%d sources remembered, above 10", len(l.src))
	}
}

func FuzzParse(f *testing.F) {
	f.Add(AppendRequest(nil, 42))
	f.Add(AppendAnswer(nil, Answer{Nonce: 42, Project: "arena", Players: 1, Seats: 8, Port: 27960}))
	f.Add(AppendAnswer(nil, Answer{Nonce: 1, Project: strings.Repeat("n", 60), Port: 9, Key: true}))
	f.Add([]byte("VKML"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := ParseRequest(b); err == nil {
			if !bytes.Equal(AppendRequest(nil, n), b) {
				t.Fatalf("request %x does not encode back", b)
			}
		}
		if a, err := ParseAnswer(b); err == nil {
			if len(b) > RequestSize {
				t.Fatalf("answer of %d bytes accepted", len(b))
			}
			if !bytes.Equal(AppendAnswer(nil, a), b) {
				t.Fatalf("answer %x does not encode back", b)
			}
		}
	})
}
