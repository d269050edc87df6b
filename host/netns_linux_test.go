package host

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"vkm/host/bot"
	"vkm/host/lan"
)

// The tests here build a network of their own: the test binary runs
// itself again in a new user and network namespace (unshare -rn), where
// it may make namespaces, veth pairs and nftables rules without
// privilege on the machine, and none of it outlives the test. They skip,
// saying why, where that cannot be done (no unshare, ip or nft; user
// namespaces turned off).

// sandboxEnv names the test the re-run binary is to run inside its
// namespace.
const sandboxEnv = "VKM_NETNS_SANDBOX"

// inSandbox reports whether this process is the test's re-run inside
// its own namespace. Outside, it runs the test there, reports its
// output, and returns false.
func inSandbox(t *testing.T, tools ...string) bool {
	t.Helper()
	if os.Getenv(sandboxEnv) == t.Name() {
		return true
	}
	for _, tool := range append([]string{"unshare"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on this machine (apt-get install util-linux iproute2 nftables): %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*testDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-rn", os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), sandboxEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil && strings.HasPrefix(text, "unshare:") {
		t.Skipf("cannot make a user and network namespace here: %s", strings.TrimSpace(strings.SplitN(text, "\n", 2)[0]))
	}
	t.Logf("inside its own network namespace:\n%s", text)
	if err != nil {
		t.Fatalf("the test inside the namespace failed: %v", err)
	}
	if strings.Contains(text, "--- SKIP") {
		t.Skip("skipped inside the namespace")
	}
	return false
}

// run runs a command and fails the test with its output if it fails.
func run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// netns is a network namespace inside the test's, held by a thread that
// waits in it until the test ends.
type netns struct {
	tid  int
	path string // its /proc path, for nsenter and setns
}

// newNetns makes a network namespace.
func newNetns(t *testing.T) *netns {
	t.Helper()
	got := make(chan *netns, 1)
	errs := make(chan error, 1)
	end := make(chan struct{})
	t.Cleanup(func() { close(end) })
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errs <- err
			return
		}
		tid := unix.Gettid()
		got <- &netns{tid: tid, path: fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), tid)}
		<-end
	}()
	select {
	case ns := <-got:
		return ns
	case err := <-errs:
		t.Skipf("cannot make a second network namespace: %v", err)
	}
	return nil
}

// sh runs a shell script inside ns.
func (ns *netns) sh(t *testing.T, stdin, script string) string {
	t.Helper()
	return run(t, stdin, "nsenter", "--net="+ns.path, "sh", "-ec", script)
}

// goIn runs fn on a goroutine whose thread has moved into ns, so every
// socket fn opens is in ns. The thread ends with the goroutine.
func (ns *netns) goIn(t *testing.T, fn func()) {
	t.Helper()
	fd, err := unix.Open(ns.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := unix.Setns(fd, unix.CLONE_NEWNET)
		unix.Close(fd)
		started <- err
		if err == nil {
			fn()
		}
	}()
	if err := <-started; err != nil {
		t.Fatalf("setns: %v", err)
	}
}

// vethPair joins this namespace (10.77.0.1/24 on vo) and ns (10.77.0.2/24
// on vi) with a veth pair, each with its default route through it.
func vethPair(t *testing.T, ns *netns) {
	t.Helper()
	run(t, "", "ip", "link", "set", "lo", "up")
	run(t, "", "ip", "link", "add", "vo", "type", "veth", "peer", "name", "vi", "netns", strconv.Itoa(ns.tid))
	run(t, "", "ip", "addr", "add", "10.77.0.1/24", "dev", "vo")
	run(t, "", "ip", "link", "set", "vo", "up")
	run(t, "", "ip", "route", "add", "default", "dev", "vo")
	ns.sh(t, "", "ip link set lo up; ip addr add 10.77.0.2/24 dev vi; ip link set vi up; ip route add default dev vi")
}

// firewall is the server's namespace's nftables rules: no datagram comes
// in unless it answers one the namespace sent (conntrack), as behind a
// home router with no port forwarded; what it drops is counted.
const firewall = `table inet wall {
	chain input {
		type filter hook input priority 0; policy accept;
		iif lo accept
		ct state established,related accept
		counter drop
	}
}
`

// A server in a namespace whose firewall lets no datagram in is reached
// only through the relay: a client joining its address directly is
// never seated (the firewall drops its datagrams), and one joining by
// code plays, 3 s (20 s with VKM_LONG=1) with no snapshot that fails to
// decode.
func TestJoinCodeThroughFirewall(t *testing.T) {
	if !inSandbox(t, "ip", "nft", "nsenter") {
		return
	}
	srvNS := newNetns(t)
	vethPair(t, srvNS)
	srvNS.sh(t, firewall, "nft -f -")
	relayAt, stopRelay := runRelayAt(t, nil, "10.77.0.1:0", nil)
	defer stopRelay()
	ctx, cancel := context.WithTimeout(context.Background(), 2*testDeadline)
	defer cancel()
	codes := make(chan string, 1)
	ready := make(chan netip.AddrPort, 1)
	served := make(chan error, 1)
	srvNS.goIn(t, func() {
		_, err := Serve(ctx, ServeConfig{Project: loadArena(t), Addr: "10.77.0.2:0", Insecure: true, Relay: relayAt, Logger: testLogger(t),
			JoinCode: func(c string) { codes <- c }, Ready: func(a netip.AddrPort) { ready <- a }})
		served <- err
	})
	var direct netip.AddrPort
	select {
	case direct = <-ready:
	case err := <-served:
		t.Fatalf("the server did not start: %v", err)
	}
	code := <-codes
	p := loadArena(t)
	rep, err := Play(ctx, PlayConfig{Project: p, Connect: direct.String(), Duration: 2 * time.Second})
	if err == nil && rep.State == "playing" {
		t.Fatalf("a client joined %v directly through the firewall", direct)
	}
	dropped := srvNS.sh(t, "", "nft list chain inet wall input")
	if !strings.Contains(dropped, "counter packets") || strings.Contains(dropped, "counter packets 0 ") {
		t.Fatalf("the firewall dropped nothing:\n%s", dropped)
	}
	b, err := bot.New("wander", 7, len(p.Axes), len(p.Buttons))
	if err != nil {
		t.Fatal(err)
	}
	play := 3 * time.Second
	if os.Getenv("VKM_LONG") != "" {
		play = 20 * time.Second
	}
	rep, err = Play(ctx, PlayConfig{Project: p, Connect: code, Input: b, Duration: play})
	if err != nil {
		t.Fatal(err)
	}
	if rep.State != "playing" || rep.BadSnapshots != 0 {
		t.Fatalf("through the relay: %+v", rep)
	}
	t.Logf("direct to %v: not seated; by %s: %s, %d ticks, %d corrections, %d bad snapshots; the firewall: %s",
		direct, code, rep.State, rep.Ticks, rep.Corrections, rep.BadSnapshots, strings.Join(strings.Fields(dropped), " "))
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// Two servers of one project in another namespace, across a veth pair:
// the second takes the port after the project's, and a player's LAN
// search (the broadcast client --lan sends) finds both.
func TestLANAcrossVeth(t *testing.T) {
	if !inSandbox(t, "ip", "nsenter") {
		return
	}
	srvNS := newNetns(t)
	vethPair(t, srvNS)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	p := loadArena(t)
	var ports []uint16
	done := make(chan error, 2)
	for range 2 {
		ready := make(chan netip.AddrPort, 1)
		srvNS.goIn(t, func() {
			_, err := Serve(ctx, ServeConfig{Project: p, Insecure: true, LAN: lan.Port, Logger: testLogger(t),
				Ready: func(a netip.AddrPort) { ready <- a }})
			done <- err
		})
		select {
		case a := <-ready:
			ports = append(ports, a.Port())
		case err := <-done:
			t.Fatalf("a server did not start: %v", err)
		}
	}
	if ports[0] != uint16(p.Port) || ports[1] != uint16(p.Port+1) {
		t.Errorf("the servers took ports %v, want %d and the next", ports, p.Port)
	}
	games, err := SearchLAN(ctx, lan.Port, time.Second, LANTargets)
	if err != nil {
		t.Fatal(err)
	}
	found := map[netip.AddrPort]bool{}
	for _, g := range games {
		t.Logf("found %v: %s %d/%d", g.Addr, g.Project, g.Players, g.Seats)
		if g.Project == p.Name {
			found[g.Addr] = true
		}
	}
	for _, port := range ports {
		if at := netip.AddrPortFrom(netip.MustParseAddr("10.77.0.2"), port); !found[at] {
			t.Errorf("the search across the veth pair did not find %v", at)
		}
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
