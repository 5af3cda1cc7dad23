package people

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// The platform operator's operations: whoever runs pact-admin against the
// database. No Admin API route reaches them; each is logged with actor
// "system" in the affected organizations' own logs.

// ListOrgs lists every organization with counts of active people, projects
// and active agents: their sizes, never their people.
func (s *Service) ListOrgs(ctx context.Context) ([]identity.OrgSummary, error) {
	return s.ident.ListOrgs(ctx, s.db)
}

// RenameOrg renames an organization. Refusals: not_found, invalid_request.
func (s *Service) RenameOrg(ctx context.Context, org, name string) error {
	name = strings.TrimSpace(name)
	return s.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "name": name},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			if name == "" || len([]rune(name)) > 80 {
				return errs.E(errs.InvalidRequest, "an organization's name is 1-80 characters")
			}
			return s.existingOrg(ctx, tx, e, org, func() error { return s.ident.SetOrgName(ctx, tx, org, name) })
		})
}

// SetOrgHaltedByOperator halts or resumes one organization. Refusal:
// not_found.
func (s *Service) SetOrgHaltedByOperator(ctx context.Context, org string, halted bool) error {
	return s.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "halted": halted},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			return s.existingOrg(ctx, tx, e, org, func() error { return s.ident.SetOrgHalted(ctx, tx, org, halted) })
		})
}

// SetPlatformHalted flips the platform-wide kill switch and writes a
// platform.halt entry into every organization's log, so each owner sees
// what was done to them.
func (s *Service) SetPlatformHalted(ctx context.Context, halted bool) error {
	return s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := s.ident.SetPlatformHalted(ctx, tx, halted); err != nil {
			return err
		}
		orgs, err := s.ident.ListOrgs(ctx, tx)
		if err != nil {
			return err
		}
		for _, o := range orgs {
			if _, err := s.log.Append(ctx, tx, ledger.Entry{OrgID: o.ID, Actor: "system", Action: "platform.halt",
				Payload: map[string]any{"halted": halted}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// operator runs fn as the platform's operator and records it with actor
// "system" in org's log.
func (s *Service) operator(ctx context.Context, org, action string, payload any,
	fn func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error) error {
	e := ledger.Entry{Actor: "system", Action: action, Payload: payload, OrgID: org}
	return s.log.Record(ctx, s.db, e, fn)
}

// existingOrg runs write when org exists; otherwise it refuses, and the
// entry goes to no organization's log: an unknown one has none.
func (s *Service) existingOrg(ctx context.Context, tx bun.IDB, e *ledger.Entry, org string, write func() error) error {
	ok, err := s.ident.OrgExists(ctx, tx, org)
	if err != nil {
		return err
	}
	if !ok {
		e.OrgID = ""
		return errs.E(errs.NotFound, "organization %s does not exist", org)
	}
	return write()
}
