package identity

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// OrgSummary is what the platform's operator sees of an organization: its
// size, never its people.
type OrgSummary struct {
	ID           string    `bun:"id" json:"id"`
	Name         string    `bun:"name" json:"name"`
	Halted       bool      `bun:"halted" json:"halted"`
	TermsVersion *string   `bun:"terms_version" json:"terms_version"`
	CreatedAt    time.Time `bun:"created_at" json:"created_at"`
	People       int       `bun:"people" json:"people"`
	Projects     int       `bun:"projects" json:"projects"`
	Agents       int       `bun:"agents" json:"agents"`
}

// ListOrgs lists every organization with counts of active people, projects
// and active agents (operator only: the CLI).
func (s *Service) ListOrgs(ctx context.Context) ([]OrgSummary, error) {
	out := []OrgSummary{}
	err := s.db.NewRaw(`SELECT o.id, o.name, o.halted, o.terms_version, o.created_at,
		(SELECT count(*) FROM humans h WHERE h.org_id = o.id AND h.disabled_at IS NULL) AS people,
		(SELECT count(*) FROM projects p WHERE p.org_id = o.id) AS projects,
		(SELECT count(*) FROM agents a WHERE a.org_id = o.id AND a.status <> 'banned') AS agents
		FROM orgs o ORDER BY o.id`).Scan(ctx, &out)
	return out, err
}

// RenameOrg renames an organization (operator only). Refusals: not_found,
// invalid_request.
func (s *Service) RenameOrg(ctx context.Context, org, name string) error {
	name = strings.TrimSpace(name)
	return s.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "name": name},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			if name == "" || len([]rune(name)) > 80 {
				return errs.E(errs.InvalidRequest, "an organization's name is 1-80 characters")
			}
			return s.updateOrg(ctx, tx, e, `UPDATE orgs SET name = ? WHERE id = ?`, name, org)
		})
}

// SetOrgHaltedByOperator halts or resumes one organization (operator only).
// Refusal: not_found.
func (s *Service) SetOrgHaltedByOperator(ctx context.Context, org string, halted bool) error {
	return s.operator(ctx, org, "platform.org.update", map[string]any{"org_id": org, "halted": halted},
		func(ctx context.Context, tx bun.Tx, e *ledger.Entry) error {
			return s.updateOrg(ctx, tx, e, `UPDATE orgs SET halted = ? WHERE id = ?`, halted, org)
		})
}

func (s *Service) updateOrg(ctx context.Context, tx bun.Tx, e *ledger.Entry, q string, v any, org string) error {
	res, err := tx.ExecContext(ctx, q, v, org)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		e.OrgID = "" // an unknown organization has no log of its own
		return errs.E(errs.NotFound, "organization %s does not exist", org)
	}
	return nil
}

// SetPlatformHalted flips the platform-wide kill switch (operator only) and
// writes a platform.halt entry into every organization's log, so each
// owner sees what was done to them.
func (s *Service) SetPlatformHalted(ctx context.Context, halted bool) error {
	return s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE system_state SET halted = ?`, halted); err != nil {
			return err
		}
		var orgs []string
		if err := tx.NewRaw(`SELECT id FROM orgs ORDER BY id`).Scan(ctx, &orgs); err != nil {
			return err
		}
		for _, o := range orgs {
			if _, err := s.log.Append(ctx, tx, ledger.Entry{OrgID: o, Actor: "system", Action: "platform.halt",
				Payload: map[string]any{"halted": halted}}); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetOrgHalted is a person's kill switch for their own organization (owners
// only). Refusal: forbidden.
func (s *Service) SetOrgHalted(ctx context.Context, by string, halted bool) error {
	return s.Act(ctx, by, Owner, "admin.kill_switch", map[string]any{"halted": halted},
		func(ctx context.Context, tx bun.Tx, p *Person, e *ledger.Entry) error {
			_, err := tx.ExecContext(ctx, `UPDATE orgs SET halted = ? WHERE id = ?`, halted, p.OrgID)
			return err
		})
}

// Halted reports whether agents of org must stop: the platform or the
// organization is halted.
func (s *Service) Halted(ctx context.Context, tx bun.IDB, org string) (bool, error) {
	var halted bool
	err := tx.NewRaw(`SELECT (SELECT halted FROM system_state) OR coalesce((SELECT halted FROM orgs WHERE id = ?), false)`, org).Scan(ctx, &halted)
	return halted, err
}
