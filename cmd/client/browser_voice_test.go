//go:build browser && linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// voiceTab is one player's page in a voice test.
type voiceTab struct {
	name string
	cdp  *devtools
}

// voiceState is what a page says of its voice and its player.
type voiceState struct {
	Connected bool `json:"connected"`
	Own       *struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	} `json:"own"`
	On       bool  `json:"on"`
	Speak    bool  `json:"speak"`
	Sending  bool  `json:"sending"`
	Received int64 `json:"received"`
	Slots    []struct {
		Player int    `json:"player"`
		Name   string `json:"name"`
	} `json:"slots"`
	Status     string `json:"status"`
	Transport  string `json:"transport"`
	RTCFailure string `json:"rtcFailure"`
	// Client is the state of the page's client (its report).
	Client struct {
		State     string `json:"state"`
		LastError string `json:"last_error"`
	} `json:"client"`
	Speaking map[string]bool `json:"speaking"`
	Gains    []float64       `json:"gains"`
	Pans     []float64       `json:"pans"`
}

func (vt voiceTab) read(t *testing.T) voiceState {
	t.Helper()
	var s voiceState
	v := vt.cdp.eval(t, `JSON.stringify(window.vkm && window.vkmVoice ? {connected: vkm.connected, own: vkm.own, on: vkmVoice.on,
		speak: vkmVoice.speak, sending: vkmVoice.sending, received: vkmVoice.received, slots: vkmVoice.slots,
		speaking: vkmVoice.speaking, gains: vkmVoice.gains, pans: vkmVoice.pans,
		status: window.vkmWeb ? vkmWeb.status : '', transport: window.vkmWeb ? vkmWeb.transport : '',
		rtcFailure: window.vkmWeb ? vkmWeb.rtcFailure : '',
		client: (() => { try { return JSON.parse(vkmWeb.stats()).report; } catch (e) { return {}; } })()} : {})`)
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		t.Fatalf("%s's page %q: %v", vt.name, v, err)
	}
	return s
}

// maxJoins is how many times a voice test's page is loaded to join.
const maxJoins = 3

// join polls the page until its player has joined with voice, for at most
// within, or until its client's join has ended (refused, or disconnected
// before it was seated): it then says how. A player who was seated and
// then lost fails the test: loaded again, the page would be another
// player, at another spawn.
func (vt voiceTab) join(t *testing.T, within time.Duration) (voiceState, string) {
	t.Helper()
	deadline := time.Now().Add(within)
	seated := false
	for {
		s := vt.read(t)
		if s.Connected && s.Own != nil && s.On {
			return s, ""
		}
		seated = seated || s.Own != nil
		if s.Client.State == "refused" || s.Client.State == "disconnected" {
			if seated {
				t.Fatalf("%s's page: seated, then %s: %q", vt.name, s.Client.State, s.Client.LastError)
			}
			return s, fmt.Sprintf("%s: %q", s.Client.State, s.Client.LastError)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's page: joining with voice not within %v; it says %+v", vt.name, within, s)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
}

// until polls the page until ok, for at most within.
func (vt voiceTab) until(t *testing.T, what string, within time.Duration, ok func(voiceState) bool) voiceState {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := vt.read(t)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's page: %s not within %v; it says %+v", vt.name, what, within, s)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
}

// received counts the audio packets the page's voice slots have received,
// read from its peer connection now (vkmVoice.received is read every
// 250 ms, later still on a busy machine).
func (vt voiceTab) received(t *testing.T) int64 {
	t.Helper()
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	vt.cdp.call(t, "Runtime.evaluate", map[string]any{"awaitPromise": true, "returnByValue": true, "expression": `(async () => {
		const v = vkmWeb.voice;
		let n = 0;
		(await v.pc.getStats()).forEach((s) => {
			if (s.type === 'inbound-rtp' && s.kind === 'audio' && v.slots.some((tr) => tr.mid === s.mid)) n += s.packetsReceived || 0;
		});
		return String(n);
	})()`}, &r)
	n, err := strconv.ParseInt(r.Result.Value, 10, 64)
	if err != nil {
		t.Fatalf("%s's page counts %q packets: %v", vt.name, r.Result.Value, err)
	}
	return n
}

// slotOf returns the slot carrying the voice named name, -1 for none.
func (s voiceState) slotOf(name string) int {
	for i, sl := range s.Slots {
		if sl.Name == name {
			return i
		}
	}
	return -1
}

// speakerOn returns the player number of the voice named name on the
// page's slots, 0 when none carries it.
func (s voiceState) speakerOn(name string) int {
	for _, sl := range s.Slots {
		if sl.Name == name {
			return sl.Player
		}
	}
	return 0
}

// voiceMatch serves a copy of the arena, changed by edit, with --web,
// --console and --admin, and opens a page for each name in turn (each seated before
// the next opens, so they are players 1, 2, 3 at spawns 1, 2, 3), with
// Chromium's fake microphone allowed. query gives each page's query.
// It returns the tabs, vkmd's console and the address of its /metrics.
func voiceMatch(t *testing.T, edit func(dir string), names []string, query func(name string) string) ([]voiceTab, io.Writer, string) {
	chrome := findChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	bin := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "vkmd"), "vkm/cmd/vkmd").CombinedOutput()
	if err != nil {
		t.Fatalf("go build vkmd: %v\n%s", err, out)
	}
	project := filepath.Join(t.TempDir(), "arena")
	if err := os.CopyFS(project, os.DirFS(filepath.Join("..", "..", "projects", "arena"))); err != nil {
		t.Fatal(err)
	}
	edit(project)
	admin := "127.0.0.1:" + freeTCPPort(t)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "vkmd"), project, "--port", freeUDPPort(t), "--web", "127.0.0.1:0", "--console", "--admin", admin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	p := &proc{lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		close(p.lines)
	}()
	m := waitLine(t, p, regexp.MustCompile(`msg="web listening" addr=(\S+)`))
	var tabs []voiceTab
	for _, name := range names {
		cdp := launchChromium(t, ctx, chrome, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required")
		cdp.call(t, "Page.enable", nil)
		url := "http://" + m[1] + "/?name=" + name + "&" + query(name)
		vt := voiceTab{name, cdp}
		// The server builds the client as it starts: long on a cold cache.
		// On a machine too busy for the page to be welcomed within the web
		// door's deadline (web.DefaultWelcomeTimeout from its offer), the
		// door closes the peer and the client's join ends; the page is
		// then loaded again, as a player would, a few times at most.
		for attempt := 1; ; attempt++ {
			cdp.call(t, "Page.navigate", map[string]any{"url": url})
			s, ended := vt.join(t, 3*time.Minute)
			if ended == "" {
				break
			}
			if attempt == maxJoins {
				t.Fatalf("%s's page: the join ended %d times, the last %s; the page says %+v", name, attempt, ended, s)
			}
			t.Logf("%s's page: the join ended %s; loading the page again", name, ended)
		}
		tabs = append(tabs, vt)
	}
	return tabs, stdin, admin
}

// freeTCPPort asks the kernel for a free loopback TCP port; vkmd binds it
// a moment later.
func freeTCPPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// forwarded reads from vkmd's /metrics how many voice packets its gateway
// had forwarded to listeners by a moment after forwarded was called. The
// server publishes its figures once a second, each read as it publishes
// them, and then observes each seated player's round trip
// (vkm_player_rtt_seconds_count grows): once that count has grown twice
// since the call, the figures shown were read after it.
func forwarded(t *testing.T, admin string) int64 {
	t.Helper()
	read := func() (observed, out int64) {
		resp, err := http.Get("http://" + admin + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		o := regexp.MustCompile(`(?m)^vkm_player_rtt_seconds_count (\d+)$`).FindSubmatch(b)
		m := regexp.MustCompile(`(?m)^vkm_web_voice_packets_out_total (\d+)$`).FindSubmatch(b)
		if o == nil || m == nil {
			t.Fatalf("vkmd's /metrics has no vkm_player_rtt_seconds_count or vkm_web_voice_packets_out_total:\n%s", b)
		}
		observed, _ = strconv.ParseInt(string(o[1]), 10, 64)
		out, _ = strconv.ParseInt(string(m[1]), 10, 64)
		return observed, out
	}
	last, _ := read()
	grew := 0
	deadline := time.Now().Add(10 * time.Second)
	for {
		time.Sleep(50 * time.Millisecond) // polling another process
		observed, out := read()
		if observed != last {
			last, grew = observed, grew+1
		}
		if grew == 2 {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("vkmd published no figures for 10 s")
		}
	}
}

// editFile replaces old with new in the project's file, once.
func editFile(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// quiet says that no tab of tabs receives a voice packet for d.
func quiet(t *testing.T, d time.Duration, tabs ...voiceTab) {
	t.Helper()
	before := make([]int64, len(tabs))
	for i, vt := range tabs {
		before[i] = vt.received(t)
	}
	time.Sleep(d) // a window in which nothing may arrive; polling another process
	for i, vt := range tabs {
		if n := vt.received(t); n != before[i] {
			t.Errorf("%s received %d voice packets in %v, want none", vt.name, n-before[i], d)
		}
	}
}

// TestBrowserVoiceNearby: three players in a project with mode = "nearby"
// and range = 10. ada (player 1, at x -16) talks with the test tone on an
// open microphone; cy (player 3, spawned at x -13) is within range and
// receives her audio packets, as its page's getStats counts them, plays
// them fainter for the distance and panned to her side, shows her
// speaking, and plays her at nothing once it mutes her on its page; bo
// (player 2, whose spawn is moved to x 0) is 16 m away and receives none,
// until ada walks right to within range. Muted from the console, ada is
// heard by nobody.
func TestBrowserVoiceNearby(t *testing.T) {
	tabs, console, admin := voiceMatch(t, func(dir string) {
		f, err := os.OpenFile(filepath.Join(dir, "project.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(f, "\n[voice]\nmode = \"nearby\"\nrange = 10\n")
		f.Close()
		editFile(t, dir, "scenes/arena.toml", "x = 16.0, y = 1.5", "x = 0.0, y = 1.5")
	}, []string{"ada", "bo", "cy"}, func(name string) string {
		if name == "ada" {
			return "voice=open&tone=1"
		}
		return "voice=off"
	})
	ada, bo, cy := tabs[0], tabs[1], tabs[2]
	// The media and the word of whose voice a slot carries take separate
	// paths (RTP, and the game's reliable channel): either may come first.
	// vkm-voice.js shows a slot's speaker speaking as it reads the
	// packets' counts, after it has been told whose the slot is.
	s := cy.until(t, "hearing ada, told it is her and showing her speaking", 20*time.Second, func(s voiceState) bool {
		return s.Received > 25 && s.slotOf("ada") >= 0 && s.Speaking[strconv.Itoa(s.speakerOn("ada"))]
	})
	a, b := ada.read(t), bo.read(t)
	t.Logf("ada at x %.1f sending %v; cy at x %.1f received %d packets; bo at x %.1f received %d", a.Own.X, a.Sending, s.Own.X, s.Received, b.Own.X, b.Received)
	if !a.Speak || !a.Sending {
		t.Fatalf("ada may speak %v, sends %v", a.Speak, a.Sending)
	}
	if b.Received != 0 || b.speakerOn("ada") != 0 {
		t.Fatalf("bo, %.1f m from ada, received %d packets (slots %+v)", b.Own.X-a.Own.X, b.Received, b.Slots)
	}
	// cy plays ada's voice from where she stands: 3 m to its left and 4 m
	// below (cy's spawn is on a ledge), 5 m of a 10 m range, so at about
	// 0.5 and panned left; and shows her speaking.
	i := s.slotOf("ada")
	if i < 0 || len(s.Gains) <= i || !(s.Gains[i] > 0.3 && s.Gains[i] < 0.8) || !(s.Pans[i] < 0) {
		t.Fatalf("cy plays ada's slot %d at gains %v, pans %v; want about 0.5, panned left", i, s.Gains, s.Pans)
	}
	adaNum := strconv.Itoa(s.speakerOn("ada"))
	if !s.Speaking[adaNum] || cy.cdp.eval(t, `String(vkmVoice.isSpeaking(vkmVoice.slots[`+strconv.Itoa(i)+`].entity, false))`) != "true" {
		t.Errorf("cy does not show ada (player %s) speaking: %v", adaNum, s.Speaking)
	}
	// cy mutes her on its page: her slot plays at 0 there.
	cy.cdp.eval(t, `vkmVoice.mute(`+adaNum+`, true); 'ok'`)
	if g := cy.read(t).Gains[i]; g != 0 {
		t.Errorf("cy muted ada and plays her at %v", g)
	}
	cy.cdp.eval(t, `vkmVoice.mute(`+adaNum+`, false); 'ok'`)
	quiet(t, time.Second, bo)

	// ada walks right until bo is within range.
	ada.cdp.key(t, "keyDown", "KeyD", "d", 68)
	walked := ada.until(t, "walking to bo", 20*time.Second, func(s voiceState) bool { return s.Own.X > b.Own.X-7 })
	ada.cdp.key(t, "keyUp", "KeyD", "d", 68)
	heard := bo.until(t, "hearing ada once she is near, and told it is her", 20*time.Second, func(s voiceState) bool {
		return s.Received > 25 && s.slotOf("ada") >= 0
	})
	t.Logf("ada walked to x %.1f; bo received %d packets", walked.Own.X, heard.Received)

	// Muted by the operator, ada is heard by nobody.
	n := heard.speakerOn("ada")
	if n == 0 {
		t.Fatalf("bo's slots do not name ada: %+v", heard.Slots)
	}
	fmt.Fprintf(console, "mute %d\n", n)
	ada.until(t, "told she may not speak", 20*time.Second, func(s voiceState) bool { return !s.Speak })
	// The gateway forwards by the new routes before ada's page is told:
	// once bo and cy have received what it forwarded until now, nothing
	// more may come, and the gateway forwards nothing more.
	out := forwarded(t, admin)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := bo.received(t) + cy.received(t)
		if n >= out {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bo and cy received %d voice packets of the %d the server forwarded", n, out)
		}
		time.Sleep(50 * time.Millisecond) // polling other processes
	}
	out, heardByAda := forwarded(t, admin), ada.received(t)
	quiet(t, 1500*time.Millisecond, bo, cy)
	if n := forwarded(t, admin); n != out {
		t.Errorf("the server forwarded %d voice packets after ada was muted (%d of them to ada)", n-out, ada.received(t)-heardByAda)
	}
}

// TestBrowserVoiceTeam: mode = "team" on a Team.id field the join handler
// sets to the player's number modulo 2: ada (1) and cy (3) are a team, bo
// (2) is not; ada talks, cy hears her and bo does not.
func TestBrowserVoiceTeam(t *testing.T) {
	tabs, _, _ := voiceMatch(t, func(dir string) {
		f, err := os.OpenFile(filepath.Join(dir, "project.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(f, "\n[voice]\nmode = \"team\"\nteam = \"Team.id\"\n")
		f.Close()
		editFile(t, dir, "scripts/main.lua", "  talk(net)\n", "  net.component(\"Team\", {{\"id\", net.int(0, 7)}})\n  talk(net)\n")
		editFile(t, dir, "scripts/join.lua", "  return spawn:spawn(\"prefabs/player.toml\", x, y)\n",
			"  local e = spawn:spawn(\"prefabs/player.toml\", x, y)\n  e:add(\"Team\", {id = player % 2})\n  return e\n")
	}, []string{"ada", "bo", "cy"}, func(name string) string {
		if name == "ada" {
			return "voice=open&tone=1"
		}
		return "voice=off"
	})
	ada, bo, cy := tabs[0], tabs[1], tabs[2]
	s := cy.until(t, "hearing ada, of its team", 20*time.Second, func(s voiceState) bool { return s.Received > 25 })
	b := bo.read(t)
	t.Logf("cy received %d packets of ada's; bo %d", s.Received, b.Received)
	if b.Received != 0 || b.speakerOn("ada") != 0 {
		t.Fatalf("bo, of the other team, received %d packets (slots %+v)", b.Received, b.Slots)
	}
	// Told over the game's reliable channel, apart from the media.
	ada.until(t, "told a slot carries cy, of her team", 20*time.Second, func(s voiceState) bool { return s.speakerOn("cy") != 0 })
	quiet(t, time.Second, bo)
}
