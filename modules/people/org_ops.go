package people

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// ProjectFlags are the flags SetProjectFlags changes; nil leaves one as it is.
type ProjectFlags struct {
	Production *bool `json:"production,omitempty"`
	Frozen     *bool `json:"frozen,omitempty"`
}

// SetProjectFlags marks a project production or frozen (owners only).
// Refusals: forbidden, not_found, invalid_request (no flag given).
func (m *Module) SetProjectFlags(ctx context.Context, by, id string, f ProjectFlags) (*identity.Project, error) {
	var out *identity.Project
	err := m.identity.Act(ctx, by, identity.Owner, "admin.project.flags", map[string]any{"project_id": id, "flags": f},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			if f.Production == nil && f.Frozen == nil {
				return errs.E(errs.InvalidRequest, "name a flag to change: --production true|false or --frozen true|false")
			}
			pr, err := identity.ProjectInOrg(ctx, tx, id, p.OrgID)
			if err != nil {
				return err
			}
			e.ProjectID = id
			out, err = m.identity.SetProjectFlags(ctx, tx, pr.ID, f.Production, f.Frozen)
			return err
		})
	return out, err
}

// SetOrgHalted is a person's kill switch for their own organization (owners
// only). Refusal: forbidden.
func (m *Module) SetOrgHalted(ctx context.Context, by string, halted bool) error {
	return m.identity.Act(ctx, by, identity.Owner, "admin.kill_switch", map[string]any{"halted": halted},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			return m.identity.SetOrgHalted(ctx, tx, p.OrgID, halted)
		})
}

// The platform operator's operations: whoever runs pact-admin against the
// database. No Admin API route reaches them; each is logged with actor
// "system" in the affected organizations' own logs.

// ListOrgs lists every organization with counts of active people, projects
// and active agents: their sizes, never their people.
func (m *Module) ListOrgs(ctx context.Context) ([]identity.OrgSummary, error) {
	return m.identity.ListOrgs(ctx, m.db)
}

// RenameOrg renames an organization. Refusals: not_found, invalid_request.
func (m *Module) RenameOrg(ctx context.Context, org, name string) error {
	name = strings.TrimSpace(name)
	return m.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "name": name},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			if name == "" || len([]rune(name)) > 80 {
				return errs.E(errs.InvalidRequest, "an organization's name is 1-80 characters")
			}
			return m.existingOrg(ctx, tx, e, org, func() error { return m.identity.SetOrgName(ctx, tx, org, name) })
		})
}

// SetOrgHaltedByOperator halts or resumes one organization. Refusal:
// not_found.
func (m *Module) SetOrgHaltedByOperator(ctx context.Context, org string, halted bool) error {
	return m.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "halted": halted},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			return m.existingOrg(ctx, tx, e, org, func() error { return m.identity.SetOrgHalted(ctx, tx, org, halted) })
		})
}

// SetPlatformHalted flips the platform-wide kill switch and writes a
// platform.halt entry into every organization's log, so each owner sees
// what was done to them.
func (m *Module) SetPlatformHalted(ctx context.Context, halted bool) error {
	return m.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := m.identity.SetPlatformHalted(ctx, tx, halted); err != nil {
			return err
		}
		orgs, err := m.identity.ListOrgs(ctx, tx)
		if err != nil {
			return err
		}
		for _, o := range orgs {
			if _, err := m.log.Append(ctx, tx, ledger.Entry{OrgID: o.ID, Actor: "system", Action: "platform.halt",
				Payload: map[string]any{"halted": halted}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// operator runs fn as the platform's operator and records it with actor
// "system" in org's log.
func (m *Module) operator(ctx context.Context, org, action string, payload any,
	fn func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error) error {
	e := ledger.Entry{Actor: "system", Action: action, Payload: payload, OrgID: org}
	return m.log.Record(ctx, m.db, e, fn)
}

// existingOrg runs write when org exists; otherwise it refuses, and the
// entry goes to no organization's log: an unknown one has none.
func (m *Module) existingOrg(ctx context.Context, tx bun.IDB, e *ledger.Entry, org string, write func() error) error {
	ok, err := m.identity.OrgExists(ctx, tx, org)
	if err != nil {
		return err
	}
	if !ok {
		e.OrgID = ""
		return errs.E(errs.NotFound, "organization %s does not exist", org)
	}
	return write()
}
