package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/pactboard/pact/sdk/tenuo"
)

// Freshness rules of the seed README: the revocation list is refetched at
// least every 60 seconds, and a list older than that refuses every call.
const (
	maxListAge             = 60 * time.Second
	defaultRefreshInterval = 20 * time.Second
)

// Verifier checks tool calls offline against the board's keys and its
// latest revocation list. Its zero value is not usable; see newVerifier.
type Verifier struct {
	board  string
	client *http.Client
	now    func() time.Time
	seen   *replayCache
	// refreshEvery is how often run refetches keys and list (≤ maxListAge).
	refreshEvery time.Duration
	// tool runs an accepted call; the example's default echoes it.
	tool func(tool string, args map[string]any) (any, error)

	mu    sync.RWMutex
	trust *trustState // nil until the first successful refresh
}

// trustState is one consistent view of the board: its keys, the list they
// signed, and when the verifier fetched it.
type trustState struct {
	keys      []ed25519.PublicKey
	revoked   map[string]bool
	version   uint64
	issuedAt  time.Time
	fetchedAt time.Time
}

// newVerifier is a verifier of board (its base URL) using client and the
// clock now.
func newVerifier(board string, client *http.Client, now func() time.Time) *Verifier {
	return &Verifier{board: board, client: client, now: now, seen: newReplayCache(), tool: echo,
		refreshEvery: defaultRefreshInterval}
}

// echo is the example tool: it reports what it was asked to do.
func echo(tool string, args map[string]any) (any, error) {
	return map[string]any{"tool": tool, "args": args}, nil
}

// refresh refetches the keys and the revocation list. On any failure the
// previous state is kept; it goes stale after maxListAge and then every
// call is refused.
func (v *Verifier) refresh(ctx context.Context) error {
	keys, err := fetchKeys(ctx, v.client, v.board)
	if err != nil {
		return err
	}
	srl, err := fetchSRL(ctx, v.client, v.board, keys)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.trust != nil && srl.Version < v.trust.version {
		return fmt.Errorf("revocation list version went back from %d to %d", v.trust.version, srl.Version)
	}
	revoked := make(map[string]bool, len(srl.RevokedIDs))
	for _, id := range srl.RevokedIDs {
		revoked[id] = true
	}
	v.trust = &trustState{keys: keys, revoked: revoked, version: srl.Version, issuedAt: srl.IssuedAt, fetchedAt: v.now()}
	return nil
}

// run refreshes every refreshEvery until ctx ends, reporting failures
// to logf. Calls fail closed by themselves once the state is stale.
func (v *Verifier) run(ctx context.Context, logf func(string, ...any)) {
	t := time.NewTicker(v.refreshEvery)
	defer t.Stop()
	for {
		if err := v.refresh(ctx); err != nil {
			logf("tenuo-verifier: refresh failed (calls are refused once the list is %s old): %v", maxListAge, err)
		}
		v.seen.sweep(v.now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// current returns the trust state if it is fresh at now: fetched within
// maxListAge and signed within maxListAge (the board signs on each GET).
func (v *Verifier) current(now time.Time) (*trustState, error) {
	errStale := refuse(http.StatusServiceUnavailable, "no fresh revocation list from the board; refusing every call")
	v.mu.RLock()
	s := v.trust
	v.mu.RUnlock()
	switch {
	case s == nil:
		return nil, errStale
	case now.Sub(s.fetchedAt) > maxListAge, now.Sub(s.issuedAt) > maxListAge:
		return nil, errStale
	case s.issuedAt.Sub(now) > tenuo.ClockTolerance:
		return nil, errStale // signed in the future: a clock is wrong
	}
	return s, nil
}
