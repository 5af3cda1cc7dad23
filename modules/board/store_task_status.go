package board

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/redact"
)

// The tasks rows the task services change, one statement each, in bun's
// dialect (?).

// Every text a task stores that an agent or a person wrote (title, body,
// result, defer_reason, answer) is redacted here, in the statements that
// write it, so no path to the tasks table can skip it (docs/security.md,
// finding 5).

// closeTask sets a closing status and its result.
func (store) closeTask(ctx context.Context, tx bun.IDB, taskID, status string, result json.RawMessage) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, result = ?::jsonb WHERE id = ?`, status,
		string(redact.JSON(resultJSON(result))), taskID)
	return err
}

// deferTask hands a task to people: input_required, deferred and unheld,
// with the reason and the scopes that would be needed.
func (store) deferTask(ctx context.Context, tx bun.IDB, taskID, by, reason string, needed []string) error {
	var scopes any
	if len(needed) > 0 {
		scopes = pgdialect.Array(needed)
	}
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', deferred = true, asked = false, defer_reason = ?,
		needed_scope = ?, deferred_by = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`, redact.Text(reason), scopes, by, taskID)
	return err
}

// askTask hands a task to people with a question: as deferTask, with the
// result that asks it (nil for none).
func (store) askTask(ctx context.Context, tx bun.IDB, taskID, by, question string, result *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', result = ?::jsonb, deferred = true, asked = true,
		defer_reason = ?, needed_scope = NULL, deferred_by = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`,
		redactedJSON(result), redact.Text(question), by, taskID)
	return err
}

// reopen puts a task back on the board as submitted, unheld.
func (store) reopen(ctx context.Context, tx bun.IDB, taskID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', assignee = NULL, assignee_mandate_id = NULL,
		claimed_at = NULL WHERE id = ?`, taskID)
	return err
}

// redactedJSON is a nullable JSON text, redacted.
func redactedJSON(s *string) *string {
	if s == nil {
		return nil
	}
	r := string(redact.JSON([]byte(*s)))
	return &r
}

// redactedText is a nullable text, redacted.
func redactedText(s *string) *string {
	if s == nil {
		return nil
	}
	r := redact.Text(*s)
	return &r
}
