package console

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/pactboard/pact/sdk/errs"
)

// discovery is what the console needs of the issuer's OpenID Provider
// metadata.
type discovery struct {
	Authorization string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
}

// login is the started sign-in, kept in a short-lived sealed cookie
// between /console/auth/login and the callback.
type login struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"`
}

// oauthConfig is the console's OAuth client at PACT_AUTH_ISSUER, its
// endpoints discovered once. Not configured: not_found, saying what to set.
func (m *Module) oauthConfig(ctx context.Context) (*oauth2.Config, error) {
	if m.cfg.AuthIssuer == "" || m.cfg.ConsoleClientID == "" {
		return nil, errs.E(errs.NotFound, "sign-in with OIDC is not configured on this board: set PACT_AUTH_ISSUER and PACT_CONSOLE_CLIENT_ID")
	}
	d, err := m.discover(ctx)
	if err != nil {
		return nil, err
	}
	return &oauth2.Config{ClientID: m.cfg.ConsoleClientID, ClientSecret: m.cfg.ConsoleClientSecret,
		Endpoint:    oauth2.Endpoint{AuthURL: d.Authorization, TokenURL: d.Token},
		RedirectURL: m.cfg.PublicURL + "/console/auth/callback", Scopes: []string{"openid", "email", "offline_access"}}, nil
}

func (m *Module) discover(ctx context.Context) (*discovery, error) {
	m.mu.Lock()
	d := m.discovery
	m.mu.Unlock()
	if d != nil {
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unavailable := func(err error) error {
		return &errs.Error{Code: errs.Unavailable, Message: "the board's OAuth issuer cannot be reached; try again shortly", Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.cfg.AuthIssuer+"/.well-known/openid-configuration", nil)
	if err != nil {
		return nil, unavailable(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, unavailable(err)
	}
	defer resp.Body.Close()
	d = &discovery{}
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable(fmt.Errorf("console: OIDC discovery answered %s", resp.Status))
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(d); err != nil || d.Authorization == "" || d.Token == "" {
		return nil, unavailable(fmt.Errorf("console: OIDC discovery has no authorization or token endpoint: %v", err))
	}
	m.mu.Lock()
	m.discovery = d
	m.mu.Unlock()
	return d, nil
}

// safeNext is where to go after sign-in: a path under /console/, never
// another site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/console/") ||
		strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") || strings.Contains(u.Path, "/../") {
		return "/console/"
	}
	return next
}

// login sends the browser to the issuer: authorization code with PKCE
// (S256), state and nonce, for the Admin API's audience (RFC 8707).
func (m *Module) login(w http.ResponseWriter, r *http.Request) {
	conf, err := m.oauthConfig(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	l := login{State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(),
		Next: safeNext(r.URL.Query().Get("next")), Expires: m.opts.Now().Add(loginTTL).Unix()}
	raw, _ := json.Marshal(l)
	v, err := m.box.Seal(string(raw), loginPlace)
	if err != nil {
		writeError(w, err)
		return
	}
	// Lax, not Strict: the issuer's redirect back is a cross-site navigation.
	http.SetCookie(w, &http.Cookie{Name: loginCookieName, Value: v, Path: "/console/auth/", HttpOnly: true,
		Secure: m.secure(), SameSite: http.SameSiteLaxMode, MaxAge: int(loginTTL / time.Second)})
	http.Redirect(w, r, conf.AuthCodeURL(l.State, oauth2.S256ChallengeOption(l.Verifier),
		oauth2.SetAuthURLParam("nonce", l.Nonce), oauth2.SetAuthURLParam("resource", m.cfg.AdminAudience)), http.StatusFound)
}

var errBadLogin = errs.E(errs.Unauthorized, "this sign-in is not valid or has expired; start again from the console")

// callback finishes the sign-in: the state must be the started one's, the
// code is exchanged with its verifier, and the access token must sign a
// person in to the Admin API, or prove an account that is no person yet,
// before the session is set.
func (m *Module) callback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, m.clearCookie(loginCookieName, "/console/auth/"))
	c, err := r.Cookie(loginCookieName)
	if err != nil {
		writeError(w, errBadLogin)
		return
	}
	var l login
	plain, err := m.box.Open(c.Value, loginPlace)
	q := r.URL.Query()
	if err != nil || plain == c.Value || json.Unmarshal([]byte(plain), &l) != nil || m.opts.Now().Unix() >= l.Expires ||
		subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(l.State)) != 1 {
		writeError(w, errBadLogin)
		return
	}
	if q.Get("error") != "" || q.Get("code") == "" {
		writeError(w, errs.E(errs.Unauthorized, "the issuer did not sign you in (%s); start again from the console", q.Get("error")))
		return
	}
	conf, err := m.oauthConfig(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	tok, err := conf.Exchange(r.Context(), q.Get("code"), oauth2.VerifierOption(l.Verifier),
		oauth2.SetAuthURLParam("resource", m.cfg.AdminAudience))
	if err != nil {
		writeError(w, &errs.Error{Code: errs.Unauthorized, Message: "the issuer refused the sign-in code; start again from the console", Err: err})
		return
	}
	p, err := m.auth.Authenticate(r.Context(), "Bearer "+tok.AccessToken)
	if err != nil {
		// An account that is no person of this board yet is signed in
		// all the same: the console then offers its invitations, and
		// only the operations any account may call take its session.
		if errs.CodeOf(err) != errs.NotRegistered {
			writeError(w, err)
			return
		}
		if _, err := m.verifier.Verify(r.Context(), "Bearer "+tok.AccessToken); err != nil {
			writeError(w, err)
			return
		}
		p = nil
	}
	s := m.newSession(kindOIDC)
	s.Access, s.Refresh, s.AccessExp = tok.AccessToken, tok.RefreshToken, m.accessExp(tok)
	m.setSession(w, r, s, p, l.Next)
}

// refresh gets s a new access token with its refresh token.
func (m *Module) refresh(ctx context.Context, s *session) error {
	conf, err := m.oauthConfig(ctx)
	if err != nil {
		return err
	}
	tok, err := m.refresher.do(ctx, m.opts.Now, s.Refresh, func(ctx context.Context) (*oauth2.Token, error) {
		return conf.TokenSource(ctx, &oauth2.Token{RefreshToken: s.Refresh, Expiry: time.Unix(1, 0)}).Token()
	})
	if err != nil {
		return &errs.Error{Code: errs.Unauthorized, Message: "the console session has ended; sign in again", Err: err}
	}
	s.Access, s.AccessExp = tok.AccessToken, m.accessExp(tok)
	if tok.RefreshToken != "" {
		s.Refresh = tok.RefreshToken
	}
	return nil
}

// accessExp is when tok's access token ends on the console's clock (unix),
// 0 when the issuer did not say: such a token is refreshed when refused.
func (m *Module) accessExp(tok *oauth2.Token) int64 {
	switch {
	case tok.ExpiresIn > 0:
		return m.opts.Now().Add(time.Duration(tok.ExpiresIn) * time.Second).Unix()
	case !tok.Expiry.IsZero():
		return tok.Expiry.Unix()
	}
	return 0
}
