package browser

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// /vkm/lan lists what the search found, as JSON, to browsers on this
// machine and private networks only, and searches at most once in
// lanEvery however often it is asked.
func TestTheLANListAnswersNearbyBrowsers(t *testing.T) {
	searches := 0
	l := newLANList(func(context.Context) ([]LANGame, error) {
		searches++
		return []LANGame{{Addr: "10.0.0.4:27960", Project: "arena", Players: 1, Seats: 4}}, nil
	}, slog.New(slog.DiscardHandler))
	ask := func(remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/vkm/lan", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		return w
	}
	for _, remote := range []string{"127.0.0.1:5000", "192.168.1.20:5000", "[fd00::7]:5000", "10.1.2.3:9"} {
		w := ask(remote)
		var got struct{ Games []LANGame }
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil || len(got.Games) != 1 || got.Games[0].Project != "arena" {
			t.Fatalf("from %s: %d %s", remote, w.Code, w.Body)
		}
	}
	if searches != 1 {
		t.Errorf("4 requests at once made %d searches, want 1", searches)
	}
	for _, remote := range []string{"203.0.113.5:5000", "[2001:db8::1]:5000", "garbage"} {
		if w := ask(remote); w.Code != http.StatusForbidden {
			t.Errorf("from %s: %d, want 403", remote, w.Code)
		}
	}
}
