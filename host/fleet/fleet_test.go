package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"vkm/internal/redistest"
	"vkm/transport/token"
)

func open(t testing.TB, url string) *redis.Client {
	t.Helper()
	c, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func register(t *testing.T, rdb *redis.Client, addr string, seats int, ttl time.Duration) *Registration {
	t.Helper()
	r, err := Register(context.Background(), rdb, Server{Addr: addr, Project: "arena", Fingerprint: "ab", Protocol: 1, Seats: seats}, time.Hour, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegisterListsAndCloseRemoves(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	a := register(t, rdb, "127.0.0.1:4000", 4, TTL)
	b := register(t, rdb, "127.0.0.1:4001", 4, TTL)
	defer b.Close()
	got, err := d.Servers(context.Background(), "arena")
	if err != nil || len(got) != 2 || got[0].Addr != "127.0.0.1:4000" || got[0].Seats != 4 || got[0].Fingerprint != "ab" || got[0].Protocol != 1 {
		t.Fatalf("Servers = %+v, %v", got, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ = d.Servers(context.Background(), "arena")
	if len(got) != 1 || got[0].Addr != "127.0.0.1:4001" {
		t.Fatalf("after Close, Servers = %+v", got)
	}
	if other, _ := d.Servers(context.Background(), "other"); len(other) != 0 {
		t.Fatalf("another project lists %+v", other)
	}
}

// A server that stops refreshing leaves every answer once its TTL passes.
func TestSilentServerExpires(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	ttl := time.Second
	ctx, stop := context.WithCancel(context.Background())
	r, err := Register(ctx, rdb, Server{Addr: "127.0.0.1:4000", Project: "arena", Seats: 4}, 100*time.Millisecond, ttl)
	if err != nil {
		t.Fatal(err)
	}
	// Heartbeats keep it listed well past one TTL.
	listed := time.Now()
	for time.Since(listed) < 2*ttl {
		if got, _ := d.Servers(context.Background(), "arena"); len(got) != 1 {
			t.Fatalf("a heartbeating server dropped out: %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop() // the heartbeat stops; the entry is not removed
	<-r.done
	silent := time.Now()
	for {
		got, _ := d.Servers(context.Background(), "arena")
		if len(got) == 0 {
			break
		}
		if time.Since(silent) > ttl+300*time.Millisecond {
			t.Fatalf("still listed %v after its last heartbeat", time.Since(silent))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, time.Now().Add(time.Minute)); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("Reserve on an expired server: %v", err)
	}
}

func TestReserveFillsTheFullestFirst(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	a := register(t, rdb, "127.0.0.1:4000", 4, TTL)
	b := register(t, rdb, "127.0.0.1:4001", 4, TTL)
	defer a.Close()
	defer b.Close()
	b.SetPlayers(2)
	waitPlayers(t, d, "127.0.0.1:4001", 2)
	until := time.Now().Add(time.Minute)
	var got []string
	for range 6 {
		addr, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, until)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, addr)
	}
	want := []string{"127.0.0.1:4001", "127.0.0.1:4001", "127.0.0.1:4000", "127.0.0.1:4000", "127.0.0.1:4000", "127.0.0.1:4000"}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("reservation %d went to %s, want %s (all: %v)", i, got[i], w, got)
		}
	}
	if addr, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, until); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a seventh reservation on six free seats: %q, %v", addr, err)
	}
}

func waitPlayers(t *testing.T, d *Directory, addr string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		got, _ := d.Servers(context.Background(), "arena")
		for _, s := range got {
			if s.Addr == addr && s.Players == n {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never reported %d players", addr, n)
}

// Reservations from many clients at once (as from many lobbies) never
// exceed the seats.
func TestConcurrentReservesNeverOverfill(t *testing.T) {
	url := redistest.Start(t)
	rdb := open(t, url)
	for i := range 3 {
		defer register(t, rdb, fmt.Sprintf("127.0.0.1:%d", 4000+i), 4, TTL).Close()
	}
	var mu sync.Mutex
	per := map[string]int{}
	var wg sync.WaitGroup
	until := time.Now().Add(time.Minute)
	for l := range 4 {
		d := NewDirectory(open(t, url))
		for range 5 {
			wg.Go(func() {
				addr, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, until)
				if errors.Is(err, ErrNoSeat) {
					return
				}
				if err != nil {
					t.Errorf("lobby %d: %v", l, err)
					return
				}
				mu.Lock()
				per[addr]++
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	total := 0
	for a, n := range per {
		if n > 4 {
			t.Errorf("%s got %d reservations for 4 seats", a, n)
		}
		total += n
	}
	if total != 12 {
		t.Errorf("20 requests for 12 seats reserved %d: %v", total, per)
	}
}

// A reservation is released when its deadline passes unconfirmed, and
// consumed when the server seats a player.
func TestReservationsExpireOrAreConfirmed(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	r := register(t, rdb, "127.0.0.1:4000", 2, TTL)
	defer r.Close()
	short := time.Now().Add(200 * time.Millisecond)
	for range 2 {
		if _, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, short); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, short); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a third reservation of two seats: %v", err)
	}
	time.Sleep(time.Until(short) + 10*time.Millisecond) // the deadline is the wall clock Redis compares
	long := time.Now().Add(time.Minute)
	for range 2 {
		if _, err := d.Reserve(context.Background(), Want{Project: "arena"}, 0, long); err != nil {
			t.Fatalf("after the reservations expired: %v", err)
		}
	}
	// One player arrives: it confirms one reservation, so the seats free
	// stay none rather than going negative and staying so.
	r.SetPlayers(1)
	waitPlayers(t, d, "127.0.0.1:4000", 1)
	got, _ := d.Servers(context.Background(), "arena")
	if got[0].Reserved != 1 || got[0].Free() != 0 {
		t.Fatalf("after one join: %+v", got[0])
	}
}

func TestLobbyAnswersASeatWithAToken(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	var key token.Key
	key[0] = 7
	r := register(t, rdb, "127.0.0.1:4000", 1, TTL)
	defer r.Close()
	ts := httptest.NewServer(&Lobby{Dir: NewDirectory(rdb), Key: &key, Life: time.Minute, Anonymous: true})
	defer ts.Close()
	addr, tok, err := joinOnce(ts.URL, Want{Project: "arena"}, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if addr.String() != "127.0.0.1:4000" || tok.Protocol != token.ProtocolID("arena") {
		t.Fatalf("Join = %v, protocol %x", addr, tok.Protocol)
	}
	c, err := token.Open(&key, tok.Sealed[:], time.Now(), addr)
	if err != nil || c.Name != "ann" {
		t.Fatalf("the token opens as %+v, %v", c, err)
	}
	if _, _, err := joinOnce(ts.URL, Want{Project: "arena"}, "bob"); err == nil {
		t.Fatal("a second join of a one-seat server was answered")
	}
	if _, _, err := joinOnce(ts.URL, Want{}, "bob"); err == nil {
		t.Fatal("a join without a project was answered")
	}
}

// A lobby sends a client only to a server of its build when it names one.
func TestReserveMatchesTheBuild(t *testing.T) {
	rdb := open(t, redistest.Start(t))
	d := NewDirectory(rdb)
	defer register(t, rdb, "127.0.0.1:4000", 4, TTL).Close()
	until := time.Now().Add(time.Minute)
	for _, w := range []Want{{Project: "arena", Fingerprint: "cd"}, {Project: "arena", Protocol: 2}, {Project: "coins"}} {
		if addr, err := d.Reserve(context.Background(), w, 0, until); !errors.Is(err, ErrNoSeat) {
			t.Errorf("%+v: reserved %q, %v; want no seat", w, addr, err)
		}
	}
	for _, w := range []Want{{Project: "arena", Fingerprint: "ab", Protocol: 1}, {Project: "arena", Fingerprint: "ab"}, {Project: "arena"}} {
		if addr, err := d.Reserve(context.Background(), w, 0, until); err != nil || addr != "127.0.0.1:4000" {
			t.Errorf("%+v: reserved %q, %v", w, addr, err)
		}
	}
	var key token.Key
	ts := httptest.NewServer(&Lobby{Dir: d, Key: &key, Life: time.Minute, Anonymous: true})
	defer ts.Close()
	if _, _, err := joinOnce(ts.URL, Want{Project: "arena", Fingerprint: "cd"}, "ann"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a join for another build: %v", err)
	}
	if _, _, err := joinOnce(ts.URL, Want{Project: "arena", Fingerprint: "ab", Protocol: 1}, "ann"); err != nil {
		t.Fatal(err)
	}
}
