package people

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// Human is a person of the caller's organization.
type Human struct {
	ID         string        `json:"id" example:"ana"`
	Name       string        `json:"name" example:"Ana"`
	Role       identity.Role `json:"role" enum:"owner,approver,viewer"`
	Email      *string       `json:"email" format:"email"`
	CreatedAt  time.Time     `json:"created_at"`
	DisabledAt *time.Time    `json:"disabled_at" doc:"Set while the person is disabled; people are never deleted"`
	Language   *string       `json:"language" doc:"en or th: the language of texts addressed to this person alone; null follows the organization's"`
}

func human(p *identity.Person) Human {
	return Human{ID: p.ID, Name: p.Name, Role: p.Role, Email: p.Email, CreatedAt: p.CreatedAt, DisabledAt: p.DisabledAt,
		Language: p.Language}
}

// OrgBrief names an organization.
type OrgBrief struct {
	ID     string `json:"id" example:"default"`
	Name   string `json:"name"`
	Halted bool   `json:"halted" doc:"The organization's kill switch is on: its agents' calls are refused"`
}

// Me is the signed-in person.
type Me struct {
	ID    string        `json:"id"`
	Name  string        `json:"name"`
	Role  identity.Role `json:"role" enum:"owner,approver,viewer"`
	Email *string       `json:"email"`
	Org   OrgBrief      `json:"org"`
	// Language is the person's own choice, nil when they follow the
	// organization; ReadsIn is what texts addressed to them are written in.
	Language *string `json:"language" doc:"en or th: their own language; null follows the organization's"`
	ReadsIn  string  `json:"reads_in" enum:"en,th" doc:"The language texts addressed to them are written in: their own, else the organization's"`
}

// meOf is what /me answers for p of organization o.
func meOf(p *identity.Person, o *identity.Org) Me {
	reads := o.Language
	if p.Language != nil {
		reads = *p.Language
	}
	return Me{ID: p.ID, Name: p.Name, Role: p.Role, Email: p.Email,
		Org: OrgBrief{ID: o.ID, Name: o.Name, Halted: o.Halted}, Language: p.Language, ReadsIn: reads}
}

// Me is person p, signed in, with their organization.
func (s *Service) Me(ctx context.Context, p *identity.Person) (*Me, error) {
	o, err := s.ident.GetOrg(ctx, s.db, p.OrgID)
	if err != nil {
		return nil, err
	}
	me := meOf(p, o)
	return &me, nil
}

// SetMyLanguage sets the acting person's own language (a tag of
// i18n.Languages), or clears it when lang is nil so they follow their
// organization's. Anyone signed in may choose their own. Refusals:
// forbidden; invalid_request (a language the board does not speak).
func (s *Service) SetMyLanguage(ctx context.Context, by string, lang *string) (*Me, error) {
	var out *Me
	err := s.ident.Act(ctx, by, identity.Viewer, "admin.me.update", map[string]any{"language": lang},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			np, err := s.ident.SetHumanLanguage(ctx, tx, p.ID, lang)
			if err != nil {
				return err
			}
			o, err := s.ident.GetOrg(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			me := meOf(np, o)
			out = &me
			return nil
		})
	return out, err
}

// Humans lists the people of person p's organization, by id.
func (s *Service) Humans(ctx context.Context, p *identity.Person) ([]Human, error) {
	ps, err := s.ident.ListPeople(ctx, s.db, p.OrgID)
	out := make([]Human, 0, len(ps))
	for i := range ps {
		out = append(out, human(&ps[i]))
	}
	return out, err
}

// AddHuman invites a person to the acting owner's organization; with by
// empty it makes the board's first person (identity.AddHuman decides,
// checks and logs).
func (s *Service) AddHuman(ctx context.Context, by string, in identity.HumanInput) (*identity.Person, error) {
	return s.ident.AddHuman(ctx, by, in)
}

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
func (s *Service) UpdateHuman(ctx context.Context, by, id string, upd HumanUpdate) (*identity.Person, error) {
	if upd.Name != nil {
		upd.Name = ptr(strings.TrimSpace(*upd.Name))
	}
	if upd.Email != nil {
		upd.Email = ptr(strings.TrimSpace(*upd.Email))
	}
	var out *identity.Person
	err := s.ident.Act(ctx, by, identity.Owner, "admin.human.update", map[string]any{"human_id": id, "changes": upd},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if err := validUpdate(upd); err != nil {
				return err
			}
			// One owner change at a time per organization, so two demotions
			// cannot each see the other owner still active.
			if err := s.ident.LockOrg(ctx, tx, p.OrgID); err != nil {
				return err
			}
			old, err := s.ident.GetPerson(ctx, tx, id)
			if err == nil && old.OrgID != p.OrgID {
				err = errs.E(errs.NotFound, "human %s does not exist", id)
			}
			if err != nil {
				return err
			}
			if upd.Email != nil && *upd.Email != "" && !strings.EqualFold(*upd.Email, deref(old.Email)) {
				taken, err := s.ident.EmailTaken(ctx, tx, p.OrgID, *upd.Email, id)
				if err != nil {
					return err
				}
				if taken {
					return errs.E(errs.IDTaken, "email %s is already someone's in this organization", *upd.Email)
				}
			}
			out, err = s.ident.SetHumanFields(ctx, tx, id, identity.HumanFields{Name: upd.Name, Email: upd.Email,
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
				if _, err := s.mandates.RevokeIssuedBy(ctx, tx, id); err != nil {
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
