//go:build !js

package record

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTimelinePageAnswersItsControls drives a timeline through its page's
// requests on a synthetic clock: the page itself, play moving on with the
// clock, pause, jump, step, speed, follow, a free camera, and clear
// refusals of bad controls.
func TestTimelinePageAnswersItsControls(t *testing.T) {
	tl := newTimeline(t, arenaMatch(t, 4*64, Config{}), 64)
	clock := time.Unix(0, 0)
	srv := httptest.NewServer(NewTimelineServer(tl, func() time.Time { return clock }, nil))
	defer srv.Close()
	get := func(path string) stateJSON {
		t.Helper()
		r, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var s stateJSON
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	post := func(q string, status int) stateJSON {
		t.Helper()
		r, err := http.Post(srv.URL+"/control?"+q, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		if r.StatusCode != status {
			t.Fatalf("%s: status %d, want %d", q, r.StatusCode, status)
		}
		var s stateJSON
		if status == http.StatusOK {
			if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	r, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	buf := make([]byte, 1<<16)
	n, _ := r.Body.Read(buf)
	page.Write(buf[:n])
	r.Body.Close()
	if !strings.Contains(page.String(), "vkmTimeline") {
		t.Fatal("/ is not the timeline page")
	}
	if s := get("/state"); s.Tick != 0 || s.Playing || s.Rate != 64 || len(s.Ents) == 0 {
		t.Fatalf("first state: %+v", s)
	}
	post("op=play", http.StatusOK)
	clock = clock.Add(time.Second)
	if s := get("/state"); s.Tick != 64 || !s.Playing {
		t.Fatalf("a second of play: tick %d, playing %v", s.Tick, s.Playing)
	}
	if s := post("op=pause", http.StatusOK); s.Playing {
		t.Fatal("paused, still playing")
	}
	s := post("op=jump&tick=200", http.StatusOK)
	if s.Tick != 200 || s.Hash == "" || len(s.Players) == 0 {
		t.Fatalf("jump: %+v", s)
	}
	if s := post("op=step", http.StatusOK); s.Tick != 201 {
		t.Fatalf("step: tick %d", s.Tick)
	}
	if s := post("op=speed&v=4", http.StatusOK); s.Speed != 4 {
		t.Fatalf("speed %v", s.Speed)
	}
	p := s.Players[0].Number
	if s := post("op=follow&player="+itoa(int(p)), http.StatusOK); s.Follows != p || s.Free {
		t.Fatalf("follow: %d, free %v", s.Follows, s.Free)
	}
	if s := post("op=free", http.StatusOK); !s.Free {
		t.Fatal("free camera not taken")
	}
	for _, bad := range []string{"op=fly", "op=jump&tick=x", "op=speed&v=99", "op=follow&player=-1"} {
		post(bad, http.StatusBadRequest)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
