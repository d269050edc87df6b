package token

import (
	"container/heap"
	"time"
)

// Used remembers the nonces of the tokens a server has accepted, each until
// its token expires, so that one token admits one join: a copy captured on
// the way, or a player handing theirs on, is refused.
//
// Its memory is bounded by the capacity given to NewUsed. When every place
// holds a token that has not expired, Seen refuses new ones rather than
// forget one that could be replayed: the backend mints tokens only for
// players it authenticated, so this happens only when more players than the
// capacity joined within a token's lifetime, and a refused player can ask
// for a fresh token once some have expired. Size the capacity for the joins
// a token's lifetime sees at the busiest.
//
// The zero value is not ready; use NewUsed. A Used is not safe for
// concurrent use.
type Used struct {
	capacity int
	held     map[[NonceSize]byte]struct{}
	byExpiry expiries // the same nonces, soonest to expire on top
}

// NewUsed returns a Used that holds at most capacity nonces (at least 1).
// A nonce costs about 100 bytes, so 100 000 fit in some 10 MB.
func NewUsed(capacity int) *Used {
	capacity = max(capacity, 1)
	return &Used{capacity: capacity, held: make(map[[NonceSize]byte]struct{}, min(capacity, 1024))}
}

// Seen reports whether the token with nonce and expiry must be refused at
// now as seen before, and remembers it when not. It is true for a nonce
// already remembered, for a token that has expired (none is remembered past
// its expiry), and when the Used is full of live nonces. Call it only for a
// token Open accepted, so that its nonce and expiry are genuine, and only
// once per join (a client repeating its join while it waits for an answer
// must be recognised before Seen is asked). It costs O(log n) for n nonces
// held, plus the forgetting of those that have expired.
func (u *Used) Seen(nonce [NonceSize]byte, expires, now time.Time) bool {
	exp, at := expires.Unix(), now.Unix()
	for len(u.byExpiry) > 0 && u.byExpiry[0].expires <= at {
		delete(u.held, heap.Pop(&u.byExpiry).(entry).nonce)
	}
	if exp <= at {
		return true
	}
	if _, ok := u.held[nonce]; ok {
		return true
	}
	if len(u.held) >= u.capacity {
		return true
	}
	u.held[nonce] = struct{}{}
	heap.Push(&u.byExpiry, entry{nonce: nonce, expires: exp})
	return false
}

// Has reports whether Seen would refuse the token with nonce at now for
// having been seen before, or for the Used being full, without remembering
// it. A server asks Has before the game's join handler runs and calls Seen
// once the player is seated, so that a join the game declines does not use
// the token up.
func (u *Used) Has(nonce [NonceSize]byte, now time.Time) bool {
	if _, ok := u.held[nonce]; ok {
		return true
	}
	return len(u.held) >= u.capacity && (len(u.byExpiry) == 0 || u.byExpiry[0].expires > now.Unix())
}

// Len returns how many nonces the Used holds: those of tokens accepted and
// not expired at the last Seen.
func (u *Used) Len() int { return len(u.held) }

// entry is one remembered nonce and its token's expiry in unix seconds.
type entry struct {
	nonce   [NonceSize]byte
	expires int64
}

// expiries is a min-heap of entries by expiry (container/heap).
type expiries []entry

func (h expiries) Len() int           { return len(h) }
func (h expiries) Less(i, j int) bool { return h[i].expires < h[j].expires }
func (h expiries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiries) Push(x any)        { *h = append(*h, x.(entry)) }
func (h *expiries) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
