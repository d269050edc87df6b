package host

import (
	"reflect"
	"strings"
	"testing"

	"vkm/host/admin"
	"vkm/host/netio"
	"vkm/host/session"
)

// countedWeb is a socket with a web listener's counts behind it.
type countedWeb struct {
	netio.Socket
	rep WebReport
}

func (c *countedWeb) webReport() *WebReport { r := c.rep; return &r }

// A server with a web listener says how many browser peers it has on each
// transport in its status line and in what /metrics serves, not only in
// its report.
func TestWebPeersAreCountedInTheStatusLineAndMetrics(t *testing.T) {
	p := loadArena(t)
	s, err := session.NewServer(session.ServerConfig{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	counts := admin.WebSnapshot{Peers: map[string]int{"webrtc": 2, "websocket": 1}, Connecting: map[string]int{"webrtc": 3, "websocket": 1},
		Admitted: map[string]uint64{"webrtc": 4}, Closed: map[string]uint64{"idle": 6}, Drops: 5, Refused: 3}
	sock := &countedWeb{rep: WebReport{WebSnapshot: counts, DatagramsIn: 9}}
	var line strings.Builder
	srv := &server{cfg: ServeConfig{Project: p, Status: &line}, s: s, sock: sock}
	srv.status()
	if !strings.Contains(line.String(), " web webrtc 2 websocket 1 connecting 4") {
		t.Errorf("status line %q does not count the web peers", line.String())
	}
	f := &adminFeed{s: s, web: sock.webReport}
	var snap admin.Snapshot
	f.fillSnapshot(&snap)
	if w := snap.Web; w == nil || !reflect.DeepEqual(*w, counts) {
		t.Errorf("the admin snapshot's web counts are %+v", snap.Web)
	}

	// Without a web listener, neither says anything of one.
	line.Reset()
	if srv.sock, err = netio.Listen(netio.NewLoopback(), "127.0.0.1:0", "", 0); err != nil {
		t.Fatal(err)
	}
	defer srv.sock.Close()
	srv.status()
	if strings.Contains(line.String(), "web") {
		t.Errorf("status line %q speaks of a web listener the server has not", line.String())
	}
	snap = admin.Snapshot{}
	(&adminFeed{s: s}).fillSnapshot(&snap)
	if snap.Web != nil {
		t.Errorf("the admin snapshot has web counts %+v without a web listener", snap.Web)
	}
}
