package board

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The tasks rows the task services change, one statement each.

// heldTask is the id of a working task agent holds, "" when none; it locks
// the agent's row first, so two sessions of one agent serialise here.
func heldTask(ctx context.Context, tx bun.IDB, agent string) (string, error) {
	if _, err := tx.ExecContext(ctx, `SELECT id FROM agents WHERE id = ? FOR UPDATE`, agent); err != nil {
		return "", fmt.Errorf("board.heldTask: %w", err)
	}
	var held []string
	if err := tx.NewRaw(`SELECT id::text FROM tasks WHERE assignee = ? AND status = 'working' LIMIT 1`, agent).Scan(ctx, &held); err != nil {
		return "", fmt.Errorf("board.heldTask: %w", err)
	}
	if len(held) == 0 {
		return "", nil
	}
	return held[0], nil
}

// claimTask gives an open, unheld task to agent under mandate; false when
// it was not open and unheld any more.
func claimTask(ctx context.Context, tx bun.IDB, taskID, agent string, mandate uuid.UUID) (bool, error) {
	res, err := tx.ExecContext(ctx, `UPDATE tasks SET assignee = ?, assignee_mandate_id = ?, status = 'working', claimed_at = now()
		WHERE id = ? AND assignee IS NULL AND status = 'submitted'`, agent, mandate, taskID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// closeTask sets a closing status and its result.
func closeTask(ctx context.Context, tx bun.IDB, taskID, status string, result json.RawMessage) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, result = ?::jsonb WHERE id = ?`, status, string(resultJSON(result)), taskID)
	return err
}

// deferTask hands a task to people: input_required, deferred and unheld,
// with the reason and the scopes that would be needed.
func deferTask(ctx context.Context, tx bun.IDB, taskID, reason string, needed []string) error {
	var scopes any
	if len(needed) > 0 {
		scopes = pgdialect.Array(needed)
	}
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = ?,
		needed_scope = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`, reason, scopes, taskID)
	return err
}

// askTask hands a task to people with a question: as deferTask, with the
// result that asks it (nil for none).
func askTask(ctx context.Context, tx bun.IDB, taskID, question string, result *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', result = ?::jsonb, deferred = true,
		defer_reason = ?, needed_scope = NULL, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`,
		result, question, taskID)
	return err
}

// reopen puts a task back on the board as submitted, unheld.
func reopen(ctx context.Context, tx bun.IDB, taskID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', assignee = NULL, assignee_mandate_id = NULL,
		claimed_at = NULL WHERE id = ?`, taskID)
	return err
}

// stoppedBy lists the tasks canceled because mandate was revoked, by id.
func stoppedBy(ctx context.Context, tx bun.IDB, mandate string) ([]string, error) {
	var stopped []string
	err := tx.NewRaw(`SELECT id::text FROM tasks WHERE result->>'reason' = 'mandate_revoked'
		AND result->>'mandate_id' = ? ORDER BY id`, mandate).Scan(ctx, &stopped)
	return stopped, err
}
