package console

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// refreshGrace is how long a refresh's result is kept for requests that
// still carry the cookie from before it.
const refreshGrace = 30 * time.Second

// refreshTimeout bounds one exchange with the issuer.
const refreshTimeout = 30 * time.Second

// refresher runs one refresh per refresh token. The console's pages call
// the Admin API several at a time, so when a session's access token ends,
// several requests holding the same cookie want to refresh it together. An
// issuer that rotates refresh tokens (oidc-provider does) honours the first
// exchange and refuses the others, which would end the session mid-page;
// here the others wait for the first and share its token, and requests
// sent before the browser stored the new cookie get the same token for
// refreshGrace. One process's memory: boards behind a load balancer
// without session affinity may still race (docs/console.md).
type refresher struct {
	mu    sync.Mutex
	calls map[[32]byte]*refreshCall
}

type refreshCall struct {
	done     chan struct{}
	tok      *oauth2.Token
	err      error
	finished time.Time
}

// do returns the token that refreshToken was exchanged for, running
// exchange only when no exchange of it is under way or recently done.
// A failed exchange is not kept: the next request tries again.
func (r *refresher) do(ctx context.Context, now func() time.Time, refreshToken string,
	exchange func(context.Context) (*oauth2.Token, error)) (*oauth2.Token, error) {
	key := sha256.Sum256([]byte(refreshToken))
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[[32]byte]*refreshCall{}
	}
	for k, c := range r.calls {
		select {
		case <-c.done:
			if c.err != nil || now().Sub(c.finished) > refreshGrace {
				delete(r.calls, k)
			}
		default:
		}
	}
	if c, ok := r.calls[key]; ok {
		r.mu.Unlock()
		select {
		case <-c.done:
			return c.tok, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &refreshCall{done: make(chan struct{})}
	r.calls[key] = c
	r.mu.Unlock()
	// The exchange outlives a caller that gives up: others wait on it.
	xctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
	defer cancel()
	c.tok, c.err = exchange(xctx)
	c.finished = now()
	close(c.done)
	return c.tok, c.err
}
