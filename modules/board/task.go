package board

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
)

// Task statuses (docs/specs/behavior.md §7.1).
const (
	submitted     = "submitted"
	working       = "working"
	inputRequired = "input_required"
	authRequired  = "auth_required"
	completed     = "completed"
	failed        = "failed"
	canceled      = "canceled"
	rejected      = "rejected"
)

var terminal = map[string]bool{completed: true, failed: true, canceled: true, rejected: true}

// task is a row of tasks.
type task struct {
	ID                 string          `bun:"id"`
	ProjectID          string          `bun:"project_id"`
	Title              string          `bun:"title"`
	Body               string          `bun:"body"`
	Action             string          `bun:"action"`
	CreatedBy          string          `bun:"created_by"`
	MandateID          string          `bun:"mandate_id"`
	DelegateTo         *string         `bun:"delegate_to"`
	DelegatedMandateID *string         `bun:"delegated_mandate_id"`
	Assignee           *string         `bun:"assignee"`
	AssigneeMandateID  *string         `bun:"assignee_mandate_id"`
	Status             string          `bun:"status"`
	Deferred           bool            `bun:"deferred"`
	DeferReason        *string         `bun:"defer_reason"`
	NeededScope        []string        `bun:"needed_scope,array"`
	Result             json.RawMessage `bun:"result,type:jsonb"`
	Answer             *string         `bun:"answer"`
	ParentTaskID       *string         `bun:"parent_task_id"`
	ChangeSeq          int64           `bun:"change_seq"`
	UpdatedAt          time.Time       `bun:"updated_at"`
	CreatedAt          time.Time       `bun:"created_at"`
}

// taskColumns lists a task's columns for alias a (a table name or alias).
func taskColumns(a string) string {
	return strings.NewReplacer("$.", a+".").Replace(`$.id::text AS id, $.project_id, $.title, $.body, $.action,
	$.created_by, $.mandate_id::text AS mandate_id, $.delegate_to, $.delegated_mandate_id::text AS delegated_mandate_id,
	$.assignee, $.assignee_mandate_id::text AS assignee_mandate_id, $.status, $.deferred, $.defer_reason,
	$.needed_scope, $.result, $.answer, $.parent_task_id::text AS parent_task_id, $.change_seq, $.updated_at,
	$.created_at`)
}

// getTask returns task id, or nil when there is none (a malformed id is no
// task either). forUpdate locks the row.
func getTask(ctx context.Context, tx bun.IDB, id string, forUpdate bool) (*task, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, nil
	}
	q := `SELECT ` + taskColumns("tasks") + ` FROM tasks WHERE id = ?`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var ts []task
	if err := tx.NewRaw(q, id).Scan(ctx, &ts); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, nil
	}
	return &ts[0], nil
}

// summary is a task as agents see it in pact_list (docs/specs/behavior.md §6.3).
func (t *task) summary() map[string]any {
	s := map[string]any{
		"id": t.ID, "project_id": t.ProjectID, "title": t.Title, "body": t.Body, "action": t.Action,
		"status": t.Status, "created_by": t.CreatedBy, "delegate_to": t.DelegateTo,
		"delegated_mandate_id": t.DelegatedMandateID, "assignee": t.Assignee, "deferred": t.Deferred,
		"result": rawOrNil(t.Result), "parent_task_id": t.ParentTaskID, "seq": t.ChangeSeq,
		"updated_at": canon.ISO(t.UpdatedAt),
	}
	if t.Answer != nil {
		s["answer"] = *t.Answer
	}
	if t.Deferred {
		s["defer_reason"] = t.DeferReason
		s["needed_scope"] = t.NeededScope
		// The question is sent once: as defer_reason, not again as result.
		if t.DeferReason != nil && resultIsText(t.Result, *t.DeferReason) {
			s["result"] = nil
		}
	}
	return s
}

func rawOrNil(r json.RawMessage) any {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}

func resultIsText(r json.RawMessage, text string) bool {
	var s string
	return json.Unmarshal(r, &s) == nil && s == text
}
