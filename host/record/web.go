//go:build !js

package record

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"vkm/internal/entity"
)

// The timeline page: `vkmd replay FILE --web ADDR` and `client FILE --view
// ADDR` serve a recording's Timeline as a web page, which draws its frames
// on a canvas and drives it with play, pause, step, a slider to jump, a
// speed, the player to follow and a free camera. The page is a view: the
// Timeline in this process is the one place the match is simulated.
//
//	GET  /            the page
//	GET  /state       the timeline's place and the frame there (JSON),
//	                  moved on by the wall time since the last ask while it plays
//	POST /control     op=play|pause|step|jump&tick=T|speed&v=S|follow&player=N|free,
//	                  answered with /state's JSON, or 400 and why

//go:embed page/timeline.html
var timelinePage []byte

// TimelineServer serves one Timeline's page; it is safe for concurrent
// requests.
type TimelineServer struct {
	mu   sync.Mutex
	tl   *Timeline
	now  func() time.Time
	last time.Time
	log  *slog.Logger
}

// NewTimelineServer serves tl's page; now is the clock play runs on (the
// host's wall clock, a test's own).
func NewTimelineServer(tl *Timeline, now func() time.Time, log *slog.Logger) *TimelineServer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &TimelineServer{tl: tl, now: now, last: now(), log: log}
}

// ServeHTTP answers the page's requests.
func (s *TimelineServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/", "/index.html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(timelinePage)
	case "/state":
		s.mu.Lock()
		defer s.mu.Unlock()
		s.advance()
		s.reply(w)
	case "/control":
		if r.Method != http.MethodPost {
			http.Error(w, "POST a control", http.StatusMethodNotAllowed)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.advance()
		if err := s.control(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.reply(w)
	default:
		http.NotFound(w, r)
	}
}

// advance moves a playing timeline on by the wall time since the last ask.
func (s *TimelineServer) advance() {
	now := s.now()
	if err := s.tl.Advance(now.Sub(s.last)); err != nil {
		s.log.Warn("the recording stopped playing", "err", err)
	}
	s.last = now
}

// control applies one of the page's controls.
func (s *TimelineServer) control(r *http.Request) error {
	tl := s.tl
	q := r.URL.Query()
	switch op := q.Get("op"); op {
	case "play":
		tl.Play()
	case "pause":
		tl.Pause()
	case "step":
		return tl.Step()
	case "jump":
		t, err := strconv.ParseUint(q.Get("tick"), 10, 32)
		if err != nil {
			return fmt.Errorf("jump: tick %q is not a tick", q.Get("tick"))
		}
		return tl.Jump(uint32(t))
	case "speed":
		v, err := strconv.ParseFloat(q.Get("v"), 64)
		if err != nil {
			return fmt.Errorf("speed: %q is not a number", q.Get("v"))
		}
		return tl.SetSpeed(v)
	case "follow":
		p, err := strconv.ParseUint(q.Get("player"), 10, 16)
		if err != nil {
			return fmt.Errorf("follow: %q is not a player number", q.Get("player"))
		}
		tl.Follow(uint16(p))
	case "free":
		tl.FreeCamera()
	default:
		return fmt.Errorf("no control %q: play, pause, step, jump, speed, follow or free", op)
	}
	return nil
}

// stateJSON is /state's answer.
type stateJSON struct {
	Tick      uint32        `json:"tick"`
	Simulated uint32        `json:"simulated"`
	Ended     bool          `json:"ended"`
	Playing   bool          `json:"playing"`
	Speed     float64       `json:"speed"`
	Follows   uint16        `json:"follows"`
	Free      bool          `json:"free"`
	Rate      int           `json:"rate"`
	KeyEvery  uint32        `json:"keyEvery"`
	Hash      string        `json:"hash"`
	Mismatch  string        `json:"mismatch,omitempty"`
	Players   []playerJSON  `json:"players"`
	Ents      []entJSON     `json:"ents"`
	Applied   int           `json:"applied"`
	Ran       uint32        `json:"ran"`
	Looks     map[string]lk `json:"looks"`
}

type playerJSON struct {
	Number uint16 `json:"number"`
	Name   string `json:"name"`
	Entity string `json:"entity"`
}

// entJSON is one pose: id, x, y, angle.
type entJSON struct {
	ID string  `json:"id"`
	X  float32 `json:"x"`
	Y  float32 `json:"y"`
	A  float32 `json:"a"`
}

// lk is a Look as the page reads it: each shape is [kind, ...numbers]:
// box [0, w, h, ox, oy, angle], circle [1, r, ox, oy], polygon and chain
// [2 or 3, loop, x0, y0, x1, y1, ...].
type lk struct {
	Name   string      `json:"name"`
	Player uint16      `json:"player"`
	Static bool        `json:"static"`
	Shapes [][]float64 `json:"shapes"`
}

func (s *TimelineServer) reply(w http.ResponseWriter) {
	tl := s.tl
	f, err := tl.Frame(tl.At())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	follows, free := tl.Follows()
	st := stateJSON{
		Tick: f.Tick, Simulated: tl.Simulated(), Ended: tl.Ended(), Playing: tl.Playing(), Speed: tl.Speed(),
		Follows: follows, Free: free, Rate: tl.TickRate(), KeyEvery: tl.KeyEvery(),
		Hash: fmt.Sprintf("%016x", f.Hash), Applied: tl.Applied, Ran: tl.Ran(),
		Players: []playerJSON{}, Ents: make([]entJSON, 0, len(f.Poses)), Looks: map[string]lk{},
	}
	if tl.Mismatch != nil {
		st.Mismatch = tl.Mismatch.Error()
	}
	for _, p := range f.Players {
		st.Players = append(st.Players, playerJSON{Number: p.Number, Name: p.Name, Entity: p.Entity.String()})
	}
	for _, p := range f.Poses {
		id := p.ID.String()
		st.Ents = append(st.Ents, entJSON{ID: id, X: p.X, Y: p.Y, A: p.A})
		if l := tl.Look(p.ID); l != nil {
			st.Looks[id] = lookJSON(l)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(&st)
}

func lookJSON(l *Look) lk {
	out := lk{Name: l.Name, Player: l.Player, Static: l.Static, Shapes: make([][]float64, 0, len(l.Shapes))}
	for _, sh := range l.Shapes {
		switch sh.Kind {
		case entity.Box:
			out.Shapes = append(out.Shapes, []float64{0, sh.W, sh.H, sh.Offset.X, sh.Offset.Y, sh.Angle})
		case entity.Circle:
			out.Shapes = append(out.Shapes, []float64{1, sh.Radius, sh.Offset.X, sh.Offset.Y})
		case entity.Polygon, entity.Chain:
			loop := 0.0
			if sh.Loop || sh.Kind == entity.Polygon {
				loop = 1
			}
			v := []float64{float64(sh.Kind), loop}
			for _, p := range sh.Points {
				v = append(v, p.X, p.Y)
			}
			out.Shapes = append(out.Shapes, v)
		}
	}
	return out
}
