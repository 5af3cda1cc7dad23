package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Userinfo fallback (docs/specs/behavior.md §9.3): a person is bound to the board the
// first time by a verified email. Many issuers put no email in access
// tokens, so when a token lacks a verified one the plugin asks the
// issuer's userinfo endpoint, with the token itself, for the same subject's
// verified email. Answers are cached per subject, so a person already bound
// by subject costs the issuer one request per userinfoTTL at most, and a
// failure only means no email (the token is still valid).
const (
	userinfoTTL = time.Hour
	// userinfoMissTTL is shorter, so a person who verifies their email at
	// the issuer can sign in again soon.
	userinfoMissTTL = 5 * time.Minute
	// userinfoMax bounds the cache; when full it starts over.
	userinfoMax = 10_000
)

// userinfoAnswer is the part of a userinfo response the plugin reads.
type userinfoAnswer struct {
	Subject       string    `json:"sub"`
	Email         string    `json:"email"`
	EmailVerified looseBool `json:"email_verified"`
}

type cachedEmail struct {
	email   string // "" when the issuer has no verified email for the subject
	expires time.Time
}

// userinfoCache remembers each subject's verified email from userinfo.
type userinfoCache struct {
	mu    sync.Mutex
	bySub map[string]cachedEmail
}

// verifiedEmail returns the verified email userinfo gives for sub, asking
// the issuer with token (already verified, of that subject) unless a
// cached answer is fresh. "" when there is none or userinfo cannot say.
func (o *OIDC) verifiedEmail(ctx context.Context, token, sub string) string {
	now := o.now()
	o.userinfo.mu.Lock()
	c, ok := o.userinfo.bySub[sub]
	o.userinfo.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.email
	}
	email, err := o.fetchUserinfo(ctx, token, sub)
	if err != nil {
		return "" // transient (issuer down, context ended): not cached
	}
	ttl := userinfoTTL
	if email == "" {
		ttl = userinfoMissTTL
	}
	o.userinfo.mu.Lock()
	defer o.userinfo.mu.Unlock()
	if o.userinfo.bySub == nil || len(o.userinfo.bySub) >= userinfoMax {
		o.userinfo.bySub = map[string]cachedEmail{}
	}
	o.userinfo.bySub[sub] = cachedEmail{email: email, expires: now.Add(ttl)}
	return email
}

// fetchUserinfo asks the discovered userinfo endpoint. A definite answer
// (no endpoint, another subject, no verified email) is ("", nil); only
// failures to get an answer are errors.
func (o *OIDC) fetchUserinfo(ctx context.Context, token, sub string) (string, error) {
	d, err := o.keys.discovery(ctx)
	if err != nil {
		return "", err
	}
	if d.UserinfoEndpoint == "" || o.checkFetchURL(d.UserinfoEndpoint) != nil {
		return "", nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.UserinfoEndpoint, nil)
	if err != nil {
		return "", nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := o.keys.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500:
		return "", fmt.Errorf("userinfo answered %s", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return "", nil // the token is not good for userinfo (scope): a definite no
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	if err != nil {
		return "", err
	}
	var a userinfoAnswer
	// A signed (application/jwt) answer is not JSON and counts as none.
	if json.Unmarshal(body, &a) != nil || a.Subject != sub || !bool(a.EmailVerified) {
		return "", nil
	}
	return a.Email, nil
}
