package identity

import (
	"context"
	"time"

	"github.com/uptrace/bun"
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
// and active agents, for the platform's operator (modules/people).
func (s *Service) ListOrgs(ctx context.Context, tx bun.IDB) ([]OrgSummary, error) {
	out := []OrgSummary{}
	err := tx.NewRaw(`SELECT o.id, o.name, o.halted, o.terms_version, o.created_at,
		(SELECT count(*) FROM humans h WHERE h.org_id = o.id AND h.disabled_at IS NULL) AS people,
		(SELECT count(*) FROM projects p WHERE p.org_id = o.id) AS projects,
		(SELECT count(*) FROM agents a WHERE a.org_id = o.id AND a.status <> 'banned') AS agents
		FROM orgs o ORDER BY o.id`).Scan(ctx, &out)
	return out, err
}

// SetOrgHalted sets org's kill switch, in tx.
func (s *Service) SetOrgHalted(ctx context.Context, tx bun.IDB, org string, halted bool) error {
	_, err := tx.ExecContext(ctx, `UPDATE orgs SET halted = ? WHERE id = ?`, halted, org)
	return err
}

// SetPlatformHalted sets the platform-wide kill switch, in tx.
func (s *Service) SetPlatformHalted(ctx context.Context, tx bun.IDB, halted bool) error {
	_, err := tx.ExecContext(ctx, `UPDATE system_state SET halted = ?`, halted)
	return err
}

// Halted reports whether agents of org must stop: the platform or the
// organization is halted.
func (s *Service) Halted(ctx context.Context, tx bun.IDB, org string) (bool, error) {
	var halted bool
	err := tx.NewRaw(`SELECT (SELECT halted FROM system_state) OR coalesce((SELECT halted FROM orgs WHERE id = ?), false)`, org).Scan(ctx, &halted)
	return halted, err
}
