package main

import (
	"sync"
	"time"
)

// replayTTL is how long a seen signature is remembered. Tenuo's verifier
// accepts a proof of possession for five 30-second windows around its
// clock (about ±75 s of the signing time), so after three minutes a
// signature cannot verify again and can be forgotten.
const replayTTL = 3 * time.Minute

// maxSeen bounds the cache; when it is full of live entries the verifier
// refuses calls rather than forget one early (fail closed).
const maxSeen = 1 << 20

// replayCache remembers the signatures of accepted calls, so each signed
// call is accepted once.
type replayCache struct {
	mu   sync.Mutex
	seen map[string]time.Time // signature → when it may be forgotten
}

func newReplayCache() *replayCache { return &replayCache{seen: map[string]time.Time{}} }

// claim records sig at now and reports whether it was new. It reports
// false, and records nothing, when sig was seen or the cache is full.
func (r *replayCache) claim(sig []byte, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := string(sig)
	if until, ok := r.seen[k]; ok && now.Before(until) {
		return false
	}
	if len(r.seen) >= maxSeen {
		r.prune(now)
		if len(r.seen) >= maxSeen {
			return false
		}
	}
	r.seen[k] = now.Add(replayTTL)
	return true
}

// prune drops entries that can no longer verify; callers hold mu.
func (r *replayCache) prune(now time.Time) {
	for k, until := range r.seen {
		if !now.Before(until) {
			delete(r.seen, k)
		}
	}
}

// sweep prunes the cache; the refresh loop calls it.
func (r *replayCache) sweep(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune(now)
}
