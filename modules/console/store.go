package console

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
)

// record is a session's row in console_sessions (migration 028): the
// board's side of a cookie. Person and Org are empty while an OIDC
// session's account is no person of the board.
type record struct {
	Kind    string `bun:"kind"`
	Person  string `bun:"human_id"`
	Org     string `bun:"org_id"`
	Expires time.Time
}

// storeSession records a new session of id (only its hash is kept) and
// drops the records that have ended, whose cookies no longer open anyway.
func storeSession(ctx context.Context, tx bun.IDB, id, kind, person, org string, expires, now time.Time) error {
	if _, err := tx.NewRaw(`INSERT INTO console_sessions (hash, kind, human_id, org_id, expires_at)
		VALUES (?, ?, NULLIF(?, ''), NULLIF(?, ''), ?)`, identity.HashToken(id), kind, person, org, expires).Exec(ctx); err != nil {
		return fmt.Errorf("console: record a session: %w", err)
	}
	if _, err := tx.NewRaw(`DELETE FROM console_sessions WHERE expires_at <= ?`, now).Exec(ctx); err != nil {
		return fmt.Errorf("console: drop ended sessions: %w", err)
	}
	return nil
}

// loadSession is the live record of session id at now, or nil when there
// is none: signed out, ended, or never made.
func loadSession(ctx context.Context, tx bun.IDB, id string, now time.Time) (*record, error) {
	var rs []record
	if err := tx.NewRaw(`SELECT kind, coalesce(human_id, '') AS human_id, coalesce(org_id, '') AS org_id, expires_at AS expires
		FROM console_sessions WHERE hash = ? AND expires_at > ?`, identity.HashToken(id), now).Scan(ctx, &rs); err != nil {
		return nil, fmt.Errorf("console: read a session: %w", err)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	return &rs[0], nil
}

// setSessionPerson records that session id signs in person of org: an
// OIDC account that became a person during its session, so that signing
// out stops that person's live streams.
func setSessionPerson(ctx context.Context, tx bun.IDB, id, person, org string) error {
	if _, err := tx.NewRaw(`UPDATE console_sessions SET human_id = ?, org_id = ? WHERE hash = ?`,
		person, org, identity.HashToken(id)).Exec(ctx); err != nil {
		return fmt.Errorf("console: record a session's person: %w", err)
	}
	return nil
}

// deleteSession ends session id. The row's trigger (migration 028) raises
// an events stop for its person at commit, so their live streams re-check
// and end.
func deleteSession(ctx context.Context, tx bun.IDB, id string) error {
	if _, err := tx.NewRaw(`DELETE FROM console_sessions WHERE hash = ?`, identity.HashToken(id)).Exec(ctx); err != nil {
		return fmt.Errorf("console: end a session: %w", err)
	}
	return nil
}

// storeLocalCode records a local sign-in code's hash for person, usable
// until expires, and drops the codes that ended before dropBefore.
func storeLocalCode(ctx context.Context, tx bun.IDB, hash, person string, expires, dropBefore time.Time) error {
	if _, err := tx.NewRaw(`INSERT INTO console_codes (hash, human_id, expires_at) VALUES (?, ?, ?)`,
		hash, person, expires).Exec(ctx); err != nil {
		return fmt.Errorf("console: store a local sign-in code: %w", err)
	}
	if _, err := tx.NewRaw(`DELETE FROM console_codes WHERE expires_at < ?`, dropBefore).Exec(ctx); err != nil {
		return fmt.Errorf("console: drop old local sign-in codes: %w", err)
	}
	return nil
}

// spendLocalCode marks the live, unused code of hash used at now and
// returns its person, or "" when there is none. One statement reads and
// marks it, so a code works once however many requests race.
func spendLocalCode(ctx context.Context, d bun.IDB, hash string, now time.Time) (string, error) {
	var ids []string
	if err := d.NewRaw(`UPDATE console_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?
		RETURNING human_id`, now, hash, now).Scan(ctx, &ids); err != nil {
		return "", fmt.Errorf("console: redeem a local sign-in code: %w", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}
