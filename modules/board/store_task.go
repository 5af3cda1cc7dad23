package board

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
)

// The tasks rows the task services read and claim, in pgx's dialect ($n):
// the statements of pipelined round trips, and the reads that scan a task.

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

// taskColumns lists a task's columns for alias a (a table name or alias).
func taskColumns(a string) string {
	return strings.NewReplacer("$.", a+".").Replace(`$.id::text AS id, $.project_id, $.title, $.body, $.action,
	$.created_by, $.mandate_id::text AS mandate_id, $.delegate_to, $.delegated_mandate_id::text AS delegated_mandate_id,
	$.assignee, $.assignee_mandate_id::text AS assignee_mandate_id, $.status, $.deferred, $.asked, $.defer_reason,
	$.needed_scope, $.result, $.answer, $.parent_task_id::text AS parent_task_id, $.change_seq, $.change_xact, $.updated_at,
	$.created_at`)
}

// fields are t's fields in taskColumns' order, for a pgx scan.
func (t *Task) fields() []any {
	return []any{&t.ID, &t.ProjectID, &t.Title, &t.Body, &t.Action, &t.CreatedBy, &t.MandateID, &t.DelegateTo,
		&t.DelegatedMandateID, &t.Assignee, &t.AssigneeMandateID, &t.Status, &t.Deferred, &t.Asked, &t.DeferReason,
		&t.NeededScope, &t.Result, &t.Answer, &t.ParentTaskID, &t.ChangeSeq, &t.ChangeXact, &t.UpdatedAt, &t.CreatedAt}
}

// getTask returns task id, or nil when there is none (a malformed id is no
// task either). forUpdate locks the row.
//
// Unlocked, in a call whose first round trip read the task ahead
// (readTaskAhead), the first read takes that row instead.
func (st store) getTask(ctx context.Context, tx bun.IDB, id string, forUpdate bool) (*Task, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, nil
	}
	if t, ok := tx.(*db.Tx); ok && !forUpdate {
		if v, ok := t.Take(taskAhead(id)); ok {
			return v.(*Task), nil
		}
	}
	q := `SELECT ` + taskColumns("tasks") + ` FROM tasks WHERE id = $1`
	if forUpdate {
		// Not FOR UPDATE, which would also block the KEY SHARE lock a log
		// entry naming the task takes (see heldTaskSQL).
		q += ` FOR NO KEY UPDATE`
	}
	var ts []Task
	if err := st.db.Fetch(ctx, tx, &ts, q, id); err != nil {
		return nil, fmt.Errorf("board.getTask: %w", err)
	}
	if len(ts) == 0 {
		return nil, nil
	}
	return &ts[0], nil
}

// taskAhead is the key a task read ahead is kept under in a call's
// transaction: its id as the arguments gave it.
type taskAhead string

// readTaskAhead is a tool's ReadAhead (kernel.Tool.ReadAhead) for a call
// whose task_id names the task it works on: the task is read in the round
// trip that opens the call's transaction, for getTask to take.
func readTaskAhead(args map[string]any) []db.Step {
	id, _ := args["task_id"].(string)
	if _, err := uuid.Parse(id); err != nil {
		return nil
	}
	return []db.Step{{SQL: `SELECT ` + taskColumns("tasks") + ` FROM tasks WHERE id = $1`, Args: []any{id},
		Rows: func(tx *db.Tx, rows pgx.Rows) error {
			var found *Task
			if rows.Next() {
				found = &Task{}
				if err := rows.Scan(found.fields()...); err != nil {
					return fmt.Errorf("board: read task %s ahead: %w", id, err)
				}
			}
			tx.Keep(taskAhead(id), found)
			return rows.Err()
		}}}
}

// scanTasks is a Step.Rows that appends the task rows (taskColumns) to out.
func scanTasks(out *[]Task) func(*db.Tx, pgx.Rows) error {
	return func(_ *db.Tx, r pgx.Rows) error {
		var t Task
		_, err := pgx.ForEachRow(r, t.fields(), func() error {
			*out = append(*out, t)
			t = Task{} // the next row shares nothing with this one
			return nil
		})
		return err
	}
}

// heartbeat records that agent, the assignee, is alive on working task
// taskID.
func (st store) heartbeat(ctx context.Context, tx bun.IDB, taskID, agent string) error {
	_, err := st.db.Write(ctx, tx, `INSERT INTO task_activity (task_id, agent_id, at)
		SELECT id, assignee, now() FROM tasks WHERE id = $1::uuid AND status = 'working' AND assignee = $2
		ON CONFLICT (task_id) DO UPDATE SET agent_id = excluded.agent_id, at = excluded.at`, taskID, agent)
	return err
}

// releaseStaleSQL puts back on the board every working task of projects
// ($1) whose assignee sent no heartbeat for the lease ($2 seconds). Each
// working task has its heartbeat row, and only working tasks have one
// (migration 012), so the index on the heartbeat's time finds the stale
// ones without reading the live ones.
const releaseStaleSQL = `WITH stale AS (
		SELECT t.id, t.assignee FROM task_activity a JOIN tasks t ON t.id = a.task_id
		WHERE a.at < now() - make_interval(secs => $2) AND t.status = 'working' AND t.project_id = ANY($1)
		FOR NO KEY UPDATE OF t)
	UPDATE tasks t SET status = 'submitted', assignee = NULL, assignee_mandate_id = NULL, claimed_at = NULL
	FROM stale WHERE t.id = stale.id
	RETURNING t.id::text AS id, t.project_id, stale.assignee AS released_from, t.delegate_to`

// releasedTask is a row of releaseStaleSQL.
type releasedTask struct {
	ID         string  `bun:"id"`
	ProjectID  string  `bun:"project_id"`
	From       string  `bun:"released_from"`
	DelegateTo *string `bun:"delegate_to"`
}

// releaseStale puts back on the board every working task of projects whose
// assignee sent no heartbeat for lease, and returns them.
func (st store) releaseStale(ctx context.Context, tx bun.IDB, projects []string, lease time.Duration) ([]releasedTask, error) {
	var released []releasedTask
	if err := st.db.Fetch(ctx, tx, &released, releaseStaleSQL, projects, lease.Seconds()); err != nil {
		return nil, fmt.Errorf("board.releaseStale: %w", err)
	}
	return released, nil
}

// releaseStaleStep is releaseStale as a step of a pipelined round trip,
// appending what it released to out.
func releaseStaleStep(projects []string, lease time.Duration, out *[]releasedTask) db.Step {
	return db.Step{SQL: releaseStaleSQL, Args: []any{projects, lease.Seconds()}, Rows: func(_ *db.Tx, rows pgx.Rows) error {
		var r releasedTask
		_, err := pgx.ForEachRow(rows, []any{&r.ID, &r.ProjectID, &r.From, &r.DelegateTo}, func() error {
			*out = append(*out, r)
			return nil
		})
		if err != nil {
			return fmt.Errorf("board.releaseStale: %w", err)
		}
		return nil
	}}
}

// heldTaskSteps lock agent's row and read its working task into held
// (lockAgentSQL, heldTaskSQL).
func heldTaskSteps(agent string, held **string) []db.Step {
	return []db.Step{{SQL: lockAgentSQL, Args: []any{agent}}, {SQL: heldTaskSQL, Args: []any{agent}, Rows: db.OneRow(held)}}
}

// claimStep gives task taskID to agent under mandateID if it is open and
// unheld, counting into won the tasks it claimed (claimTaskSQL).
func claimStep(agent, mandateID, taskID string, won *int) db.Step {
	return db.Step{SQL: claimTaskSQL, Args: []any{agent, mandateID, taskID}, Rows: db.OneRow(won)}
}
