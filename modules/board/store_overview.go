package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

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
