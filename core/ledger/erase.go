package ledger

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// ErasePayload erases the payload of entry id (PDPA): its content becomes
// NULL while the entry and its payload_hash stay, so the chain still
// verifies. It reports whether anything was erased (false when the entry does
// not exist or was erased before). Callers check the entry's organization
// first (EntryOrg).
func (l *Log) ErasePayload(ctx context.Context, tx bun.IDB, id int64) (bool, error) {
	res, err := tx.NewRaw(`UPDATE payloads SET content = NULL, erased_at = now()
		WHERE id = (SELECT payload_ref FROM entries WHERE id = ?) AND erased_at IS NULL`, id).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("ledger: erase the payload of entry %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// EntryOrg returns the organization of entry id, or "" when there is none.
func (l *Log) EntryOrg(ctx context.Context, tx bun.IDB, id int64) (string, error) {
	var org []string
	err := tx.NewRaw(`SELECT org_id FROM entries WHERE id = ?`, id).Scan(ctx, &org)
	if err != nil {
		return "", fmt.Errorf("ledger: the organization of entry %d: %w", id, err)
	}
	if len(org) == 0 {
		return "", nil
	}
	return org[0], nil
}

// EraseMatching erases (PDPA) the payloads of project's entries whose action
// is one of actions and whose payload's top-level string fields equal every
// pair of match, and returns how many it erased. Erasing a note version uses
// it to take the note's text out of the entries that carried it.
func (l *Log) EraseMatching(ctx context.Context, tx bun.IDB, project string, actions []string, match map[string]string) (int64, error) {
	q := `UPDATE payloads SET content = NULL, erased_at = now()
		WHERE erased_at IS NULL AND id IN (SELECT payload_ref FROM entries WHERE project_id = ? AND action = ANY(?))`
	args := []any{project, pgdialect.Array(actions)}
	for k, v := range match {
		q += ` AND content->>? = ?`
		args = append(args, k, v)
	}
	res, err := tx.NewRaw(q, args...).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("ledger: erase %v payloads of project %s: %w", actions, project, err)
	}
	return res.RowsAffected()
}
