package authtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// Server is the issuer's OAuth endpoints over HTTP, for tests of a sign-in
// through the browser: OpenID discovery, an authorization endpoint that
// signs Subject in at once (PKCE S256 required) and a token endpoint for
// the authorization_code and refresh_token grants. Its access tokens are
// the Issuer's, so Verify accepts them.
type Server struct {
	URL    string
	Issuer *Issuer
	// Subject and Email are whom the authorization endpoint signs in
	// (Email verified). TTL is an access token's lifetime (default 1 h).
	Subject, Email string
	TTL            time.Duration

	t  testing.TB
	mu sync.Mutex
	// codes and refresh tokens → the grant they stand for.
	codes, refresh map[string]grant
	// Minted is every access and refresh token handed out, so a test can
	// look for them where they must not be.
	minted []string
	// Refreshed counts refresh_token grants.
	refreshed int
}

type grant struct{ challenge, resource, clientID string }

// NewServer serves i's endpoints on a local HTTP server closed at the
// test's end.
func NewServer(t testing.TB, i *Issuer) *Server {
	s := &Server{Issuer: i, t: t, TTL: time.Hour, codes: map[string]grant{}, refresh: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", s.discovery)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Minted returns every access and refresh token handed out so far.
func (s *Server) Minted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.minted...)
}

// Refreshed is how many refresh_token grants were answered.
func (s *Server) Refreshed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshed
}

func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"issuer": s.Issuer.URL, "authorization_endpoint": s.URL + "/authorize",
		"token_endpoint": s.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
}

func secret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorize signs Subject in and sends the browser back with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("redirect_uri") == "" || q.Get("state") == "" {
		http.Error(w, "authorization code with PKCE S256, state and a redirect_uri required", http.StatusBadRequest)
		return
	}
	code := secret()
	s.mu.Lock()
	s.codes[code] = grant{challenge: q.Get("code_challenge"), resource: q.Get("resource"), clientID: q.Get("client_id")}
	s.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var g grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		var ok bool
		g, ok = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("resource") != g.resource {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		var ok bool
		if g, ok = s.refresh[r.PostForm.Get("refresh_token")]; !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		// Refresh tokens rotate, as oidc-provider's do: each works once.
		delete(s.refresh, r.PostForm.Get("refresh_token"))
		s.refreshed++
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access := s.Issuer.Token(s.t, Claims{Subject: s.Subject, Email: s.Email, EmailVerified: true,
		Audience: []string{g.resource}, ExpiresAt: s.Issuer.Now().Add(s.TTL)})
	refresh := secret()
	s.refresh[refresh] = g
	s.minted = append(s.minted, access, refresh)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(s.TTL / time.Second)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
