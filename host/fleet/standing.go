package fleet

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// Standing is a registration's standing in the directory: whether its last
// write landed, the failed writes by kind, when the next write is due, and
// the changes worth a log line. It does no I/O and reads no clock: it is
// told each write's outcome and the time (Wrote), and says when to write
// next (Next).
//
//	         ok                  fail
//	(none) ------> Registered ---------> Lost
//	  |               ^                   |
//	  | fail          |        ok         |
//	  v               +-------------------+
//	Unlisted ---------^ ok (Back)
//
// A healthy entry is rewritten every Heartbeat. After a failed write the
// next comes after a backoff that starts at MinBackoff and doubles up to
// MaxBackoff, less up to half of it at random, so servers that lost one
// Redis together do not all come back in the same instant; MaxBackoff is
// below the heartbeat, so a failing Redis is never asked more often than a
// healthy one twice over, and a server is back within MaxBackoff of
// Redis's return.
//
// The zero value is not ready: make one with NewStanding. Not safe for
// concurrent use.
type Standing struct {
	// Heartbeat, MinBackoff and MaxBackoff are the timings above.
	Heartbeat, MinBackoff, MaxBackoff time.Duration
	// Rand returns a number in [0, 1) for the backoff's jitter.
	Rand func() float64

	state    State
	fails    int       // failed writes in a row
	lostAt   time.Time // when the first of them failed
	landed   time.Time // when the last write landed
	next     time.Time
	errs     [numKinds]uint64
	lastErr  error
	lastKind ErrorKind
}

// Defaults of a Standing's backoff: tuning constants. The first retry
// comes soon (a blip costs a tenth of a second); the longest wait is half
// a heartbeat, so re-registering takes at most that after Redis returns.
const (
	MinBackoff = 100 * time.Millisecond
	MaxBackoff = 500 * time.Millisecond
)

// NewStanding returns the standing of an entry not yet written, its first
// write due at once.
func NewStanding(heartbeat time.Duration, rand func() float64) *Standing {
	return &Standing{Heartbeat: heartbeat, MinBackoff: MinBackoff, MaxBackoff: min(MaxBackoff, heartbeat), Rand: rand}
}

// State is where an entry stands.
type State uint8

const (
	// Unwritten: no write has been tried yet.
	Unwritten State = iota
	// Registered: the last write landed.
	Registered
	// Unlisted: no write has landed yet, and the last failed.
	Unlisted
	// Lost: writes had landed, and the last failed.
	Lost
)

func (s State) String() string {
	switch s {
	case Unwritten:
		return "unwritten"
	case Registered:
		return "registered"
	case Unlisted:
		return "unlisted"
	case Lost:
		return "lost"
	}
	return "unknown"
}

// Change is what a write's outcome changed, worth one log line.
type Change uint8

const (
	// NoChange: the entry stands as it did.
	NoChange Change = iota
	// Listed: the first write landed.
	Listed
	// NotListed: the first write failed (later failures say nothing).
	NotListed
	// WentAway: a write failed after writes had landed.
	WentAway
	// CameBack: a write landed after one or more failed.
	CameBack
)

// ErrorKind is what went wrong with a write, as /metrics counts it.
type ErrorKind uint8

const (
	// KindConnection: Redis could not be reached, or the connection broke.
	KindConnection ErrorKind = iota
	// KindTimeout: Redis did not answer in time.
	KindTimeout
	// KindReply: Redis answered with an error (READONLY, OOM, NOAUTH...).
	KindReply
	// KindOther: anything else.
	KindOther
	numKinds
)

func (k ErrorKind) String() string {
	switch k {
	case KindConnection:
		return "connection"
	case KindTimeout:
		return "timeout"
	case KindReply:
		return "reply"
	}
	return "other"
}

// ErrorKinds are every ErrorKind, in order.
var ErrorKinds = []ErrorKind{KindConnection, KindTimeout, KindReply, KindOther}

// KindOf says what kind of failure err is.
func KindOf(err error) ErrorKind {
	var re redis.Error
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.As(err, &re) && !errors.Is(err, redis.ErrClosed):
		return KindReply
	case errors.As(err, new(*net.OpError)) || errors.Is(err, redis.ErrClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// A refused or failed dial, a reset or broken connection (each a
		// *net.OpError), a connection Redis closed.
		return KindConnection
	}
	return KindOther
}

// Wrote records a write's outcome at now (err nil: it landed) and returns
// what it changed. The next write is due at Next.
func (s *Standing) Wrote(now time.Time, err error) Change {
	if err == nil {
		was := s.state
		s.state, s.fails, s.next, s.landed = Registered, 0, now.Add(s.Heartbeat), now
		switch was {
		case Unwritten:
			return Listed
		case Unlisted, Lost:
			return CameBack
		}
		return NoChange
	}
	s.lastErr, s.lastKind = err, KindOf(err)
	s.errs[s.lastKind]++
	if s.fails == 0 {
		s.lostAt = now
	}
	s.fails++
	s.next = now.Add(s.backoff())
	switch s.state {
	case Unwritten:
		s.state = Unlisted
		return NotListed
	case Registered:
		s.state = Lost
		return WentAway
	}
	return NoChange
}

// backoff is the wait after the s.fails'th failure in a row.
func (s *Standing) backoff() time.Duration {
	d := s.MaxBackoff
	if s.fails < 16 {
		d = min(s.MinBackoff<<(s.fails-1), s.MaxBackoff)
	}
	if s.Rand != nil {
		d -= time.Duration(float64(d/2) * s.Rand())
	}
	return d
}

// Next is when the next write is due: at once before the first.
func (s *Standing) Next() time.Time { return s.next }

// State is where the entry stands.
func (s *Standing) State() State { return s.state }

// Fails is how many writes in a row have failed.
func (s *Standing) Fails() int { return s.fails }

// DownSince is when the first of the failed writes in a row failed.
func (s *Standing) DownSince() time.Time { return s.lostAt }

// Landed is when the last write landed (zero: none has).
func (s *Standing) Landed() time.Time { return s.landed }

// Errors is how many writes have failed of kind k.
func (s *Standing) Errors(k ErrorKind) uint64 { return s.errs[k] }

// LastError is the last failed write's error (nil before any).
func (s *Standing) LastError() error { return s.lastErr }

// LastKind is the kind of the last failed write's error.
func (s *Standing) LastKind() ErrorKind { return s.lastKind }
