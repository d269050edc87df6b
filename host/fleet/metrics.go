package fleet

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// The outcomes of a /join request: the requests metric's labels.
const (
	outcomeSeat         = "seat"         // 200: a seat and a token
	outcomeNoSeat       = "no_seat"      // 503: no matching server has a free seat
	outcomeBadRequest   = "bad_request"  // 400, 405
	outcomeUnauthorized = "unauthorized" // 401: no credentials, or not authentic
	outcomeForbidden    = "forbidden"    // 403: a client id the caller may not name
	outcomeLimited      = "limited"      // 429: over a rate limit
	outcomeUnavailable  = "unavailable"  // 503: the directory (Redis) failed
	outcomeError        = "error"        // 500: the lobby failed otherwise
)

var outcomes = []string{outcomeSeat, outcomeNoSeat, outcomeBadRequest, outcomeUnauthorized, outcomeForbidden, outcomeLimited, outcomeUnavailable, outcomeError}

// lobbyMetrics is what a Lobby counts, on a registry of its own with the Go
// runtime's and the process's collectors.
type lobbyMetrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	reservations prometheus.Counter
	authFailures *prometheus.CounterVec
	limited      *prometheus.CounterVec
	redisErrors  prometheus.Counter
}

func newLobbyMetrics() *lobbyMetrics {
	m := &lobbyMetrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vkm_lobby_requests_total",
		Help: "Requests for a seat (/join), by outcome: seat, no_seat, bad_request, unauthorized, forbidden, limited, unavailable, error."}, []string{"outcome"})
	m.reservations = prometheus.NewCounter(prometheus.CounterOpts{Name: "vkm_lobby_reservations_total",
		Help: "Seats reserved in the directory."})
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vkm_lobby_auth_failures_total",
		Help: "Requests refused with 401, by reason: missing, scheme, malformed, bad_signature, expired, clock_skew, replayed, bad_subject, bad_claims."}, []string{"reason"})
	m.limited = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vkm_lobby_limited_total",
		Help: "Requests refused with 429, by the limit they were over: caller or address."}, []string{"limit"})
	m.redisErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "vkm_lobby_redis_errors_total",
		Help: "Directory (Redis) commands that failed: reservations, replay checks and readiness pings."})
	// Every label is there from the start, at 0, so a rate over any of
	// them is defined before the first such request.
	for _, o := range outcomes {
		m.requests.WithLabelValues(o)
	}
	for _, r := range authReasons {
		m.authFailures.WithLabelValues(r)
	}
	m.limited.WithLabelValues("caller")
	m.limited.WithLabelValues("address")
	m.reg.MustRegister(m.requests, m.reservations, m.authFailures, m.limited, m.redisErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
