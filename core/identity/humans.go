package identity

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// HumanUpdate is what UpdateHuman changes; nil leaves a field as it is. An
// empty Email removes the address.
type HumanUpdate struct {
	Name     *string `json:"name,omitempty"`
	Email    *string `json:"email,omitempty"`
	Role     *Role   `json:"role,omitempty"`
	Disabled *bool   `json:"disabled,omitempty"`
}

// UpdateHuman changes a person of the acting owner's organization (§10.2).
// A changed email clears the account binding, so the person is matched by
// the new address at their next sign-in. People are never deleted, only
// disabled, and the organization always keeps an active owner. Refusals:
// forbidden; not_found; invalid_request (nothing to change, a blank name, a
// bad role or email, no active owner left); id_taken (email registered).
func (s *Service) UpdateHuman(ctx context.Context, by, id string, upd HumanUpdate) (*Person, error) {
	if upd.Name != nil {
		upd.Name = ptrTo(strings.TrimSpace(*upd.Name))
	}
	if upd.Email != nil {
		upd.Email = ptrTo(strings.TrimSpace(*upd.Email))
	}
	var out *Person
	err := s.Act(ctx, by, Owner, "admin.human.update", map[string]any{"human_id": id, "changes": upd},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			if err := validUpdate(upd); err != nil {
				return err
			}
			// One owner change at a time per organization, so two demotions
			// cannot each see the other owner still active.
			if _, err := tx.ExecContext(ctx, `SELECT 1 FROM orgs WHERE id = ? FOR UPDATE`, p.OrgID); err != nil {
				return err
			}
			old, err := s.personWhere(ctx, tx, `id = ? AND org_id = ?`, id, p.OrgID)
			if err != nil {
				return err
			}
			if old == nil {
				return errs.E(errs.NotFound, "human %s does not exist", id)
			}
			if upd.Email != nil && *upd.Email != "" && !strings.EqualFold(*upd.Email, deref(old.Email)) {
				var n int
				if err := tx.NewRaw(`SELECT count(*) FROM humans WHERE lower(email) = lower(?) AND id <> ?`, *upd.Email, id).Scan(ctx, &n); err != nil {
					return err
				}
				if n > 0 {
					return errs.E(errs.IDTaken, "email %s is already registered", *upd.Email)
				}
			}
			emailChanged := upd.Email != nil && !strings.EqualFold(*upd.Email, deref(old.Email))
			var np Person
			err = tx.NewRaw(`UPDATE humans SET
				name = coalesce(?, name),
				role = coalesce(?, role),
				email = CASE WHEN ? THEN nullif(?, '') ELSE email END,
				auth_issuer = CASE WHEN ? THEN NULL ELSE auth_issuer END,
				auth_sub = CASE WHEN ? THEN NULL ELSE auth_sub END,
				disabled_at = CASE WHEN ?::boolean IS NULL THEN disabled_at
					WHEN ?::boolean THEN coalesce(disabled_at, now()) ELSE NULL END
				WHERE id = ? RETURNING `+personCols,
				upd.Name, upd.Role, upd.Email != nil, deref(upd.Email), emailChanged, emailChanged,
				upd.Disabled, upd.Disabled, id).Scan(ctx, &np)
			if err != nil {
				return translate(err, "human "+id)
			}
			var owners int
			err = tx.NewRaw(`SELECT count(*) FROM humans WHERE org_id = ? AND role = 'owner' AND disabled_at IS NULL`, p.OrgID).Scan(ctx, &owners)
			if err != nil {
				return err
			}
			if owners == 0 {
				return errs.E(errs.InvalidRequest, "the organization must keep an active owner; make someone else owner first")
			}
			out = &np
			return nil
		})
	return out, err
}

func validUpdate(upd HumanUpdate) error {
	switch {
	case upd.Name == nil && upd.Email == nil && upd.Role == nil && upd.Disabled == nil:
		return errs.E(errs.InvalidRequest, "name something to change: name, email, role or disabled")
	case upd.Name != nil && (*upd.Name == "" || len([]rune(*upd.Name)) > 200):
		return errs.E(errs.InvalidRequest, "a person needs a name of 1-200 characters")
	case upd.Role != nil && !upd.Role.Valid():
		return errs.E(errs.InvalidRequest, "role must be owner, approver or viewer, not %q", *upd.Role)
	case upd.Email != nil && *upd.Email != "" && !emailRe.MatchString(*upd.Email):
		return errs.E(errs.InvalidRequest, "%q is not an email address", *upd.Email)
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
