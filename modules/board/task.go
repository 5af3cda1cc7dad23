package board

import (
	"encoding/json"
	"time"

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

// task is a row of tasks. Its json names are its columns, so a statement
// can return rows as json_agg (pact_list's answer is one statement).
type task struct {
	ID                 string          `bun:"id" json:"id"`
	ProjectID          string          `bun:"project_id" json:"project_id"`
	Title              string          `bun:"title" json:"title"`
	Body               string          `bun:"body" json:"body"`
	Action             string          `bun:"action" json:"action"`
	CreatedBy          string          `bun:"created_by" json:"created_by"`
	MandateID          string          `bun:"mandate_id" json:"mandate_id"`
	DelegateTo         *string         `bun:"delegate_to" json:"delegate_to"`
	DelegatedMandateID *string         `bun:"delegated_mandate_id" json:"delegated_mandate_id"`
	Assignee           *string         `bun:"assignee" json:"assignee"`
	AssigneeMandateID  *string         `bun:"assignee_mandate_id" json:"assignee_mandate_id"`
	Status             string          `bun:"status" json:"status"`
	Deferred           bool            `bun:"deferred" json:"deferred"`
	DeferReason        *string         `bun:"defer_reason" json:"defer_reason"`
	NeededScope        []string        `bun:"needed_scope,array" json:"needed_scope"`
	Result             json.RawMessage `bun:"result,type:jsonb" json:"result"`
	Answer             *string         `bun:"answer" json:"answer"`
	ParentTaskID       *string         `bun:"parent_task_id" json:"parent_task_id"`
	ChangeSeq          int64           `bun:"change_seq" json:"change_seq"`
	// ChangeXact orders changes for the agents' cursor (migration 022).
	ChangeXact int64     `bun:"change_xact" json:"-"`
	UpdatedAt  time.Time `bun:"updated_at" json:"updated_at"`
	CreatedAt  time.Time `bun:"created_at" json:"created_at"`
}

// taskView is a task as agents see it in pact_list and pact_events
// (docs/specs/behavior.md §6.3).
type taskView struct {
	ID                 string          `json:"id" jsonschema:"The task's id."`
	ProjectID          string          `json:"project_id" jsonschema:"Its project."`
	Title              string          `json:"title" jsonschema:"Its title."`
	Body               string          `json:"body" jsonschema:"What to do (Markdown)."`
	Action             string          `json:"action" jsonschema:"What kind of work it is, e.g. task.work; the claimer's mandate must cover it."`
	Status             string          `json:"status" jsonschema:"submitted, working, input_required, auth_required, completed, failed, canceled or rejected."`
	CreatedBy          string          `json:"created_by" jsonschema:"The agent that posted it."`
	DelegateTo         *string         `json:"delegate_to" jsonschema:"The agent it is delegated to, if any."`
	DelegatedMandateID *string         `json:"delegated_mandate_id" jsonschema:"The mandate delegated with it, if any: use it to claim."`
	Assignee           *string         `json:"assignee" jsonschema:"The agent working on it, if any."`
	Deferred           bool            `json:"deferred" jsonschema:"Whether it waits for people."`
	Result             json.RawMessage `json:"result" jsonschema:"What its last report said, or null."`
	ParentTaskID       *string         `json:"parent_task_id" jsonschema:"The task it is a subtask of, if any."`
	Seq                int64           `json:"seq" jsonschema:"Its change number: pact_list's next_since counts these."`
	UpdatedAt          string          `json:"updated_at" jsonschema:"When it last changed."`
	Answer             *string         `json:"answer,omitempty" jsonschema:"A person's answer, given when they resumed it."`
	// The two pointers below are pointers to nullable values: a deferred
	// task carries both keys (each possibly null), any other neither.
	DeferReason **string  `json:"defer_reason,omitempty" jsonschema:"Why it was deferred (deferred tasks only)."`
	NeededScope *[]string `json:"needed_scope,omitempty" jsonschema:"The scopes that would let an agent do it (deferred tasks only)."`
}

// summary is t as agents see it.
func (t *task) summary() taskView {
	v := taskView{ID: t.ID, ProjectID: t.ProjectID, Title: t.Title, Body: t.Body, Action: t.Action, Status: t.Status,
		CreatedBy: t.CreatedBy, DelegateTo: t.DelegateTo, DelegatedMandateID: t.DelegatedMandateID, Assignee: t.Assignee,
		Deferred: t.Deferred, Result: rawOrNil(t.Result), ParentTaskID: t.ParentTaskID, Seq: t.ChangeSeq,
		UpdatedAt: canon.ISO(t.UpdatedAt), Answer: t.Answer}
	if t.Deferred {
		v.DeferReason, v.NeededScope = &t.DeferReason, &t.NeededScope
		// The question is sent once: as defer_reason, not again as result.
		if t.DeferReason != nil && resultIsText(t.Result, *t.DeferReason) {
			v.Result = nil
		}
	}
	return v
}

func rawOrNil(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}

func resultIsText(r json.RawMessage, text string) bool {
	var s string
	return json.Unmarshal(r, &s) == nil && s == text
}
