package identity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// NotRegisteredMessage is what a signed-in account that is no person of the
// board is told.
const NotRegisteredMessage = "this account is not a registered person on the board; sign up or ask an owner to invite you"

// InvitedMessage is what an account that is no person yet is told when its
// verified email has pending invitations: it joins only by accepting one
// (docs/security.md, finding 2).
const InvitedMessage = "this account is not a person on the board yet, but its verified email is invited: " +
	"list the invitations with GET /admin/api/invitations and accept one with POST /admin/api/invitations/{human_id}/accept"

// SignIn returns the person an OAuth account is: the one bound to (issuer,
// sub). Nobody joins an organization by signing in: an account that is no
// person yet is refused, and told when verifiedEmail (passed only when the
// issuer vouched for it) has invitations to accept (docs/security.md,
// finding 2). Refusals: not_registered, account_disabled.
func (s *Service) SignIn(ctx context.Context, issuer, sub, verifiedEmail string) (*Person, error) {
	if issuer == "" || sub == "" {
		return nil, errs.E(errs.NotRegistered, NotRegisteredMessage)
	}
	p, err := personWhere(ctx, s.db, `auth_issuer = ? AND auth_sub = ?`, issuer, sub)
	if err != nil || p != nil {
		return enabled(p, err)
	}
	if verifiedEmail = strings.TrimSpace(verifiedEmail); verifiedEmail != "" {
		invited, err := s.Invitations(ctx, s.db, verifiedEmail)
		if err != nil {
			return nil, err
		}
		if len(invited) > 0 {
			return nil, errs.E(errs.NotRegistered, InvitedMessage)
		}
	}
	return nil, errs.E(errs.NotRegistered, NotRegisteredMessage)
}

// Invitation is a person an owner added with an email that no account has
// taken yet.
type Invitation struct {
	HumanID   string    `bun:"human_id"`
	Name      string    `bun:"name"`
	Role      Role      `bun:"role"`
	OrgID     string    `bun:"org_id"`
	OrgName   string    `bun:"org_name"`
	InvitedAt time.Time `bun:"invited_at"`
}

// Invitations are the pending invitations of email (any case): enabled
// people with that address bound to no account, oldest first.
func (s *Service) Invitations(ctx context.Context, tx bun.IDB, email string) ([]Invitation, error) {
	out := []Invitation{}
	err := tx.NewRaw(`SELECT h.id AS human_id, h.name, h.role, h.org_id, o.name AS org_name, h.created_at AS invited_at
		FROM humans h JOIN orgs o ON o.id = h.org_id
		WHERE lower(h.email) = lower(?) AND h.auth_sub IS NULL AND h.disabled_at IS NULL
		ORDER BY h.created_at, h.id`, strings.TrimSpace(email)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("identity.Invitations: %w", err)
	}
	return out, nil
}

// AccountPerson is the person bound to issuer and sub, or nil.
func (s *Service) AccountPerson(ctx context.Context, tx bun.IDB, issuer, sub string) (*Person, error) {
	return personWhere(ctx, tx, `auth_issuer = ? AND auth_sub = ?`, issuer, sub)
}

// AcceptInvitation binds person id to issuer and sub in tx, if id is a
// pending invitation of email (enabled, bound to no account, that address
// in any case), and returns the person it bound, or nil when id is no such
// invitation.
func (s *Service) AcceptInvitation(ctx context.Context, tx bun.IDB, id, email, issuer, sub string) (*Person, error) {
	var ps []Person
	err := tx.NewRaw(`UPDATE humans SET auth_issuer = ?, auth_sub = ?
		WHERE id = ? AND auth_sub IS NULL AND disabled_at IS NULL AND lower(email) = lower(?)
		RETURNING `+personCols, issuer, sub, id, strings.TrimSpace(email)).Scan(ctx, &ps)
	if err != nil {
		return nil, translate(err, "the account of human "+id)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	return &ps[0], nil
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
