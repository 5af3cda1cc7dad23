package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// The cookies and the places they are sealed for (core/seal): a value
// sealed for one does not open as the other.
const (
	CookieName      = "pact_console"
	loginCookieName = "pact_console_login"
	sessionPlace    = "console.session"
	loginPlace      = "console.login"
)

// Kinds of session.
const (
	kindOIDC  = "oidc"
	kindLocal = "local"
)

// sessionKinds is every kind of session (console_sessions.kind's check,
// migration 028): the sign-out tests cover each.
func sessionKinds() []string { return []string{kindLocal, kindOIDC} }

var errMissingKeys = errors.New("console: Options.Keys is required (the cookies are sealed under the board's keyring)")

// session is what the sealed cookie holds. Tokens stay inside the seal:
// the browser sees only sealed text.
type session struct {
	// ID names the session's record (console_sessions, store.go): a
	// cookie whose record is gone, or that names none, is refused.
	ID        string `json:"id"`
	Kind      string `json:"k"`
	Person    string `json:"p,omitempty"`  // local
	Access    string `json:"a,omitempty"`  // oidc
	Refresh   string `json:"r,omitempty"`  // oidc
	AccessExp int64  `json:"ae,omitempty"` // oidc: when the access token ends (unix), 0 if unknown
	Expires   int64  `json:"e"`
	CSRF      string `json:"c"`
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newSession starts a session of kind ending SessionTTL from now.
func (m *Module) newSession(kind string) *session {
	return &session{ID: randomToken(), Kind: kind, Expires: m.opts.Now().Add(SessionTTL).Unix(), CSRF: randomToken()}
}

// begin records s, which signs in person p (nil: an OIDC account that is
// no person yet), so that its cookie opens until s ends or is signed out.
func (m *Module) begin(ctx context.Context, s *session, p *identity.Person) error {
	var person, org string
	if p != nil {
		person, org = p.ID, p.OrgID
	}
	return storeSession(ctx, m.db, s.ID, s.Kind, person, org, time.Unix(s.Expires, 0), m.opts.Now())
}

// cookie seals s into the session cookie.
func (m *Module) cookie(s *session) (*http.Cookie, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	v, err := m.box.Seal(string(raw), sessionPlace)
	if err != nil {
		return nil, err
	}
	return &http.Cookie{Name: CookieName, Value: v, Path: "/", HttpOnly: true, Secure: m.secure(),
		SameSite: http.SameSiteStrictMode, Expires: time.Unix(s.Expires, 0)}, nil
}

// clearCookie ends the session cookie in the browser.
func (m *Module) clearCookie(name, path string) *http.Cookie {
	return &http.Cookie{Name: name, Value: "", Path: path, HttpOnly: true, Secure: m.secure(),
		SameSite: http.SameSiteStrictMode, MaxAge: -1}
}

var errNoSession = errs.E(errs.Unauthorized, "the console session is not valid or has ended; sign in again")

// unseal reads the session cookie of a Cookie header, without asking for
// its record: nil and no error when there is none; unauthorized when it
// does not open or has ended.
func (m *Module) unseal(cookieHeader string) (*session, error) {
	c, err := (&http.Request{Header: http.Header{"Cookie": {cookieHeader}}}).Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	plain, err := m.box.Open(c.Value, sessionPlace)
	if err != nil || plain == c.Value { // not sealed at all is no session either
		return nil, errNoSession
	}
	var s session
	if err := json.Unmarshal([]byte(plain), &s); err != nil || s.CSRF == "" || m.opts.Now().Unix() >= s.Expires {
		return nil, errNoSession
	}
	return &s, nil
}

// open reads the session cookie of a Cookie header and its record: nil and
// no error when there is none; unauthorized when it does not open, has
// ended, or has no live record (signed out, or a cookie from before
// records were kept).
func (m *Module) open(ctx context.Context, cookieHeader string) (*session, *record, error) {
	s, err := m.unseal(cookieHeader)
	if err != nil || s == nil {
		return nil, nil, err
	}
	if s.ID == "" {
		return nil, nil, errNoSession
	}
	rec, err := loadSession(ctx, m.db, s.ID, m.opts.Now())
	if err != nil {
		return nil, nil, err
	}
	if rec == nil || rec.Kind != s.Kind {
		return nil, nil, errNoSession
	}
	return s, rec, nil
}

// AdminSession is kernel.AdminSessions: the person of the request's
// session cookie. An OIDC session's access token is checked as a bearer
// token is, refreshed first when it has ended (the new cookie goes out
// through setCookie); a local session's person must exist and be enabled.
func (m *Module) AdminSession(ctx context.Context, cookieHeader string, setCookie func(string)) (*kernel.AdminSession, error) {
	s, rec, err := m.open(ctx, cookieHeader)
	if err != nil || s == nil {
		return nil, err
	}
	var p *identity.Person
	switch s.Kind {
	case kindLocal:
		p, err = m.localPerson(ctx, s.Person)
	case kindOIDC:
		p, err = m.oidcPerson(ctx, s, setCookie)
	default:
		err = errNoSession
	}
	if err != nil {
		return nil, err
	}
	if rec.Person != p.ID { // an OIDC account that became a person: sign-out must stop them
		if err := setSessionPerson(ctx, m.db, s.ID, p.ID, p.OrgID); err != nil {
			return nil, err
		}
	}
	return &kernel.AdminSession{Person: p, CSRF: s.CSRF}, nil
}

// localPerson is the person of a local session, who must still exist and
// be enabled.
func (m *Module) localPerson(ctx context.Context, id string) (*identity.Person, error) {
	p, err := identity.RequirePerson(ctx, m.db, id, identity.Viewer)
	switch {
	case err == nil:
		return p, nil
	case p != nil && p.DisabledAt != nil:
		return nil, identity.Disabled()
	case errs.CodeOf(err) == errs.Forbidden:
		return nil, errs.E(errs.Unauthorized, "the console session's person is no longer on this board; sign in again")
	}
	return nil, err
}

// oidcPerson checks the session's access token as the Admin API checks a
// bearer token, refreshing it first when it has ended or is refused.
func (m *Module) oidcPerson(ctx context.Context, s *session, setCookie func(string)) (*identity.Person, error) {
	var p *identity.Person
	err := m.withAccess(ctx, s, setCookie, func(bearer string) (err error) {
		p, err = m.auth.Authenticate(ctx, bearer)
		return err
	})
	return p, err
}

// AdminAccount is kernel.AdminSessions: the account of the request's OIDC
// session, person or not; a local session has none (it is a person).
func (m *Module) AdminAccount(ctx context.Context, cookieHeader string, setCookie func(string)) (*kernel.AccountSession, error) {
	s, _, err := m.open(ctx, cookieHeader)
	if err != nil || s == nil || s.Kind != kindOIDC {
		return nil, err
	}
	var acct *authissuer.Identity
	err = m.withAccess(ctx, s, setCookie, func(bearer string) (err error) {
		acct, err = m.verifier.Verify(ctx, bearer)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &kernel.AccountSession{Account: acct, CSRF: s.CSRF}, nil
}

// withAccess runs check on the session's access token as a bearer,
// refreshing the token first when it has ended, or when check refuses it
// as unauthorized; a refreshed session goes out through setCookie.
func (m *Module) withAccess(ctx context.Context, s *session, setCookie func(string), check func(bearer string) error) error {
	fresh := s.AccessExp == 0 || m.opts.Now().Before(time.Unix(s.AccessExp, 0))
	if fresh {
		err := check("Bearer " + s.Access)
		if errs.CodeOf(err) != errs.Unauthorized || s.Refresh == "" {
			return err
		}
	}
	if s.Refresh == "" {
		return errNoSession
	}
	if err := m.refresh(ctx, s); err != nil {
		return err
	}
	if err := check("Bearer " + s.Access); err != nil {
		return err
	}
	c, err := m.cookie(s)
	if err != nil {
		return err
	}
	setCookie(c.String())
	return nil
}
