package board

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/mandate"
)

// A new task and the agents it may be handed to, in pgx's dialect ($n).

// newTask is a task to insert.
type newTask struct {
	ID, ProjectID, OrgID           string
	Title, Body, Action            string
	By, MandateID                  string
	DelegateTo, DelegatedMandateID *string
	ParentTaskID                   *string
	// Wake is the event payload that wakes its delegate (events.Payload).
	Wake string
	// OfferLease is how long an offer of it waits for its holder.
	OfferLease time.Duration
}

// insertTaskStep inserts t, held for approval when an approval rule of the
// organization covers its action (docs/specs/behavior.md §5.8), and, unless
// held, its wakeup: its delegate's (t.Wake), or an offer to one holder of
// pact_events in the project (task_offer, service_offers.go); one statement. It
// reads the status into status and how many it woke into woken.
func insertTaskStep(t newTask, status *string, woken *int) db.Step {
	return db.Step{SQL: `WITH t AS (INSERT INTO tasks (id, project_id, title, body, action, created_by,
			mandate_id, delegate_to, delegated_mandate_id, parent_task_id, status)
			VALUES ($1::uuid, $2, $3, $4, $5, $6, $7::uuid, $8, $9::uuid, $10::uuid,
				CASE WHEN EXISTS (SELECT 1 FROM approval_actions WHERE org_id = $11 AND action = ANY($12::text[]))
					THEN '` + authRequired + `' ELSE '` + submitted + `' END)
			RETURNING status),
		woken AS (SELECT pg_notify($13, $14) FROM t WHERE t.status = '` + submitted + `' AND $8::text IS NOT NULL),
		offered AS (SELECT task_offer($1::uuid, $2, $11, $15) FROM t WHERE t.status = '` + submitted + `' AND $8::text IS NULL)
		SELECT t.status, (SELECT count(*) FROM woken) + (SELECT count(*) FROM offered) FROM t`,
		Args: []any{t.ID, t.ProjectID, t.Title, t.Body, t.Action, t.By, t.MandateID, t.DelegateTo, t.DelegatedMandateID,
			t.ParentTaskID, t.OrgID, mandate.CoveringPatterns(t.Action), events.Channel, t.Wake, t.OfferLease.Seconds()},
		Rows: db.OneRow(status, woken)}
}

// agentRow is an agent as a task is handed to it.
type agentRow struct {
	Status   string   `bun:"status"`
	OrgID    string   `bun:"org_id"`
	Client   string   `bun:"client"`
	Projects []string `bun:"projects,array"`
}

// agentRow reads agent id, nil when there is none.
func (st store) agentRow(ctx context.Context, tx bun.IDB, id string) (*agentRow, error) {
	var rows []agentRow
	if err := st.db.Fetch(ctx, tx, &rows, `SELECT a.status, a.org_id, a.client,
		coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM agent_projects WHERE agent_id = a.id), '{}') AS projects
		FROM agents a WHERE a.id = $1`, id); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}
