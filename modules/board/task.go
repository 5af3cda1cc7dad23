package board

import (
	"encoding/json"
	"time"
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

// Task is a task on the board: a row of tasks, as the service reads it.
// The adapters show it their way (taskView to agents, AdminTask to
// people).
type Task struct {
	ID                 string  `bun:"id" json:"id"`
	ProjectID          string  `bun:"project_id" json:"project_id"`
	Title              string  `bun:"title" json:"title"`
	Body               string  `bun:"body" json:"body"`
	Action             string  `bun:"action" json:"action"`
	CreatedBy          string  `bun:"created_by" json:"created_by"`
	MandateID          string  `bun:"mandate_id" json:"mandate_id"`
	DelegateTo         *string `bun:"delegate_to" json:"delegate_to"`
	DelegatedMandateID *string `bun:"delegated_mandate_id" json:"delegated_mandate_id"`
	Assignee           *string `bun:"assignee" json:"assignee"`
	AssigneeMandateID  *string `bun:"assignee_mandate_id" json:"assignee_mandate_id"`
	Status             string  `bun:"status" json:"status"`
	Deferred           bool    `bun:"deferred" json:"deferred"`
	// Asked: deferred with a question (pact_report input_required), which
	// its poster may answer, not for want of authority (pact_defer).
	Asked        bool            `bun:"asked" json:"asked"`
	DeferReason  *string         `bun:"defer_reason" json:"defer_reason"`
	NeededScope  []string        `bun:"needed_scope,array" json:"needed_scope"`
	Result       json.RawMessage `bun:"result,type:jsonb" json:"result"`
	Answer       *string         `bun:"answer" json:"answer"`
	ParentTaskID *string         `bun:"parent_task_id" json:"parent_task_id"`
	ChangeSeq    int64           `bun:"change_seq" json:"change_seq"`
	// ChangeXact orders changes for the agents' cursor (migration 022).
	ChangeXact int64     `bun:"change_xact" json:"-"`
	UpdatedAt  time.Time `bun:"updated_at" json:"updated_at"`
	CreatedAt  time.Time `bun:"created_at" json:"created_at"`
}
