package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// Defaults of [Options].
const (
	// defaultLeeway absorbs clock skew between the issuer and the board.
	defaultLeeway = 30 * time.Second
	// defaultMinRefresh is the fastest the JWKS is fetched again for a key
	// id it does not list, so tokens with made-up kids cannot make the
	// plugin hammer the issuer.
	defaultMinRefresh = 30 * time.Second
	// defaultMaxAge is how long a fetched JWKS is used before it is fetched
	// again anyway, so a key the issuer removed stops working even when no
	// unknown kid ever arrives.
	defaultMaxAge = time.Hour
	fetchTimeout  = 10 * time.Second
)

// Options configure the verifier.
type Options struct {
	// Issuer is PACT_OIDC_ISSUER, compared exactly with tokens' iss.
	Issuer string
	// Scopes the board advertises; empty means ["pact"].
	Scopes []string
	// Client fetches discovery documents and keys; nil means one with a
	// 10 s timeout.
	Client *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Leeway, MinRefresh and MaxAge override the defaults above when > 0.
	Leeway, MinRefresh, MaxAge time.Duration
}

// OIDC verifies access tokens of one OAuth 2.1 / OIDC issuer.
type OIDC struct {
	issuer     string
	scopes     []string
	leeway     time.Duration
	now        func() time.Time
	allowHTTP  bool // the issuer is http on a loopback host
	keys       *keyCache
	discoveryA string // RFC 8414 metadata URL
	discoveryB string // OpenID Connect discovery URL
	userinfo   userinfoCache
}

var _ authissuer.Issuer = (*OIDC)(nil)

// New checks the issuer URL and returns a verifier. Nothing is fetched yet:
// the plugin starts even while the issuer is down, and calls answer
// errs.Unavailable until it is back.
func New(opts Options) (*OIDC, error) {
	if opts.Issuer == "" {
		return nil, errors.New("PACT_OIDC_ISSUER is not set; set it to the issuer URL tokens carry in iss")
	}
	u, err := url.Parse(opts.Issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("PACT_OIDC_ISSUER %q is not an issuer URL (https://host[/path], no query)", opts.Issuer)
	}
	allowHTTP := u.Scheme == "http" && isLoopback(u.Hostname())
	if u.Scheme != "https" && !allowHTTP {
		return nil, fmt.Errorf("PACT_OIDC_ISSUER %q must use https (http only on a loopback host)", opts.Issuer)
	}
	o := &OIDC{
		issuer: opts.Issuer, scopes: opts.Scopes, leeway: opts.Leeway, now: opts.Now, allowHTTP: allowHTTP,
	}
	if len(o.scopes) == 0 {
		o.scopes = []string{"pact"}
	}
	if o.leeway <= 0 {
		o.leeway = defaultLeeway
	}
	if o.now == nil {
		o.now = time.Now
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: fetchTimeout}
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimRight(u.EscapedPath(), "/")
	o.discoveryA = origin + "/.well-known/oauth-authorization-server" + path
	o.discoveryB = origin + path + "/.well-known/openid-configuration"
	o.keys = newKeyCache(o, client, pick(opts.MinRefresh, defaultMinRefresh), pick(opts.MaxAge, defaultMaxAge))
	return o, nil
}

func pick(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkFetchURL refuses a discovered URL the plugin should not fetch: keys
// come over https (or the loopback http the issuer itself uses in dev).
func (o *OIDC) checkFetchURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	if u.Scheme == "https" || (o.allowHTTP && u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("%q is not https", raw)
}

// Verify checks r.Token's signature against the issuer's keys and its iss,
// aud (one of r.Audiences), exp, nbf and iat (30 s leeway), and returns who
// it names. A token without a verified email gets the one the issuer's
// userinfo endpoint gives for the same subject, if any (userinfo.go). A bad token is errs.Unauthorized with a message that says what
// is wrong; errs.Unavailable means the issuer's keys could not be fetched;
// errs.InvalidRequest means the caller gave no audience.
func (o *OIDC) Verify(ctx context.Context, r authissuer.VerifyRequest) (*authissuer.Identity, error) {
	if len(r.Audiences) == 0 {
		return nil, errs.E(errs.InvalidRequest, "no audience to check the token against")
	}
	c, err := o.verifySignature(ctx, r.Token)
	if err != nil {
		return nil, err
	}
	now := o.now()
	switch {
	case c.Issuer != o.issuer:
		return nil, errs.E(errs.Unauthorized, "token issuer %q is not %q", c.Issuer, o.issuer)
	case c.Expiry == nil:
		return nil, errs.E(errs.Unauthorized, "token has no expiry (exp)")
	case now.After(c.Expiry.Time().Add(o.leeway)):
		return nil, errs.E(errs.Unauthorized, "token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case c.NotBefore != nil && now.Add(o.leeway).Before(c.NotBefore.Time()):
		return nil, errs.E(errs.Unauthorized, "token is not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	case c.IssuedAt != nil && now.Add(o.leeway).Before(c.IssuedAt.Time()):
		return nil, errs.E(errs.Unauthorized, "token was issued in the future (%s)", c.IssuedAt.Time().UTC().Format(time.RFC3339))
	case !slices.ContainsFunc(r.Audiences, c.Audience.Contains):
		return nil, errs.E(errs.Unauthorized, "token audience %q does not include %q", []string(c.Audience), r.Audiences)
	case c.Subject == "":
		return nil, errs.E(errs.Unauthorized, "token has no subject (sub)")
	}
	scope := c.Scope
	if scope == "" {
		scope = string(c.Scp)
	}
	email, verified := c.Email, bool(c.EmailVerified)
	if email == "" || !verified {
		if e := o.verifiedEmail(ctx, r.Token, c.Subject); e != "" {
			email, verified = e, true
		}
	}
	return &authissuer.Identity{
		Subject: c.Subject, Issuer: c.Issuer, Email: email, EmailVerified: verified,
		AMR: c.AMR, Audience: []string(c.Audience), Scope: scope, ExpiresAt: c.Expiry.Time().UTC(),
	}, nil
}

// Metadata is what the board advertises in its RFC 9728 documents: this
// issuer as the one authorization server. errs.Unavailable while the
// issuer's discovery document cannot be fetched.
func (o *OIDC) Metadata(ctx context.Context) (*authissuer.Metadata, error) {
	d, err := o.keys.discovery(ctx)
	if err != nil {
		return nil, err
	}
	return &authissuer.Metadata{
		Issuer:               o.issuer,
		AuthorizationServers: []string{o.issuer},
		ScopesSupported:      slices.Clone(o.scopes),
		UserinfoEndpoint:     d.UserinfoEndpoint,
	}, nil
}
