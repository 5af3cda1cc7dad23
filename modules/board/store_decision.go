package board

import (
	"context"

	"github.com/uptrace/bun"
)

// The decisions people take on a task (service_decision.go,
// service_assign.go), in bun's dialect (?).

// approveTask puts task id, approved by person by, on the board.
func (store) approveTask(ctx context.Context, tx bun.IDB, id, by string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'submitted', approved_by = ?, approved_at = now() WHERE id = ?`,
		by, id)
	return err
}

// rejectTask closes task id as rejected.
func (store) rejectTask(ctx context.Context, tx bun.IDB, id string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'rejected' WHERE id = ?`, id)
	return err
}

// resumeTask puts deferred task id back on the board with answer (nil
// keeps the last, already redacted), and returns the agent that deferred
// it.
func (store) resumeTask(ctx context.Context, tx bun.IDB, id string, answer *string) (*string, error) {
	var asker *string
	err := tx.NewRaw(`UPDATE tasks SET status = 'submitted', deferred = false, answer = coalesce(?, answer)
		WHERE id = ? RETURNING deferred_by`, answer, id).Scan(ctx, &asker)
	return asker, err
}

// cancelTask closes task id as canceled by person by, for reason.
func (store) cancelTask(ctx context.Context, tx bun.IDB, id, by, reason string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'canceled', deferred = false, assignee = NULL,
		assignee_mandate_id = NULL, result = jsonb_build_object('reason', 'canceled_by_human', 'by', ?::text, 'note', ?::text)
		WHERE id = ?`, by, reason, id)
	return err
}

// withdrawTask closes task id as canceled by its poster, agent by, for
// reason.
func (store) withdrawTask(ctx context.Context, tx bun.IDB, id, by, reason string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'canceled', deferred = false, assignee = NULL,
		assignee_mandate_id = NULL, result = jsonb_build_object('reason', 'canceled_by_poster', 'by', ?::text, 'note', ?::text)
		WHERE id = ?`, by, reason, id)
	return err
}

// unreadAnswerOf is the condition on task t and message m that m carries
// the answer a person gave on resuming t, which the agent who asked has
// neither read (the message) nor acted on (the task is still back on the
// board, unclaimed): an answer a person may still change. Changing one
// (unreadAnswerSQL) and listing them (answeredTasks) share it.
const unreadAnswerOf = `m.task_id = t.id AND t.status = 'submitted' AND NOT t.deferred AND m.to_agent = t.deferred_by
	  AND m.from_human IS NOT NULL AND m.body = t.answer AND m.read_at IS NULL`

// unreadAnswerSQL finds task $1's changeable answer (unreadAnswerOf), the
// latest, locked so two changes queue.
const unreadAnswerSQL = `SELECT m.id FROM task_messages m JOIN tasks t ON t.id = m.task_id
	WHERE t.id = ? AND ` + unreadAnswerOf + `
	ORDER BY m.id DESC LIMIT 1 FOR UPDATE OF m`

// unreadAnswer is the message carrying task id's changeable answer
// (unreadAnswerSQL), locked; 0 when there is none.
func (store) unreadAnswer(ctx context.Context, tx bun.IDB, id string) (int64, error) {
	var msg []int64
	if err := tx.NewRaw(unreadAnswerSQL, id).Scan(ctx, &msg); err != nil || len(msg) == 0 {
		return 0, err
	}
	return msg[0], nil
}

// changeAnswer sets task id's answer, and message msg that carries it, to
// text (redacted).
func (store) changeAnswer(ctx context.Context, tx bun.IDB, id string, msg int64, text string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE tasks SET answer = ? WHERE id = ?`, text, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE task_messages SET body = ? WHERE id = ?`, text, msg)
	return err
}

// setDelegate delegates task id to agent (nil: nobody), detached from its
// delegated mandate.
func (store) setDelegate(ctx context.Context, tx bun.IDB, id string, agent *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET delegate_to = ?, delegated_mandate_id = NULL WHERE id = ?`, agent, id)
	return err
}

// editTask sets task id's title (already redacted) and body, nil keeping
// each.
func (store) editTask(ctx context.Context, tx bun.IDB, id string, title, body *string) error {
	_, err := tx.ExecContext(ctx, `UPDATE tasks SET title = coalesce(?, title), body = coalesce(?, body) WHERE id = ?`,
		title, redactedText(body), id)
	return err
}

// projectAgentRow is an agent of a project as a person may hand it a task.
type projectAgentRow struct {
	Client string `bun:"client"`
	Status string `bun:"status"`
}

// projectAgentRow reads agent as an agent of project; nil when it is not
// one.
func (store) projectAgentRow(ctx context.Context, tx bun.IDB, agent, project string) (*projectAgentRow, error) {
	var rows []projectAgentRow
	if err := tx.NewRaw(`SELECT a.client, a.status FROM agents a JOIN agent_projects ap ON ap.agent_id = a.id
		WHERE a.id = ? AND ap.project_id = ?`, agent, project).Scan(ctx, &rows); err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], nil
}
