package board

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

func (m *Module) listTool() kernel.Tool {
	return kernel.Tool{
		Name: "pact_list", Title: "List tasks",
		Description: "List tasks of your projects: open ones you may claim (filter open, the default), yours " +
			"(mine), closed ones (done) or everything (all), plus tasks deferred to people and your unread " +
			"messages (inbox). Pass next_since back as since to see only what changed.",
		Input: object([]string{"mandate_id"}, map[string]*jsonschema.Schema{
			"mandate_id":     str(mandateDesc + " It must cover task.read on the projects to list."),
			"filter":         enum("open (claimable by you), mine (yours, not closed), done (yours, closed) or all.", "open", "mine", "done", "all"),
			"project_id":     nullableStr("Only this project."),
			"since":          &jsonschema.Schema{Types: []string{"integer", "null"}, Description: "The next_since of your previous pact_list: only tasks changed after it."},
			"limit":          integer("How many tasks at most (1-200, default 50)."),
			"parent_task_id": nullableStr("Only the subtasks of this task."),
		}),
		Run: m.list,
	}
}

type listArgs struct {
	MandateID    string  `json:"mandate_id"`
	Filter       string  `json:"filter"`
	ProjectID    *string `json:"project_id"`
	Since        *int64  `json:"since"`
	Limit        *int    `json:"limit"`
	ParentTaskID *string `json:"parent_task_id"`
}

var filters = map[string]string{
	"open": `t.status = 'submitted' AND t.assignee IS NULL AND (t.delegate_to IS NULL OR t.delegate_to = ?0)`,
	"mine": `(t.assignee = ?0 OR t.delegate_to = ?0 OR t.created_by = ?0) AND t.status NOT IN ('completed', 'failed', 'canceled', 'rejected')`,
	"done": `(t.assignee = ?0 OR t.delegate_to = ?0 OR t.created_by = ?0) AND t.status IN ('completed', 'failed', 'canceled', 'rejected')`,
	"all":  `?0 = ?0`,
}

func (m *Module) list(ctx context.Context, c *kernel.Call) (any, error) {
	var a listArgs
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, errs.E(errs.InvalidRequest, "pact_list: %v", err)
	}
	if a.Filter == "" {
		a.Filter = "open"
	}
	tx := c.Tx
	chain, err := m.verify(ctx, c, a.MandateID)
	if err != nil {
		return nil, err
	}
	who, err := loadCaller(ctx, tx, c.AgentID)
	if err != nil {
		return nil, err
	}
	readable := readableProjects(who, chain)
	if a.ProjectID != nil && *a.ProjectID != "" {
		if !contains(readable, *a.ProjectID) {
			return nil, errs.E(errs.ProjectMismatch, "agent %s cannot read project %s", who.ID, *a.ProjectID)
		}
		readable = []string{*a.ProjectID}
	}
	if len(readable) == 1 {
		c.Entry.ProjectID = readable[0]
	}
	if err := m.releaseStale(ctx, tx, readable); err != nil {
		return nil, err
	}
	n := 50
	if a.Limit != nil {
		n = min(max(*a.Limit, 1), 200)
	}
	var cursor int64
	if a.Since != nil && *a.Since > 0 {
		cursor = *a.Since
	}
	where := filters[a.Filter]
	args := []any{who.ID, pgdialect.Array(readable), cursor}
	if a.ParentTaskID != nil && *a.ParentTaskID != "" {
		parent, err := getTask(ctx, tx, *a.ParentTaskID, false)
		if err != nil {
			return nil, err
		}
		if parent == nil || !contains(readable, parent.ProjectID) {
			return nil, errs.E(errs.NotFound, "task %s does not exist", *a.ParentTaskID)
		}
		where += ` AND t.parent_task_id = ?3`
		args = append(args, parent.ID)
	} else {
		args = append(args, nil)
	}
	rows := []task{}
	q := `SELECT ` + taskColumns("t") + ` FROM tasks t WHERE t.project_id = ANY(?1) AND t.change_seq > ?2 AND ` +
		where + ` ORDER BY t.change_seq LIMIT ?4`
	if err := tx.NewRaw(q, append(args, n)...).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	deferredRows := []task{}
	if err := tx.NewRaw(`SELECT `+taskColumns("t")+` FROM tasks t WHERE t.project_id = ANY(?) AND t.deferred
		AND t.change_seq > ? ORDER BY t.change_seq LIMIT 200`, pgdialect.Array(readable), cursor).Scan(ctx, &deferredRows); err != nil {
		return nil, err
	}
	tasks, deferred := []any{}, []any{}
	next := cursor
	for i := range rows {
		next = max(next, rows[i].ChangeSeq)
		if !rows[i].Deferred {
			tasks = append(tasks, rows[i].summary())
		}
	}
	for i := range deferredRows {
		deferred = append(deferred, deferredRows[i].summary())
	}
	inbox, err := unreadMessages(ctx, tx, who.ID, readable, "", false)
	if err != nil {
		return nil, err
	}
	var head int64
	if err := tx.NewRaw(`SELECT coalesce(max(change_seq), 0) FROM tasks WHERE project_id = ANY(?)`, pgdialect.Array(readable)).Scan(ctx, &head); err != nil {
		return nil, err
	}
	return map[string]any{"tasks": tasks, "deferred": deferred, "next_since": next, "has_more": len(rows) == n,
		"inbox": inbox, "head": head}, nil
}

// readableProjects are the caller's projects whose task.read the chain's
// leaf covers (a mandate naming a project the agent is not registered in
// gives nothing there).
func readableProjects(who *caller, chain mandate.Chain) []string {
	out := []string{}
	for _, p := range who.Projects {
		if mandate.AnyCovers(chain.Leaf().Scope, mandate.BoardScope("task.read", p)) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
