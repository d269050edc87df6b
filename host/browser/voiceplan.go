//go:build !js

package browser

import (
	"log/slog"
	"math"
	"net/netip"
	"slices"
	"strings"
	"time"

	"vkm/host/netio"
	"vkm/host/project"
	"vkm/host/session"
	"vkm/host/web"
	"vkm/internal/entity"
	"vkm/transport"
)

// The players' voice (project.toml's [voice]): the web gateway relays each
// browser's microphone (web.VoicePlan), and the serving loop decides, every
// voiceEvery, who may speak and who hears whom: from the seats, the mode,
// the range, the team field, the moderation's mutes and the project's
// net.voice_hears. Each listener is told whose voice its slots carry
// (session.Voice) when that changes.

// voiceEvery is how often the routes are worked out again, and so how
// often net.voice_hears is asked about each pair: a voice follows a
// player walking into range within a fifth of a second.
const voiceEvery = 200 * time.Millisecond

// voiceSeat is one seated player as the voice's rules see them.
type voiceSeat struct {
	player uint16
	addr   netip.AddrPort
	entity entity.ID
	// pos is where the player's entity stands, if it has one (placed).
	pos    entity.Vec2
	placed bool
	// team is the value of the project's team field on the entity, if
	// it has the component (onTeam).
	team   float64
	onTeam bool
	muted  bool
}

// voiceJudge is net.voice_hears: a gain and whether it decided.
type voiceJudge func(listener, speaker uint16) (float64, bool)

// maxJudgedPairs bounds the pairs net.voice_hears is asked about in one
// plan: 16 players make 240 pairs, asked about five times a second; a
// crowd's pairs are asked about in turns of this many, each pair keeping
// its last answer in between (and one not asked yet left to the mode).
const maxJudgedPairs = 1024

// judgement is net.voice_hears's last answer for a pair.
type judgement struct {
	gain    float64
	decided bool
}

// VoicePlanner keeps what the listeners were last told, so that a
// speaker keeps its slot while it is heard and a listener is sent only
// what changed.
type VoicePlanner struct {
	cfg  project.Voice
	log  *slog.Logger
	at   time.Time
	last map[uint16][session.VoiceSlots]uint16
	told map[uint16]session.Voice
	// judgeErrors counts net.voice_hears calls that failed (the pair is
	// then not heard).
	judgeErrors uint64
	players     []transport.PlayerInfo
	// judged are the last answers by pair, and turn where the next
	// plan's turn of asking starts, when the pairs are more than
	// maxJudgedPairs.
	judged map[[2]uint16]judgement
	turn   int
}

func NewVoicePlanner(cfg project.Voice, log *slog.Logger) *VoicePlanner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &VoicePlanner{cfg: cfg, log: log, last: map[uint16][session.VoiceSlots]uint16{}, told: map[uint16]session.Voice{}, judged: map[[2]uint16]judgement{}}
}

// heard is one speaker a listener hears: at what gain and how far.
type heard struct {
	seat *voiceSeat
	gain float64
	dist float64
}

// plan works out the routes for seats: the gateway's plan, and the
// message for each listener whose slots changed since the last plan.
func (vp *VoicePlanner) plan(seats []voiceSeat, judge voiceJudge) (web.VoicePlan, map[uint16]session.Voice) {
	p := web.VoicePlan{Speakers: map[netip.AddrPort]bool{}, Slots: map[netip.AddrPort][web.VoiceSlots]netip.AddrPort{}}
	changed := map[uint16]session.Voice{}
	seated := map[uint16]bool{}
	for i := range seats {
		s := &seats[i]
		seated[s.player] = true
		if !s.muted {
			p.Speakers[s.addr] = true
		}
	}
	nearby := vp.cfg.Mode == "nearby"
	// The pairs asked about this time: all of them, or the next turn.
	pairs := len(seats) * (len(seats) - 1)
	from, asked := 0, pairs
	if judge != nil && pairs > maxJudgedPairs {
		from, asked = vp.turn%pairs, maxJudgedPairs
		vp.turn = (from + asked) % pairs
	} else if judge == nil {
		clear(vp.judged)
	}
	pair := -1
	var hs []heard
	for i := range seats {
		l := &seats[i]
		hs = hs[:0]
		for j := range seats {
			s := &seats[j]
			if s == l {
				continue
			}
			pair++
			if s.muted {
				continue
			}
			h := heard{seat: s, gain: 1, dist: math.Inf(1)}
			if l.placed && s.placed {
				h.dist = math.Hypot(l.pos.X-s.pos.X, l.pos.Y-s.pos.Y)
			}
			ok := false
			if judge != nil {
				key := [2]uint16{l.player, s.player}
				jd := vp.judged[key] // a pair not asked yet: undecided
				if (pair-from+pairs)%pairs < asked {
					jd.gain, jd.decided = judge(l.player, s.player)
					vp.judged[key] = jd
				}
				if g, decided := jd.gain, jd.decided; decided {
					h.gain, ok = g, g > 0
					if ok {
						hs = append(hs, h)
					}
					continue
				}
			}
			switch vp.cfg.Mode {
			case "everyone":
				ok = true
			case "team":
				ok = l.onTeam && s.onTeam && l.team == s.team
			case "nearby":
				ok = h.dist <= vp.cfg.Range
			}
			if ok {
				hs = append(hs, h)
			}
		}
		// The nearest first (nearby), else by player number; the first
		// VoiceSlots are heard.
		slices.SortFunc(hs, func(a, b heard) int {
			if nearby && a.dist != b.dist {
				if a.dist < b.dist {
					return -1
				}
				return 1
			}
			return int(a.seat.player) - int(b.seat.player)
		})
		hs = hs[:min(len(hs), web.VoiceSlots)]
		// A speaker heard before keeps its slot; the rest take the free
		// ones in order.
		prev := vp.last[l.player]
		var slots [session.VoiceSlots]uint16
		placed := map[uint16]bool{}
		for _, h := range hs {
			for k, who := range prev {
				if who == h.seat.player {
					slots[k], placed[who] = who, true
				}
			}
		}
		for _, h := range hs {
			if placed[h.seat.player] {
				continue
			}
			for k := range slots {
				if slots[k] == 0 {
					slots[k], placed[h.seat.player] = h.seat.player, true
					break
				}
			}
		}
		vp.last[l.player] = slots
		msg := session.Voice{Nearby: nearby, CanSpeak: !l.muted, Range: vp.cfg.Range}
		var to [web.VoiceSlots]netip.AddrPort
		for k, who := range slots {
			for _, h := range hs {
				if h.seat.player == who && who != 0 {
					to[k] = h.seat.addr
					msg.Slots[k] = session.VoiceSlot{Player: who, Entity: h.seat.entity, Gain: math.Round(min(h.gain, session.MaxVoiceGain)*100) / 100}
				}
			}
		}
		p.Slots[l.addr] = to
		if old, ok := vp.told[l.player]; !ok || old != msg {
			changed[l.player] = msg
			vp.told[l.player] = msg
		}
	}
	for who := range vp.last {
		if !seated[who] {
			delete(vp.last, who)
			delete(vp.told, who)
		}
	}
	for k := range vp.judged {
		if !seated[k[0]] || !seated[k[1]] {
			delete(vp.judged, k)
		}
	}
	return p, changed
}

// voiceSocket is a socket that relays voice: the web listener.
type voiceSocket interface {
	SetVoicePlan(web.VoicePlan)
}

// Update works out the routes of the seats of s, at most every
// voiceEvery (now is the wall clock's, at the time of s's clock), hands
// sock's gateway its plan and tells each listener whose slots changed. A
// socket that is not the web listener's relays no voice: nothing is done.
func (vp *VoicePlanner) Update(s *session.Server, sock netio.Socket, now time.Time, at transport.Time) {
	if vp == nil || now.Sub(vp.at) < voiceEvery {
		return
	}
	vp.at = now
	vs, ok := sock.(voiceSocket)
	if !ok {
		return
	}
	g := s.Game()
	st, schema := g.Store(), g.Schema()
	typ, field := -1, -1
	if vp.cfg.Team != "" {
		tn, fn, _ := strings.Cut(vp.cfg.Team, ".")
		typ = schema.Index(tn)
		field = schema.Field(typ, fn)
	}
	ents := map[uint16]entity.ID{}
	for _, p := range g.Players() {
		ents[p.Number] = p.Entity
	}
	vp.players = s.Net().Players(vp.players[:0], at)
	seats := make([]voiceSeat, 0, len(vp.players))
	for _, p := range vp.players {
		seat := voiceSeat{player: p.Player, addr: p.Addr, entity: ents[p.Player], muted: s.Muted(p.Player)}
		if !seat.entity.IsNone() {
			if t := st.Transform(seat.entity); t != nil {
				seat.pos, seat.placed = entity.Vec2{X: t.X, Y: t.Y}, true
			}
			if field >= 0 {
				if vals := st.Component(seat.entity, typ); field < len(vals) {
					seat.team, seat.onTeam = vals[field], true
				}
			}
		}
		seats = append(seats, seat)
	}
	var judge voiceJudge
	if g.HasVoiceJudge() {
		judge = func(l, sp uint16) (float64, bool) {
			gain, decided, err := g.VoiceHears(l, sp)
			if err != nil {
				if vp.judgeErrors == 0 {
					vp.log.Warn("net.voice_hears failed; the pair is not heard", "listener", l, "speaker", sp, "err", err)
				}
				vp.judgeErrors++
				return 0, true
			}
			return gain, decided
		}
	}
	plan, changed := vp.plan(seats, judge)
	vs.SetVoicePlan(plan)
	for player, msg := range changed {
		if !s.SendVoice(player, msg) {
			delete(vp.told, player) // told again next time
		}
	}
}
