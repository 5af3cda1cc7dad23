package console

import (
	"crypto/subtle"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// csp allows the console's own files only: no inline script or style, no
// framing, no other origin.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets the console's security headers on every answer.
func (m *Module) headers(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		h(w, r)
	})
}

// writeError answers with err in the Admin API's error shape.
func writeError(w http.ResponseWriter, err error) {
	ae := kernel.ToAdminError(err)
	w.Header().Set("Cache-Control", "no-store")
	kernel.WriteJSON(w, ae.GetStatus(), ae)
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeError(w, errs.E(errs.NotFound, "no such console route"))
}

func toConsole(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/console/", http.StatusFound)
}

// personView is the signed-in person as GET /console/session shows them.
type personView struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	OrgID string `json:"org_id"`
}

// accountView is the signed-in account of a session that is no person of
// the board yet.
type accountView struct {
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
}

// getSession tells the browser who is signed in and the CSRF token its
// unsafe calls repeat: a person, or an account that is no person yet
// (person null), which may accept its invitations.
func (m *Module) getSession(w http.ResponseWriter, r *http.Request) {
	setCookie := func(c string) { w.Header().Add("Set-Cookie", c) }
	s, err := m.AdminSession(r.Context(), r.Header.Get("Cookie"), setCookie)
	if errs.CodeOf(err) == errs.NotRegistered {
		m.getAccount(w, r, setCookie)
		return
	}
	if err == nil && s == nil {
		err = errs.E(errs.Unauthorized, "not signed in to the console")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	p := s.Person
	w.Header().Set("Cache-Control", "no-store")
	kernel.WriteJSON(w, http.StatusOK, map[string]any{
		"person": personView{ID: p.ID, Name: p.Name, Role: string(p.Role), OrgID: p.OrgID}, "csrf": s.CSRF})
}

// getAccount answers GET /console/session for an account that is no
// person of the board.
func (m *Module) getAccount(w http.ResponseWriter, r *http.Request, setCookie func(string)) {
	a, err := m.AdminAccount(r.Context(), r.Header.Get("Cookie"), setCookie)
	if err == nil && a == nil {
		err = errs.E(errs.Unauthorized, "not signed in to the console")
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	kernel.WriteJSON(w, http.StatusOK, map[string]any{"person": nil,
		"account": accountView{Email: a.Account.Email, EmailVerified: a.Account.EmailVerified}, "csrf": a.CSRF})
}

// setSession records s, which signs in p (nil: an account that is no
// person yet), seals it into the cookie and sends the browser to next.
func (m *Module) setSession(w http.ResponseWriter, r *http.Request, s *session, p *identity.Person, next string) {
	c, err := m.cookie(s)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := m.begin(r.Context(), s, p); err != nil {
		writeError(w, err)
		return
	}
	http.SetCookie(w, c)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, next, http.StatusFound)
}

// logout ends the session: its record is deleted, so no copy of the
// cookie opens again, and the deletion stops the person's live streams
// (migration 028). A session that still opens must show its CSRF token.
func (m *Module) logout(w http.ResponseWriter, r *http.Request) {
	s, _ := m.unseal(r.Header.Get("Cookie"))
	if s != nil {
		got := r.Header.Get(kernel.CSRFHeader)
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.CSRF)) != 1 {
			writeError(w, errs.E(errs.Forbidden, "signing out needs the header %s: the session's CSRF token, from GET /console/session", kernel.CSRFHeader))
			return
		}
		if s.ID != "" {
			if err := deleteSession(r.Context(), m.db, s.ID); err != nil {
				writeError(w, err)
				return
			}
		}
	}
	http.SetCookie(w, m.clearCookie(CookieName, "/"))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// static serves the console's files: a file that exists, else index.html,
// so the console's own routes load it.
func (m *Module) static(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &errs.Error{Code: errs.InvalidRequest, Message: "the console's files are read with GET"})
		return
	}
	name := strings.TrimPrefix(path.Clean(r.URL.Path), "/console")
	name = strings.TrimPrefix(name, "/")
	if name == "" || name == "session" {
		name = "index.html"
	}
	if st, err := fs.Stat(m.opts.Assets, name); err != nil || st.IsDir() {
		if strings.HasPrefix(name, "assets/") { // a missing asset is missing, not the page
			notFound(w, r)
			return
		}
		name = "index.html"
	}
	body, err := fs.ReadFile(m.opts.Assets, name)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, errs.E(errs.Unavailable, "the console's files are not built into this binary"))
		return
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if name == "index.html" {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, zeroTime, strings.NewReader(string(body)))
}
