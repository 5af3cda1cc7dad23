package kernel

import (
	"context"
	"crypto/subtle"
	"net/http"
	"sync"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// CSRFHeader carries a cookie session's CSRF token on an unsafe Admin API
// call (docs/console.md).
const CSRFHeader = "X-CSRF-Token"

// AdminSession is a signed-in session of the console: the person and the
// token their unsafe calls must repeat in CSRFHeader.
type AdminSession struct {
	Person *identity.Person
	CSRF   string
}

// AdminSessions turns the console's session cookie into the person it
// signs in, so the Admin API accepts it where a request has no
// Authorization header (docs/console.md). modules/console provides it.
type AdminSessions interface {
	// AdminSession returns the session the request's Cookie header holds,
	// or nil and no error when it holds none. setCookie adds a Set-Cookie
	// header to the answer (a session whose access token was refreshed).
	// Refusals: unauthorized (a session that does not open or has ended),
	// not_registered, account_disabled, unavailable.
	AdminSession(ctx context.Context, cookie string, setCookie func(string)) (*AdminSession, error)
	// AdminAccount returns the account the request's cookie session signed
	// in, person or not, or nil and no error when it holds no account
	// session (none, or a local one, which is always a person). It serves
	// the operations any account may call: invitations, sign-up.
	// Refusals: unauthorized, unavailable.
	AdminAccount(ctx context.Context, cookie string, setCookie func(string)) (*AccountSession, error)
}

// AccountSession is a console session's account: what its access token
// proves, and the token its unsafe calls must repeat in CSRFHeader.
type AccountSession struct {
	Account *authissuer.Identity
	CSRF    string
}

// adminSessions forwards to the module that provides them; with none, no
// request has a session.
type adminSessions struct {
	mu       sync.Mutex
	provider AdminSessions
}

func (a *adminSessions) get() AdminSessions {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.provider
}

// ProvideAdminSessions makes s the Admin API's cookie sessions; call it at
// start-up.
func (h *Host) ProvideAdminSessions(s AdminSessions) {
	h.k.seams.sessions.mu.Lock()
	defer h.k.seams.sessions.mu.Unlock()
	h.k.seams.sessions.provider = s
}

// AdminAuthenticator returns what turns an Authorization header into the
// person it names, as the Admin API's gate does: the board's
// authenticator, else one refusing every token. The console checks its
// sessions' access tokens with it. Modules keep it past Register.
func (h *Host) AdminAuthenticator() AdminAuthenticator {
	if h.k.deps.AdminAuth != nil {
		return h.k.deps.AdminAuth
	}
	return noAuthenticator{}
}

type noAuthenticator struct{}

func (noAuthenticator) Authenticate(context.Context, string) (*identity.Person, error) {
	return nil, errs.E(errs.Unauthorized, "OAuth is not configured on this board (PACT_AUTH_ISSUER)")
}

// sessionPerson is the person of the request's cookie session, or nil when
// it has none (or carries an Authorization header, which wins). An unsafe
// method must repeat the session's CSRF token in CSRFHeader.
func (k *Kernel) sessionPerson(ctx context.Context, method string, header func(string) string,
	setCookie func(string)) (*identity.Person, error) {
	s := k.cookieSessions(header)
	if s == nil {
		return nil, nil
	}
	sess, err := s.AdminSession(ctx, header("Cookie"), setCookie)
	if err != nil || sess == nil {
		return nil, err
	}
	if err := checkCSRF(method, header, sess.CSRF); err != nil {
		return nil, err
	}
	return sess.Person, nil
}

// SessionAccounts reads the account of a request's console session for the
// public operations that take any signed-in account (invitations,
// sign-up), which check their caller themselves. Modules keep it past
// Register.
type SessionAccounts struct{ k *Kernel }

// SessionAccounts returns the board's SessionAccounts.
func (h *Host) SessionAccounts() SessionAccounts { return SessionAccounts{k: h.k} }

// Account is the account of the request's cookie session, or nil when it
// has none (or carries an Authorization header, which wins). An unsafe
// method must repeat the session's CSRF token in CSRFHeader.
func (a SessionAccounts) Account(ctx context.Context, method string, header func(string) string,
	setCookie func(string)) (*authissuer.Identity, error) {
	s := a.k.cookieSessions(header)
	if s == nil {
		return nil, nil
	}
	sess, err := s.AdminAccount(ctx, header("Cookie"), setCookie)
	if err != nil || sess == nil {
		return nil, err
	}
	if err := checkCSRF(method, header, sess.CSRF); err != nil {
		return nil, err
	}
	return sess.Account, nil
}

// cookieSessions is what reads the request's console session, or nil
// when none applies: no provider, no cookie, or an Authorization header,
// which wins.
func (k *Kernel) cookieSessions(header func(string) string) AdminSessions {
	s := k.seams.sessions.get()
	if s == nil || header("Authorization") != "" || header("Cookie") == "" {
		return nil
	}
	return s
}

// checkCSRF refuses an unsafe method that does not repeat the session's
// CSRF token: the cookie goes with any request the browser sends, the
// header only with the console's own.
func checkCSRF(method string, header func(string) string, token string) error {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	got := header(CSRFHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
		return errs.E(errs.Forbidden, "a %s with a console session needs the header %s: the session's CSRF token, from GET /console/session",
			method, CSRFHeader)
	}
	return nil
}
