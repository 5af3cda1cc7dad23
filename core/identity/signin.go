package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// NotRegisteredMessage is what a signed-in account that is no person of the
// board is told.
const NotRegisteredMessage = "this account is not a registered person on the board; sign up or ask an owner to invite you"

// SignIn returns the person an OAuth account is (docs/specs/behavior.md §9.3): the one
// bound to (issuer, sub); else the one whose email is verifiedEmail
// (case-insensitively) and who is bound to no account yet, which it binds
// once, logging admin.human.bind, so later tokens need no email. Callers
// pass verifiedEmail only when the issuer vouched for it (email_verified).
// Refusals: not_registered (no such person), account_disabled.
func (s *Service) SignIn(ctx context.Context, issuer, sub, verifiedEmail string) (*Person, error) {
	if issuer == "" || sub == "" {
		return nil, errs.E(errs.NotRegistered, NotRegisteredMessage)
	}
	p, err := personWhere(ctx, s.db, `auth_issuer = ? AND auth_sub = ?`, issuer, sub)
	if err != nil || p != nil {
		return enabled(p, err)
	}
	verifiedEmail = strings.TrimSpace(verifiedEmail)
	if verifiedEmail == "" {
		return nil, errs.E(errs.NotRegistered, NotRegisteredMessage)
	}
	p, err = personWhere(ctx, s.db, `lower(email) = lower(?) AND auth_sub IS NULL`, verifiedEmail)
	if err != nil || p == nil {
		return nil, orNotRegistered(err)
	}
	if p.DisabledAt != nil {
		return nil, disabled()
	}
	e := ledger.Entry{Actor: "human:" + p.ID, Action: "admin.human.bind", OrgID: p.OrgID,
		Payload: map[string]any{"human_id": p.ID, "issuer": issuer}}
	err = s.log.Record(ctx, s.db, e, func(ctx context.Context, tx bun.Tx, _ *ledger.Entry) error {
		res, err := tx.ExecContext(ctx, `UPDATE humans SET auth_issuer = ?, auth_sub = ?
			WHERE id = ? AND auth_sub IS NULL AND disabled_at IS NULL AND lower(email) = lower(?)`, issuer, sub, p.ID, verifiedEmail)
		if err != nil {
			return translate(err, "the account of human "+p.ID)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// Another sign-in bound them first, or an owner changed them.
			return errs.E(errs.NotRegistered, NotRegisteredMessage)
		}
		return nil
	})
	if errs.CodeOf(err) == errs.NotRegistered || errs.CodeOf(err) == errs.IDTaken {
		// A concurrent first sign-in of the same account won the race.
		return enabled(personWhere(ctx, s.db, `auth_issuer = ? AND auth_sub = ?`, issuer, sub))
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// AccountPerson is the person an account already is (bound to issuer and
// sub) or was invited as (verifiedEmail, bound to no account), for
// sign-up. A person with that email bound to another account counts as
// bound.
func (s *Service) AccountPerson(ctx context.Context, tx bun.IDB, issuer, sub, verifiedEmail string) (p *Person, bound bool, err error) {
	p, err = personWhere(ctx, tx, `auth_issuer = ? AND auth_sub = ?`, issuer, sub)
	if err != nil || p != nil || verifiedEmail == "" {
		return p, p != nil, err
	}
	p, err = personWhere(ctx, tx, `lower(email) = lower(?)`, verifiedEmail)
	if err != nil || p == nil {
		return nil, false, err
	}
	err = tx.NewRaw(`SELECT auth_sub IS NOT NULL FROM humans WHERE id = ?`, p.ID).Scan(ctx, &bound)
	return p, bound, err
}

// IsAccountOf reports whether person id is bound to issuer and sub.
func (s *Service) IsAccountOf(ctx context.Context, tx bun.IDB, id, issuer, sub string) (bool, error) {
	var same bool
	err := tx.NewRaw(`SELECT coalesce(auth_issuer = ? AND auth_sub = ?, false) FROM humans WHERE id = ?`,
		issuer, sub, id).Scan(ctx, &same)
	return same, err
}

// BindAccount binds person id, bound to no account yet, to issuer and sub
// in tx, and reports whether it did (false: already bound).
func (s *Service) BindAccount(ctx context.Context, tx bun.IDB, id, issuer, sub string) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE humans SET auth_issuer = ?, auth_sub = ? WHERE id = ? AND auth_sub IS NULL`,
		issuer, sub, id)
	if err != nil {
		return false, translate(err, "the account of human "+id)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Disabled is the refusal of a disabled person's account.
func Disabled() error { return disabled() }

// personWhere is the first person matching where, or nil.
func personWhere(ctx context.Context, tx bun.IDB, where string, args ...any) (*Person, error) {
	var ps []Person
	if err := tx.NewRaw(`SELECT `+personCols+` FROM humans WHERE `+where, args...).Scan(ctx, &ps); err != nil {
		return nil, fmt.Errorf("identity.personWhere: %w", err)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	return &ps[0], nil
}

// enabled refuses a missing or disabled person.
func enabled(p *Person, err error) (*Person, error) {
	switch {
	case err != nil || p == nil:
		return nil, orNotRegistered(err)
	case p.DisabledAt != nil:
		return nil, disabled()
	}
	return p, nil
}

func orNotRegistered(err error) error {
	if err != nil {
		return err
	}
	return errs.E(errs.NotRegistered, NotRegisteredMessage)
}

func disabled() error {
	return errs.E(errs.AccountDisabled, "this account is disabled; ask an owner of your organization")
}
