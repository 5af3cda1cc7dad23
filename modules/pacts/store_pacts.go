package pacts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The pacts (pacts): a pact's row, its creation and closing, and the
// locks that creations in a project, and changes to a pact's seats,
// serialise on.

// pactRow is a pact as stored.
type pactRow struct {
	ID         string     `bun:"id"`
	OrgID      string     `bun:"org_id"`
	ProjectID  string     `bun:"project_id"`
	Name       string     `bun:"name"`
	Purpose    string     `bun:"purpose"`
	Rules      string     `bun:"rules"`
	OwnerHuman string     `bun:"owner_human"`
	CreatedBy  string     `bun:"created_by"`
	CreatedAt  time.Time  `bun:"created_at"`
	ClosedAt   *time.Time `bun:"closed_at"`
}

// getPact reads pact id in org, locking its row when lock is set.
func getPact(ctx context.Context, tx bun.IDB, org, id string, lock bool) (*pactRow, error) {
	q := `SELECT id, org_id, project_id, name, purpose, rules, owner_human, created_by, created_at, closed_at
		FROM pacts WHERE id::text = ? AND org_id = ?`
	if lock {
		q += ` FOR NO KEY UPDATE`
	}
	var p pactRow
	if err := tx.NewRaw(q, id, org).Scan(ctx, &p); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("pacts: read pact %s: %w", id, err)
	}
	return &p, nil
}

// pactOf finds, in org, the pact named by id or else the pact of decision
// decision, and its project; "" when there is none.
func pactOf(ctx context.Context, d bun.IDB, org, id, decision string) (pact, project string, err error) {
	var rows []struct {
		ID        string `bun:"id"`
		ProjectID string `bun:"project_id"`
	}
	err = d.NewRaw(`SELECT p.id::text AS id, p.project_id FROM pacts p
		WHERE p.org_id = ? AND (p.id::text = ? OR p.id = (SELECT pact_id FROM pact_decisions WHERE id::text = ?))`,
		org, id, decision).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return "", "", err
	}
	return rows[0].ID, rows[0].ProjectID, nil
}

// insertPact stores in as a new pact of org that owner answers for,
// started by by, and answers its id.
func insertPact(ctx context.Context, tx bun.IDB, org, owner, by string, in NewPact) (string, error) {
	var id string
	err := tx.NewRaw(`INSERT INTO pacts (org_id, project_id, name, purpose, rules, owner_human, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id::text`,
		org, in.ProjectID, in.Name, in.Purpose, in.Rules, owner, by).Scan(ctx, &id)
	if err != nil {
		return "", fmt.Errorf("pacts: create a pact in %s: %w", in.ProjectID, err)
	}
	return id, nil
}

// lockOpenPacts serialises the creations of pacts in project, on an
// advisory lock held until the transaction ends.
func lockOpenPacts(ctx context.Context, tx bun.IDB, project string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, pactLocks, project); err != nil {
		return fmt.Errorf("pacts: lock the open pacts of %s: %w", project, err)
	}
	return nil
}

// openPacts counts the open pacts of project, with org's open-pact limit
// per project (def when it set none). It is a statement of its own, so
// after lockOpenPacts its snapshot is taken after the lock.
func openPacts(ctx context.Context, tx bun.IDB, org, project string, def int) (open, limit int, err error) {
	err = tx.NewRaw(`SELECT (SELECT count(*) FROM pacts WHERE project_id = ? AND closed_at IS NULL),
		coalesce((SELECT open_limit FROM pact_org_settings WHERE org_id = ?), ?)`,
		project, org, def).Scan(ctx, &open, &limit)
	if err != nil {
		return 0, 0, fmt.Errorf("pacts: count the open pacts of %s: %w", project, err)
	}
	return open, limit, nil
}

// lockPact locks pact id's row: the changes to its seats serialise on it.
func lockPact(ctx context.Context, tx bun.IDB, id string) error {
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM pacts WHERE id = ? FOR NO KEY UPDATE`, id); err != nil {
		return fmt.Errorf("pacts: lock pact %s: %w", id, err)
	}
	return nil
}

// markClosed marks pact id closed at at by by.
func markClosed(ctx context.Context, tx bun.IDB, id, by string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE pacts SET closed_at = ?, closed_by = ? WHERE id = ?`, at, by, id); err != nil {
		return fmt.Errorf("pacts: close %s: %w", id, err)
	}
	return nil
}
