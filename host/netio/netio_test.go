package netio

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"vkm/transport/memnet"
)

// receive waits for one datagram on s.
func receive(t *testing.T, s Socket) Datagram {
	t.Helper()
	select {
	case d, ok := <-s.Incoming():
		if !ok {
			t.Fatalf("Incoming closed: %v", s.Err())
		}
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived")
	}
	return Datagram{}
}

// A server and a client on a Loopback hear each other; an address is
// bound once, and a Loopback's addresses are IP:port.
func TestLoopbackCarriesDatagramsBothWays(t *testing.T) {
	n := NewLoopback()
	srv, err := Listen(n, "127.0.0.1:0", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := Dial(n, srv.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.WriteTo([]byte("hello"), srv.LocalAddr())
	d := receive(t, srv)
	if string(d.Bytes) != "hello" || d.From != c.LocalAddr() {
		t.Fatalf("the server heard %q from %v, want hello from %v", d.Bytes, d.From, c.LocalAddr())
	}
	srv.WriteTo([]byte("welcome"), d.From)
	if d := receive(t, c); string(d.Bytes) != "welcome" {
		t.Fatalf("the client heard %q", d.Bytes)
	}
	if _, err := Listen(n, srv.LocalAddr().String(), "", 0); err == nil {
		t.Error("two sockets bound one address")
	}
	if _, err := Dial(n, "localhost:9"); !errors.Is(err, errLoopbackAddr) {
		t.Errorf("dialling a name on the loopback: %v", err)
	}
}

// A simulated link with the perfect profile passes datagrams on, both
// ways, and Close delivers what was sent before it.
func TestSimPassesDatagramsOnAndFlushesOnClose(t *testing.T) {
	n := NewLoopback()
	srv, err := Listen(n, "127.0.0.1:0", memnet.Perfect.Name, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inner, err := Dial(n, srv.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Simulate(inner, memnet.Perfect.Name, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	c.WriteTo([]byte("one"), srv.LocalAddr())
	if d := receive(t, srv); string(d.Bytes) != "one" || d.From != inner.LocalAddr() {
		t.Fatalf("the server heard %q from %v", d.Bytes, d.From)
	}
	c.WriteTo([]byte("goodbye"), srv.LocalAddr())
	c.Close()
	if d := receive(t, srv); string(d.Bytes) != "goodbye" {
		t.Fatalf("the server heard %q after the close", d.Bytes)
	}
	if _, err := Simulate(inner, memnet.Perfect.Name, 0, false); err == nil {
		t.Error("a simulated link without a seed")
	}
}

// Pump hands each datagram to receive and runs step after it, until the
// context ends.
func TestPumpRunsAClientLoop(t *testing.T) {
	n := NewLoopback()
	srv, err := Listen(n, "127.0.0.1:0", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := Dial(n, srv.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got [][]byte
	steps := 0
	srv.WriteTo([]byte("a"), c.LocalAddr())
	srv.WriteTo([]byte("b"), c.LocalAddr())
	err = Pump(ctx, 0, c, func(d Datagram) { got = append(got, d.Bytes) },
		func(time.Duration) time.Duration {
			steps++
			if len(got) == 2 {
				cancel()
			}
			return time.Millisecond
		}, func() {})
	if err != nil || len(got) != 2 || !bytes.Equal(got[0], []byte("a")) || steps < 2 {
		t.Fatalf("err %v, got %q in %d steps", err, got, steps)
	}
}
