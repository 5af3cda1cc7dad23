package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"
)

// testIssuer is a local OAuth authorization server whose published keys a
// test can rotate while the verifier runs.
type testIssuer struct {
	srv        *httptest.Server
	mu         sync.Mutex
	keys       []jose.JSONWebKey // public keys served at /jwks
	noRFC8414  bool              // answer 404 to the RFC 8414 document
	wrongIss   bool              // discovery names another issuer
	down       bool              // every request fails with 503
	jwksServed atomic.Int32
	// userinfo answers GET /userinfo for a bearer token; nil is 404.
	userinfo       func(token string) (status int, body any)
	userinfoServed atomic.Int32
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{}
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		if is.down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if is.noRFC8414 && r.URL.Path == "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		iss := is.srv.URL
		if is.wrongIss {
			iss = "https://evil.example"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": iss, "jwks_uri": is.srv.URL + "/jwks", "userinfo_endpoint": is.srv.URL + "/userinfo",
			"authorization_endpoint": is.srv.URL + "/authorize", "token_endpoint": is.srv.URL + "/token",
		})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", meta)
	mux.HandleFunc("/.well-known/openid-configuration", meta)
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		if is.down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		is.jwksServed.Add(1)
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.keys})
	})
	mux.HandleFunc("/userinfo", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		answer := is.userinfo
		is.mu.Unlock()
		is.userinfoServed.Add(1)
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if answer == nil || !ok {
			http.NotFound(w, r)
			return
		}
		status, body := answer(token)
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// publish replaces the served keys with the public halves of ks.
func (is *testIssuer) publish(ks ...*signingKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = nil
	for _, k := range ks {
		is.keys = append(is.keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
	}
}

func (is *testIssuer) set(f func(*testIssuer)) {
	is.mu.Lock()
	defer is.mu.Unlock()
	f(is)
}

// signingKey is one of the issuer's private keys.
type signingKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func rsaKey(t *testing.T, kid string) *signingKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return &signingKey{kid, jose.RS256, k}
}

func ecKey(t *testing.T, kid string) *signingKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return &signingKey{kid, jose.ES256, k}
}

func edKey(t *testing.T, kid string) *signingKey {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	return &signingKey{kid, jose.EdDSA, k}
}

// tokenClaims are what a test token says; extra merges in other claims.
type tokenClaims struct {
	jwt.Claims
	Email         string   `json:"email,omitempty"`
	EmailVerified any      `json:"email_verified,omitempty"`
	AMR           []string `json:"amr,omitempty"`
	Scope         string   `json:"scope,omitempty"`
	Scp           any      `json:"scp,omitempty"`
}

// sign makes a compact JWT with k; kid "" leaves the header's kid out.
func (k *signingKey) sign(t *testing.T, c tokenClaims) string {
	t.Helper()
	key := jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}}
	if k.kid == "" {
		key.Key = k.priv
	}
	s, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("at+jwt"))
	require.NoError(t, err)
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	require.NoError(t, err)
	return tok
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
