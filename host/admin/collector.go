package admin

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Snapshot is the session's cumulative figures at one moment, as the
// serving loop copied them. Every figure only grows while a server runs.
type Snapshot struct {
	Joins, Leaves uint64
	// Refusals counts the joins refused, by reason ("full", "version"...).
	Refusals map[string]uint64
	// Packets* and Bytes* count whole datagrams, headers included, every
	// one received (dropped ones too) and sent.
	PacketsIn, PacketsOut, BytesIn, BytesOut uint64
	// BadPackets are command packets that did not parse; Repeats ticks a
	// player ran dry on their last command; Skips commands dropped to keep
	// a queue shallow.
	BadPackets, Repeats, Skips uint64
	// ScriptErrors counts script errors by the behavior whose callback
	// failed, NoBehavior for those outside one (a load, a join handler).
	ScriptErrors map[string]uint64
	Reloads      uint64
	// Events counts the presentation events the game emitted, by name.
	Events map[string]uint64
	// Web is the web listener's counts; nil when the server has none.
	Web *WebSnapshot
}

// WebSnapshot is what a server's web listener (vkmd --web) carries, as
// its gateway gathers it: the browser peers open now that the vkm
// handshake has welcomed and the attempts it has not yet, by transport
// ("webrtc", "websocket"); the peers it welcomed, by transport; every
// offer and upgrade that ended, by reason; and the datagrams it dropped
// and the offers and upgrades it refused since it started. The host's
// report embeds it, hence the JSON names.
type WebSnapshot struct {
	Peers      map[string]int    `json:"peers"`
	Connecting map[string]int    `json:"connecting"`
	Admitted   map[string]uint64 `json:"admitted"`
	Closed     map[string]uint64 `json:"closed"`
	Drops      uint64            `json:"drops"`
	Refused    uint64            `json:"refused"`
}

// NoBehavior is the behavior label of a script error outside any
// behavior's callback.
const NoBehavior = "none"

// collector reports the Snapshot the loop last handed over, at scrape
// time.
type collector Admin

var _ prometheus.Collector = (*collector)(nil)

var (
	joinsDesc       = prometheus.NewDesc("vkm_joins_total", "Players seated.", nil, nil)
	leavesDesc      = prometheus.NewDesc("vkm_leaves_total", "Players gone, for any reason.", nil, nil)
	refusalsDesc    = prometheus.NewDesc("vkm_refusals_total", "Joins refused, by reason.", []string{"reason"}, nil)
	packetsInDesc   = prometheus.NewDesc("vkm_packets_received_total", "Datagrams received, dropped ones included.", nil, nil)
	packetsOutDesc  = prometheus.NewDesc("vkm_packets_sent_total", "Datagrams sent.", nil, nil)
	bytesInDesc     = prometheus.NewDesc("vkm_bytes_received_total", "Bytes of the datagrams received, headers included.", nil, nil)
	bytesOutDesc    = prometheus.NewDesc("vkm_bytes_sent_total", "Bytes of the datagrams sent, headers included.", nil, nil)
	badPacketsDesc  = prometheus.NewDesc("vkm_bad_packets_total", "Command packets from players that did not parse.", nil, nil)
	repeatsDesc     = prometheus.NewDesc("vkm_command_repeats_total", "Ticks a player's entity ran on a repeat of their last command, none having arrived.", nil, nil)
	skipsDesc       = prometheus.NewDesc("vkm_command_skips_total", "Player commands dropped to keep a command queue shallow.", nil, nil)
	scriptErrorDesc = prometheus.NewDesc("vkm_script_errors_total", "Script errors, by the behavior whose callback failed (\"none\" outside one).", []string{"behavior"}, nil)
	reloadsDesc     = prometheus.NewDesc("vkm_reloads_total", "Script reloads that took effect (dev servers).", nil, nil)
	webPeersDesc    = prometheus.NewDesc("vkm_web_peers", "Browser peers open on the web listener now that the vkm handshake has welcomed, by transport (webrtc, websocket).", []string{"transport"}, nil)
	webConnDesc     = prometheus.NewDesc("vkm_web_connecting", "Offers and WebSocket upgrades on the web listener the vkm handshake has not welcomed yet, by transport.", []string{"transport"}, nil)
	webAdmitDesc    = prometheus.NewDesc("vkm_web_admitted_total", "Browser peers the vkm handshake welcomed, by transport.", []string{"transport"}, nil)
	webClosedDesc   = prometheus.NewDesc("vkm_web_closed_total", "Offers and WebSocket upgrades that ended, turned away or closed, by reason (rate, address_cap, full, bad_request, offer_timeout, handshake_deadline, idle, client_closed, protocol, failed, shutdown).", []string{"reason"}, nil)
	webDropsDesc    = prometheus.NewDesc("vkm_web_dropped_datagrams_total", "Datagrams the web listener dropped: too large, or a reader or a peer's queue too far behind.", nil, nil)
	webRefusedDesc  = prometheus.NewDesc("vkm_web_refused_total", "Offers and WebSocket upgrades the web listener answered with an error status.", nil, nil)
	eventsDesc      = prometheus.NewDesc("vkm_events_total", "Presentation events the game emitted, by name.", []string{"name"}, nil)
)

// Describe sends the descriptions of every metric Collect reports.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{joinsDesc, leavesDesc, refusalsDesc, packetsInDesc, packetsOutDesc, bytesInDesc, bytesOutDesc,
		badPacketsDesc, repeatsDesc, skipsDesc, scriptErrorDesc, reloadsDesc, eventsDesc,
		webPeersDesc, webConnDesc, webAdmitDesc, webClosedDesc, webDropsDesc, webRefusedDesc} {
		ch <- d
	}
}

// Collect reports the last snapshot as counters.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.snap
	count := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	count(joinsDesc, s.Joins)
	count(leavesDesc, s.Leaves)
	for reason, n := range s.Refusals {
		count(refusalsDesc, n, reason)
	}
	count(packetsInDesc, s.PacketsIn)
	count(packetsOutDesc, s.PacketsOut)
	count(bytesInDesc, s.BytesIn)
	count(bytesOutDesc, s.BytesOut)
	count(badPacketsDesc, s.BadPackets)
	count(repeatsDesc, s.Repeats)
	count(skipsDesc, s.Skips)
	for behavior, n := range s.ScriptErrors {
		count(scriptErrorDesc, n, behavior)
	}
	count(reloadsDesc, s.Reloads)
	for name, n := range s.Events {
		count(eventsDesc, n, name)
	}
	if w := s.Web; w != nil {
		gauge := func(d *prometheus.Desc, byLabel map[string]int) {
			for l, n := range byLabel {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(n), l)
			}
		}
		gauge(webPeersDesc, w.Peers)
		gauge(webConnDesc, w.Connecting)
		for l, n := range w.Admitted {
			count(webAdmitDesc, n, l)
		}
		for l, n := range w.Closed {
			count(webClosedDesc, n, l)
		}
		count(webDropsDesc, w.Drops)
		count(webRefusedDesc, w.Refused)
	}
}
