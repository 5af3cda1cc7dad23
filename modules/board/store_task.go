package board

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/redact"
)

// The tasks rows the task services change, one statement each.

// lockAgentSQL locks agent $1's row so that two exclusive claims by one
// agent take turns; heldTaskSQL, the next statement of the same round trip,
// then reads the agent's working task, if any. Two statements, because a
// statement reads with the snapshot it started with: a subquery beside the
// lock would not see the claim the lock waited for (a concurrent test
// found two winners that way once nothing else serialized an agent's
// calls). The lock is FOR NO KEY UPDATE: it excludes itself but not the
// KEY SHARE lock that a log entry naming the agent takes through its
// foreign key, so an append holding a chain's head never waits for a claim
// that waits for that head (a deadlock the three-runner test found).
const lockAgentSQL = `SELECT 1 FROM agents WHERE id = $1 FOR NO KEY UPDATE`

// heldTaskSQL is the working task of agent $1, if any (see lockAgentSQL).
const heldTaskSQL = `SELECT (SELECT id::text FROM tasks WHERE assignee = $1 AND status = 'working' LIMIT 1)`

// claimTaskSQL gives task $3 to agent $1 under mandate $2 if it is open and
// unheld, with the claim as the assignee's first heartbeat; it counts the
// tasks it claimed (0 or 1).
const claimTaskSQL = `WITH c AS (
		UPDATE tasks SET assignee = $1, assignee_mandate_id = $2::uuid, status = 'working', claimed_at = now()
		WHERE id = $3::uuid AND assignee IS NULL AND status = 'submitted' RETURNING id, assignee),
	h AS (INSERT INTO task_activity (task_id, agent_id, at) SELECT id, assignee, now() FROM c
		ON CONFLICT (task_id) DO UPDATE SET agent_id = excluded.agent_id, at = excluded.at)
	SELECT count(*) FROM c`

// Every text a task stores that an agent or a person wrote (title, body,
// result, defer_reason, answer) is redacted here, in the statements that
// write it, so no path to the tasks table can skip it (docs/security.md,
// finding 5).

// closeTask sets a closing status and its result.
func closeTask(ctx context.Context, tx bun.IDB, taskID, status string, result json.RawMessage) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, result = ?::jsonb WHERE id = ?`, status,
		string(redact.JSON(resultJSON(result))), taskID)
	return err
}

// deferTask hands a task to people: input_required, deferred and unheld,
// with the reason and the scopes that would be needed.
func deferTask(ctx context.Context, tx bun.IDB, taskID, by, reason string, needed []string) error {
	var scopes any
	if len(needed) > 0 {
		scopes = pgdialect.Array(needed)
	}
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', deferred = true, defer_reason = ?,
		needed_scope = ?, deferred_by = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`, redact.Text(reason), scopes, by, taskID)
	return err
}

// askTask hands a task to people with a question: as deferTask, with the
// result that asks it (nil for none).
func askTask(ctx context.Context, tx bun.IDB, taskID, by, question string, result *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'input_required', result = ?::jsonb, deferred = true,
		defer_reason = ?, needed_scope = NULL, deferred_by = ?, assignee = NULL, assignee_mandate_id = NULL WHERE id = ?`,
		redactedJSON(result), redact.Text(question), by, taskID)
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
