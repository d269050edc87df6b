package view

import (
	"strings"
	"testing"
)

// Each local player's input is its own: an input message for a guest
// drives only that guest, a player number out of range is the page's own,
// and a page that goes releases every player it drove.
func TestInputOfEachLocalPlayer(t *testing.T) {
	ix := newActionIndex(&arenaActions)
	in := newInputState(&arenaActions)
	page := new(int)
	for _, msg := range []string{
		`{"t":"input","axes":{"run":-1},"held":{"jump":false}}`,
		`{"t":"input","player":1,"axes":{"run":1},"held":{"jump":true}}`,
		`{"t":"input","player":3,"axes":{"run":0.5}}`,
		`{"t":"input","player":9,"held":{"fire":true}}`,
		`{"t":"input","player":1.5,"held":{"fire":true}}`,
	} {
		m, err := parseMessage([]byte(msg), ix)
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		in.apply(page, &m)
	}
	axes, held, _ := in.takeOf(0)
	if axes[0] != -1 || held[0] || !held[1] {
		t.Errorf("the own player: axes %v held %v", axes, held)
	}
	axes, held, pressed := in.takeOf(1)
	if axes[0] != 1 || !held[0] || !pressed[0] || held[1] {
		t.Errorf("guest 1: axes %v held %v pressed %v", axes, held, pressed)
	}
	if axes, _, _ := in.takeOf(3); axes[0] != 0.5 {
		t.Errorf("guest 3: axes %v", axes)
	}
	if axes, held, _ := in.takeOf(2); axes[0] != 0 || held[0] {
		t.Errorf("guest 2, never sent: axes %v held %v", axes, held)
	}
	if axes, _, _ := in.takeOf(MaxLocal); len(axes) != len(arenaActions.Axes) || axes[0] != 0 {
		t.Errorf("a player past the page's: %v", axes)
	}
	in.release(page)
	if axes, held, _ := in.takeOf(1); axes[0] != 0 || held[0] {
		t.Errorf("guest 1 after its page went: axes %v held %v", axes, held)
	}
}

// The hello tells the page how many guests it drives.
func TestHelloSaysTheGuests(t *testing.T) {
	a := arenaActions
	a.Guests = 2
	if h := string(encodeHello(&a, 0, pageHello{})); !strings.Contains(h, `"guests":2`) {
		t.Fatalf("hello %s", h)
	}
	if h := string(encodeHello(&arenaActions, 0, pageHello{})); strings.Contains(h, `"guests"`) {
		t.Fatalf("a hello without guests says %s", h)
	}
}
