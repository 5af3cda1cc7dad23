package people

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// HumanUpdate is what UpdateHuman changes; nil leaves a field as it is. An
// empty Email removes the address.
type HumanUpdate struct {
	Name     *string        `json:"name,omitempty"`
	Email    *string        `json:"email,omitempty"`
	Role     *identity.Role `json:"role,omitempty"`
	Disabled *bool          `json:"disabled,omitempty"`
}

// UpdateHuman changes a person of the acting owner's organization (§10.2).
// A changed email clears the account binding, so the person is matched by
// the new address at their next sign-in. People are never deleted, only
// disabled, and the organization always keeps an active owner. Refusals:
// forbidden; not_found; invalid_request (nothing to change, a blank name, a
// bad role or email, no active owner left); id_taken (email registered).
func (m *Module) UpdateHuman(ctx context.Context, by, id string, upd HumanUpdate) (*identity.Person, error) {
	if upd.Name != nil {
		upd.Name = ptr(strings.TrimSpace(*upd.Name))
	}
	if upd.Email != nil {
		upd.Email = ptr(strings.TrimSpace(*upd.Email))
	}
	var out *identity.Person
	err := m.identity.Act(ctx, by, identity.Owner, "admin.human.update", map[string]any{"human_id": id, "changes": upd},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := validUpdate(upd); err != nil {
				return err
			}
			// One owner change at a time per organization, so two demotions
			// cannot each see the other owner still active.
			if err := m.identity.LockOrg(ctx, tx, p.OrgID); err != nil {
				return err
			}
			old, err := m.identity.GetPerson(ctx, tx, id)
			if err == nil && old.OrgID != p.OrgID {
				err = errs.E(errs.NotFound, "human %s does not exist", id)
			}
			if err != nil {
				return err
			}
			if upd.Email != nil && *upd.Email != "" && !strings.EqualFold(*upd.Email, deref(old.Email)) {
				taken, err := m.identity.EmailTaken(ctx, tx, p.OrgID, *upd.Email, id)
				if err != nil {
					return err
				}
				if taken {
					return errs.E(errs.IDTaken, "email %s is already someone's in this organization", *upd.Email)
				}
			}
			out, err = m.identity.SetHumanFields(ctx, tx, id, identity.HumanFields{Name: upd.Name, Email: upd.Email,
				Role: upd.Role, Disabled: upd.Disabled,
				Unbind: upd.Email != nil && !strings.EqualFold(*upd.Email, deref(old.Email))})
			if err != nil {
				return err
			}
			if upd.Disabled != nil && *upd.Disabled && old.DisabledAt == nil {
				// The authority a person gave ends with their access
				// (docs/security.md, finding 4): every root mandate they
				// issued is revoked, with its subtree, the tasks hanging on
				// it and the credentials exported for it. Enabling them again
				// gives none of it back.
				if _, err := m.mandates.RevokeIssuedBy(ctx, tx, id); err != nil {
					return err
				}
			}
			owner, err := identity.FirstOwner(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			if owner == "" {
				return errs.E(errs.InvalidRequest, "the organization must keep an active owner; make someone else owner first")
			}
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
	case upd.Email != nil && *upd.Email != "" && !identity.ValidEmail(*upd.Email):
		return errs.E(errs.InvalidRequest, "%q is not an email address", *upd.Email)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
