package identity

import (
	"context"

	"github.com/uptrace/bun"
)

// The row-level writes of people that modules/people's administration
// (changing a person, §10.2) makes; the rules are people's.

// HumanFields are what SetHumanFields changes; nil leaves a column as it
// is. An empty Email removes the address; Unbind clears the account
// binding, so the person is matched by their address at the next sign-in.
type HumanFields struct {
	Name, Email *string
	Role        *Role
	Disabled    *bool
	Unbind      bool
}

// SetHumanFields changes person id, in tx, and returns the row. Refusals:
// the database's (db.Refusal).
func (s *Service) SetHumanFields(ctx context.Context, tx bun.IDB, id string, f HumanFields) (*Person, error) {
	email := ""
	if f.Email != nil {
		email = *f.Email
	}
	var p Person
	err := tx.NewRaw(`UPDATE humans SET
		name = coalesce(?, name),
		role = coalesce(?, role),
		email = CASE WHEN ? THEN nullif(?, '') ELSE email END,
		auth_issuer = CASE WHEN ? THEN NULL ELSE auth_issuer END,
		auth_sub = CASE WHEN ? THEN NULL ELSE auth_sub END,
		disabled_at = CASE WHEN ?::boolean IS NULL THEN disabled_at
			WHEN ?::boolean THEN coalesce(disabled_at, now()) ELSE NULL END
		WHERE id = ? RETURNING `+personCols,
		f.Name, f.Role, f.Email != nil, email, f.Unbind, f.Unbind, f.Disabled, f.Disabled, id).Scan(ctx, &p)
	if err != nil {
		return nil, translate(err, "human "+id)
	}
	return &p, nil
}

// LockOrg holds org's row until tx ends, so changes that must see the whole
// organization (its active owners) run one at a time. FOR NO KEY UPDATE
// excludes itself but not the KEY SHARE lock every log entry of the
// organization takes through its foreign key while it holds its chain's
// head, which FOR UPDATE would turn into a deadlock.
func (s *Service) LockOrg(ctx context.Context, tx bun.IDB, org string) error {
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM orgs WHERE id = ? FOR NO KEY UPDATE`, org)
	return err
}

// EmailTaken reports whether someone of organization org other than person
// except has email, in any case. Emails are unique per organization only,
// so another organization's people never show here (docs/security.md,
// finding 2).
func (s *Service) EmailTaken(ctx context.Context, tx bun.IDB, org, email, except string) (bool, error) {
	var taken bool
	err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM humans WHERE org_id = ? AND lower(email) = lower(?) AND id <> ?)`,
		org, email, except).Scan(ctx, &taken)
	return taken, err
}

// ValidEmail reports whether s looks like an email address.
func ValidEmail(s string) bool { return emailRe.MatchString(s) }
