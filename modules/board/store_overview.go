package board

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// The organization at a glance (admin_trace.go's overview), in bun's
// dialect (?).

// taskDaysSQL counts, for each of the last ? days (UTC, today included,
// oldest first, every day present), organization ?'s tasks that were
// completed or failed that day and the tasks still waiting on people
// (approval, or a question deferred to them) whose last change was that
// day. A task's last change is updated_at (tasks_touch): a closed task
// changes no more, and a waiting one waits since its last change.
const taskDaysSQL = `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
		count(t.id) FILTER (WHERE t.status = 'completed') AS completed,
		count(t.id) FILTER (WHERE t.status = 'failed') AS failed,
		count(t.id) FILTER (WHERE t.status = 'auth_required' OR (t.deferred AND t.status = 'input_required')) AS waiting
	FROM (SELECT (now() AT TIME ZONE 'UTC')::date - n AS day FROM generate_series(0, ? - 1) n) d
	LEFT JOIN (SELECT t.id, t.status, t.deferred, (t.updated_at AT TIME ZONE 'UTC')::date AS day
		FROM tasks t JOIN projects p ON p.id = t.project_id
		WHERE p.org_id = ? AND t.updated_at >= (now() AT TIME ZONE 'UTC')::date - ? + 1) t ON t.day = d.day
	GROUP BY d.day ORDER BY d.day`

// taskDays reads taskDaysSQL.
func taskDays(ctx context.Context, tx bun.IDB, org string, days int) ([]TaskDay, error) {
	out := []TaskDay{}
	if err := tx.NewRaw(taskDaysSQL, days, org, days).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("board.taskDays: %w", err)
	}
	return out, nil
}

// statusCount is how many agents have a status.
type statusCount struct {
	Status string `bun:"status"`
	N      int    `bun:"n"`
}

// agentsByStatus counts organization org's agents per status.
func (st store) agentsByStatus(ctx context.Context, org string) ([]statusCount, error) {
	var out []statusCount
	err := st.db.NewRaw(`SELECT status, count(*) AS n FROM agents WHERE org_id = ? GROUP BY status`, org).Scan(ctx, &out)
	return out, err
}

// activeAgents counts organization org's agents seen in the last hour.
func (st store) activeAgents(ctx context.Context, org string) (int, error) {
	var n int
	err := st.db.NewRaw(`SELECT count(*) FROM agents a JOIN agent_presence p ON p.agent_id = a.id
		WHERE a.org_id = ? AND p.last_seen > now() - interval '1 hour'`,
		org).Scan(ctx, &n)
	return n, err
}

// taskCounts counts organization org's open tasks, and those updated in
// the last 7 days, per project and status.
func (st store) taskCounts(ctx context.Context, org string) ([]TaskCount, error) {
	out := []TaskCount{}
	err := st.db.NewRaw(`SELECT t.project_id, t.status, count(*) AS count FROM tasks t JOIN projects p ON p.id = t.project_id
		WHERE p.org_id = ? AND (task_status_is_open(t.status) OR t.updated_at > now() - interval '7 days')
		GROUP BY t.project_id, t.status ORDER BY t.project_id, t.status`, org).Scan(ctx, &out)
	return out, err
}

// awaitingApproval lists organization org's tasks waiting for approval,
// oldest first, at most 50.
func (st store) awaitingApproval(ctx context.Context, org string) ([]Task, error) {
	return st.orgTasksWhere(ctx, org, `t.status = 'auth_required'`)
}

// deferredToPeople lists organization org's tasks deferred to people,
// oldest first, at most 50.
func (st store) deferredToPeople(ctx context.Context, org string) ([]Task, error) {
	return st.orgTasksWhere(ctx, org, `t.deferred AND t.status = 'input_required'`)
}

// orgTasksWhere lists organization org's tasks t on which cond holds,
// oldest change first, at most 50.
func (st store) orgTasksWhere(ctx context.Context, org, cond string) ([]Task, error) {
	var ts []Task
	err := st.db.NewRaw(`SELECT `+taskColumns("t")+` FROM tasks t JOIN projects p ON p.id = t.project_id
		WHERE p.org_id = ? AND `+cond+` ORDER BY t.updated_at, t.id LIMIT 50`, org).Scan(ctx, &ts)
	return ts, err
}

// answeredRow is a task with the answer its agent has not read yet.
type answeredRow struct {
	Task
	AnsweredBy string    `bun:"answered_by"`
	AnsweredAt time.Time `bun:"answered_at"`
}

// answeredTasks lists organization org's tasks whose answer may still be
// changed (unreadAnswerOf), oldest answer first, at most 50.
func (st store) answeredTasks(ctx context.Context, org string) ([]answeredRow, error) {
	var rows []answeredRow
	err := st.db.NewRaw(`SELECT `+taskColumns("t")+`, m.from_human AS answered_by, m.created_at AS answered_at
		FROM tasks t JOIN projects p ON p.id = t.project_id
		JOIN LATERAL (SELECT from_human, created_at FROM task_messages m
			WHERE `+unreadAnswerOf+` ORDER BY m.id DESC LIMIT 1) m ON true
		WHERE p.org_id = ? AND t.status = 'submitted' AND NOT t.deferred
		ORDER BY m.created_at, t.id LIMIT 50`, org).Scan(ctx, &rows)
	return rows, err
}
