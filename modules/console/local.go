package console

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

var zeroTime time.Time

// IssueLocalCode stores a one-time local sign-in code for person, lasting
// LocalCodeTTL from now, and returns it for the operator's terminal; only
// its hash is kept. pact-board calls it at start when
// PACT_CONSOLE_LOCAL_SIGNIN is on (docs/security.md).
func IssueLocalCode(ctx context.Context, tx bun.IDB, person string, now time.Time) (string, error) {
	code := randomToken()
	// Spent and expired codes prove nothing; keep the table small.
	if err := storeLocalCode(ctx, tx, identity.HashToken(code), person, now.Add(LocalCodeTTL), now.Add(-24*time.Hour)); err != nil {
		return "", err
	}
	return code, nil
}

// LocalLink is the console link pact-board prints for person: base is the
// board's public URL.
func LocalLink(ctx context.Context, tx bun.IDB, base, person string, now time.Time) (string, error) {
	code, err := IssueLocalCode(ctx, tx, person, now)
	if err != nil {
		return "", err
	}
	return base + "/console/auth/local?code=" + code, nil
}

var errBadCode = errs.E(errs.Unauthorized, "this console link is not valid: it was used, has expired or never existed; "+
	"restart pact-board for a new one")

// redeem spends code: one statement reads and marks it used, so it works
// once however many requests race.
func (m *Module) redeem(ctx context.Context, code string) (string, error) {
	if code == "" {
		return "", errBadCode
	}
	id, err := spendLocalCode(ctx, m.db, identity.HashToken(code), m.opts.Now())
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", errBadCode
	}
	return id, nil
}

// local signs the code's person in and opens the console.
func (m *Module) local(w http.ResponseWriter, r *http.Request) {
	if !m.cfg.ConsoleLocalSignin {
		writeError(w, errs.E(errs.NotFound, "local sign-in to the console is off on this board (PACT_CONSOLE_LOCAL_SIGNIN)"))
		return
	}
	id, err := m.redeem(r.Context(), r.URL.Query().Get("code"))
	if err != nil {
		writeError(w, err)
		return
	}
	p, err := m.localPerson(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	s := m.newSession(kindLocal)
	s.Person = id
	m.setSession(w, r, s, p, "/console/")
}
