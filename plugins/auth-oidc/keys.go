package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/pactboard/pact/sdk/errs"
)

// maxDocument bounds a discovery document or JWKS read from the issuer.
const maxDocument = 1 << 20

// discovered is the part of the issuer's metadata the plugin uses.
type discovered struct {
	Issuer           string `json:"issuer"`
	JWKSURI          string `json:"jwks_uri"`
	UserinfoEndpoint string `json:"userinfo_endpoint"`
}

// snapshot is one successful load: never changed after it is made, so
// readers use it without a lock.
type snapshot struct {
	meta   discovered
	byKid  map[string][]jose.JSONWebKey
	all    []jose.JSONWebKey
	loaded time.Time
}

// keyCache holds the issuer's metadata and keys. A lookup of a kid it does
// not know, or of any kid once the keys are older than maxAge, fetches them
// again, but never more often than minRefresh: a flood of tokens with
// made-up kids costs the issuer one request per minRefresh.
type keyCache struct {
	o                  *OIDC
	client             *http.Client
	minRefresh, maxAge time.Duration

	fetchMu sync.Mutex // one fetch at a time

	mu      sync.Mutex // guards the fields below
	snap    *snapshot
	fetched time.Time // last fetch attempt, successful or not
	lastErr error
}

func newKeyCache(o *OIDC, client *http.Client, minRefresh, maxAge time.Duration) *keyCache {
	return &keyCache{o: o, client: client, minRefresh: minRefresh, maxAge: maxAge}
}

// lookup returns the keys for kid (every key when kid is ""), fetching the
// JWKS again when kid is unknown or the keys are old and the rate limit
// allows. errs.Unavailable when no keys were ever loaded.
func (c *keyCache) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	snap, err := c.current(ctx, func(s *snapshot) bool { return kid != "" && len(s.byKid[kid]) == 0 })
	if err != nil {
		return nil, err
	}
	if kid == "" {
		return snap.all, nil
	}
	return snap.byKid[kid], nil
}

// discovery returns the issuer's metadata, loading it when needed.
func (c *keyCache) discovery(ctx context.Context) (*discovered, error) {
	snap, err := c.current(ctx, func(*snapshot) bool { return false })
	if err != nil {
		return nil, err
	}
	return &snap.meta, nil
}

// current returns the snapshot, refreshed first when there is none, it is
// older than maxAge, or stale says it lacks what the caller needs.
func (c *keyCache) current(ctx context.Context, stale func(*snapshot) bool) (*snapshot, error) {
	c.mu.Lock()
	snap, fetched := c.snap, c.fetched
	c.mu.Unlock()
	if snap == nil || c.o.now().Sub(snap.loaded) >= c.maxAge || stale(snap) {
		c.refresh(ctx, fetched)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil {
		return nil, errs.E(errs.Unavailable, "the issuer's keys could not be loaded: %v", c.lastErr)
	}
	return c.snap, nil
}

// refresh fetches metadata (once) and the JWKS, unless another caller
// fetched since seen (its result is then used) or the last attempt is less
// than minRefresh ago. Callers wait for a fetch in progress, so none reads
// the keys it is replacing. A failure keeps the previous keys: an issuer
// outage should not log everyone out while their keys are still known.
func (c *keyCache) refresh(ctx context.Context, seen time.Time) {
	c.fetchMu.Lock()
	defer c.fetchMu.Unlock()
	c.mu.Lock()
	now := c.o.now()
	if !c.fetched.Equal(seen) || (!c.fetched.IsZero() && now.Sub(c.fetched) < c.minRefresh) {
		c.mu.Unlock()
		return
	}
	c.fetched = now
	prev := c.snap
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	snap, err := c.load(ctx, prev)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = err
		return
	}
	c.snap, c.lastErr = snap, nil
}

func (c *keyCache) load(ctx context.Context, prev *snapshot) (*snapshot, error) {
	var meta discovered
	if prev != nil {
		meta = prev.meta
	} else {
		m, err := c.discover(ctx)
		if err != nil {
			return nil, err
		}
		meta = *m
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := c.getJSON(ctx, meta.JWKSURI, &set); err != nil {
		return nil, fmt.Errorf("jwks_uri: %w", err)
	}
	s := &snapshot{meta: meta, byKid: map[string][]jose.JSONWebKey{}, loaded: c.o.now()}
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		// A key this library cannot read (an unknown kty, say) is skipped,
		// not fatal: the issuer may publish keys for other consumers.
		if json.Unmarshal(raw, &k) != nil || !k.Valid() {
			continue
		}
		if _, symmetric := k.Key.([]byte); symmetric {
			continue
		}
		k = k.Public()
		s.all = append(s.all, k)
		s.byKid[k.KeyID] = append(s.byKid[k.KeyID], k)
	}
	return s, nil
}

// discover reads RFC 8414 metadata, falling back to OpenID Connect
// discovery. Either must name this issuer exactly (RFC 8414 §3.3), or a
// compromised document could redirect key lookups elsewhere.
func (c *keyCache) discover(ctx context.Context) (*discovered, error) {
	var errList []error
	for _, u := range []string{c.o.discoveryA, c.o.discoveryB} {
		var d discovered
		err := c.getJSON(ctx, u, &d)
		switch {
		case err != nil:
		case d.Issuer != c.o.issuer:
			err = fmt.Errorf("it names issuer %q, not %q", d.Issuer, c.o.issuer)
		case d.JWKSURI == "":
			err = errors.New("it has no jwks_uri")
		default:
			err = c.o.checkFetchURL(d.JWKSURI)
		}
		if err == nil {
			return &d, nil
		}
		errList = append(errList, fmt.Errorf("%s: %w", u, err))
	}
	return nil, errors.Join(errList...)
}

func (c *keyCache) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return nil
}
