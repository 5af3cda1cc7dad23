package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

const (
	version = "1.0.0"
	// deliverTimeout bounds one delivery, so a slow receiver cannot hold a
	// delivery worker.
	deliverTimeout = 10 * time.Second
	dialTimeout    = 5 * time.Second
	maxURL         = 2048
)

// Options configure a webhook notifier; the zero value is production.
type Options struct {
	// AllowPrivate is PACT_WEBHOOK_ALLOW_PRIVATE=1: also reach non-public
	// addresses, and plain http to them.
	AllowPrivate bool
	// RootCAs replaces the system roots (tests with a local TLS receiver).
	RootCAs *x509.CertPool
	// Resolver resolves hosts when a destination is prepared; nil is
	// net.DefaultResolver. Deliveries always use the system resolver and
	// check the address dialed.
	Resolver resolver
	// Rand generates secrets; nil is crypto/rand.
	Rand io.Reader
	// Now stamps deliveries; nil is time.Now.
	Now func() time.Time
}

// Webhook delivers notifications to HTTPS endpoints, signed per Standard
// Webhooks.
type Webhook struct {
	policy   policy
	resolver resolver
	rand     io.Reader
	now      func() time.Time
	// secure and plain post over https and http; each one's dialer applies
	// the address policy for its scheme.
	secure, plain *http.Client
}

var _ notifier.Notifier = (*Webhook)(nil)

// New returns a webhook notifier.
func New(opts Options) *Webhook {
	w := &Webhook{policy: policy{allowPrivate: opts.AllowPrivate}, resolver: opts.Resolver, rand: opts.Rand, now: opts.Now}
	if w.resolver == nil {
		w.resolver = net.DefaultResolver
	}
	if w.rand == nil {
		w.rand = rand.Reader
	}
	if w.now == nil {
		w.now = time.Now
	}
	w.secure = w.client(false, opts.RootCAs)
	w.plain = w.client(true, nil)
	return w
}

func (w *Webhook) client(plain bool, roots *x509.CertPool) *http.Client {
	return &http.Client{
		Timeout: deliverTimeout,
		Transport: &http.Transport{
			// No proxy: the dialer must see the receiver's own address, and
			// an inherited HTTPS_PROXY would hide it.
			Proxy:                 nil,
			DialContext:           w.policy.dialer(plain).DialContext,
			TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:   dialTimeout,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          64,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: deliverTimeout,
		},
		// A redirect would be a second, unchecked destination; the receiver's
		// 3xx is reported instead.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Capabilities reports that every kind is accepted and briefs are passed on
// with their structure.
func (w *Webhook) Capabilities(ctx context.Context) (*notifier.Capabilities, error) {
	return &notifier.Capabilities{Name: "notifier-webhook", Version: version, Structured: true}, nil
}

// PrepareDestination checks d's URL (https; a host that resolves only to
// public addresses unless the operator allowed others) and its options
// (options.go), and completes its secret: an empty Secret gets a fresh
// whsec_ secret, which the board shows once; a given one must be a valid
// whsec_ secret. Refusals are errs.InvalidRequest; a DNS failure other
// than "no such host" is errs.Unavailable.
func (w *Webhook) PrepareDestination(ctx context.Context, d notifier.Destination) (*notifier.Destination, error) {
	u, err := w.parseURL(strings.TrimSpace(d.URL))
	if err != nil {
		return nil, err
	}
	if err := w.policy.checkHost(ctx, w.resolver, u.Hostname(), u.Scheme == "http"); err != nil {
		var blocked *blockedError
		if errors.As(err, &blocked) {
			return nil, errs.E(errs.InvalidRequest, "webhook destination refused: %v", blocked)
		}
		return nil, errs.E(errs.Unavailable, "could not resolve the webhook host %s: %v", u.Hostname(), err)
	}
	if _, err := parseOptions(d.Options); err != nil {
		return nil, err
	}
	secret := d.Secret
	if secret == "" {
		if secret, err = newSecret(w.rand); err != nil {
			return nil, err
		}
	} else if _, err := parseSecret(secret); err != nil {
		return nil, err
	}
	return &notifier.Destination{URL: u.String(), Secret: secret, Options: d.Options}, nil
}

// parseURL refuses anything but an absolute https URL (or http, when
// private addresses are allowed) with a host and no user info. Messages never
// repeat the URL: webhook URLs often carry a token.
func (w *Webhook) parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "" || len(raw) > maxURL || err != nil || u.Host == "" || u.Opaque != "":
		return nil, errs.E(errs.InvalidRequest, "a webhook destination must be an absolute https:// URL of at most %d characters", maxURL)
	case u.User != nil:
		return nil, errs.E(errs.InvalidRequest, "a webhook URL must not carry a user name or password; the signature authenticates the board")
	case u.Scheme == "https":
	case u.Scheme == "http" && w.policy.allowPrivate:
	default:
		return nil, errs.E(errs.InvalidRequest, "a webhook URL must use https")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// Deliver posts n to d, signed with d's secret. webhook-id is n's
// idempotency key, identical on every retry, so receivers drop repeats.
// d's options (options.go) may make the body n's data and add an
// Authorization or X-A2A-Notification-Token header; the signature covers
// the body either way.
// A blocked address, a bad destination or a 4xx answer is
// errs.InvalidRequest; a timeout, a network failure, 408, 429 or 5xx is
// errs.Unavailable. Messages keep the receiver's answer, e.g. "receiver
// answered 503: maintenance".
func (w *Webhook) Deliver(ctx context.Context, d notifier.Destination, n notifier.Notification) (*notifier.Receipt, error) {
	u, err := w.parseURL(d.URL)
	if err != nil {
		return nil, err
	}
	key, err := parseSecret(d.Secret)
	if err != nil {
		return nil, err
	}
	id := n.IdempotencyKey
	if id == "" {
		id = n.ID
	}
	if id == "" {
		return nil, errs.E(errs.InvalidRequest, "the notification has neither an idempotency key nor an id for webhook-id")
	}
	opts, err := parseOptions(d.Options)
	if err != nil {
		return nil, err
	}
	now := w.now()
	body, err := opts.body(n, id, now)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, errs.Wrap(err, "build the webhook request")
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", opts.contentType)
	if opts.authorization != "" {
		req.Header.Set("Authorization", opts.authorization)
	}
	if opts.token != "" {
		req.Header.Set(tokenHeader, opts.token)
	}
	req.Header.Set("User-Agent", "pact-notifier-webhook/"+version)
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sign(key, id, ts, body))

	c := w.secure
	if u.Scheme == "http" {
		c = w.plain
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, transportError(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	text := clip(strings.Join(strings.Fields(string(answer)), " "), 200)
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return &notifier.Receipt{Status: resp.StatusCode, Detail: text}, nil
	}
	code := errs.InvalidRequest
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500 {
		code = errs.Unavailable
	}
	return nil, errs.E(code, "receiver answered %d: %s", resp.StatusCode, text)
}

// transportError classifies a failed post. The *url.Error wrapper is dropped
// because it repeats the URL, which may carry a token.
func transportError(err error) error {
	var blocked *blockedError
	if errors.As(err, &blocked) {
		return errs.E(errs.InvalidRequest, "webhook destination refused: %v", blocked)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var t interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout()) {
		return errs.E(errs.Unavailable, "the receiver did not answer in time (limit %s)", deliverTimeout)
	}
	return errs.E(errs.Unavailable, "the receiver could not be reached: %v", err)
}

// clip cuts s to n runes, ending with "…" when it cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
