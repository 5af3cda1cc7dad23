package board

// The Admin API's task operations (docs/specs/behavior.md §10.6): the overview, the
// task list and trace, and one operation per decision a person takes on a
// task. Reads are the service's for the person's organization; decisions go
// through admin_decide.go, which checks the role again and logs the change
// around the service method, which confines the task to the organization.

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
)

// taskMaxBody bounds task request bodies: an edited body is at most 100000
// characters.
const taskMaxBody = 512 << 10

// taskOp is a task operation of this module: ids are board-<verb>[-<noun>],
// the tag is "tasks", and AdminOp declares the role gate.
func taskOp(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	return kernel.AdminOp(huma.Operation{OperationID: "board-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"tasks"}, Errors: errors, MaxBodyBytes: taskMaxBody}, min)
}

// AdminTask is a task as people see it.
type AdminTask struct {
	ID                 string          `json:"id" format:"uuid"`
	ProjectID          string          `json:"project_id"`
	Title              string          `json:"title"`
	Body               string          `json:"body"`
	Action             string          `json:"action" example:"task.work"`
	Status             string          `json:"status" enum:"submitted,working,input_required,auth_required,completed,failed,canceled,rejected"`
	CreatedBy          string          `json:"created_by"`
	MandateID          string          `json:"mandate_id" doc:"The mandate it was posted under"`
	DelegateTo         *string         `json:"delegate_to"`
	DelegatedMandateID *string         `json:"delegated_mandate_id"`
	Assignee           *string         `json:"assignee"`
	AssigneeMandateID  *string         `json:"assignee_mandate_id"`
	Deferred           bool            `json:"deferred"`
	DeferReason        *string         `json:"defer_reason"`
	NeededScope        []string        `json:"needed_scope" nullable:"false"`
	Answer             *string         `json:"answer"`
	Result             json.RawMessage `json:"result"`
	ParentTaskID       *string         `json:"parent_task_id"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
}

func adminTask(t *Task) AdminTask {
	a := AdminTask{ID: t.ID, ProjectID: t.ProjectID, Title: t.Title, Body: t.Body, Action: t.Action, Status: t.Status,
		CreatedBy: t.CreatedBy, MandateID: t.MandateID, DelegateTo: t.DelegateTo, DelegatedMandateID: t.DelegatedMandateID,
		Assignee: t.Assignee, AssigneeMandateID: t.AssigneeMandateID, Deferred: t.Deferred, DeferReason: t.DeferReason,
		NeededScope: t.NeededScope, Answer: t.Answer, ParentTaskID: t.ParentTaskID, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if a.NeededScope == nil {
		a.NeededScope = []string{}
	}
	if r := rawOrNil(t.Result); r != nil {
		a.Result = t.Result
	}
	return a
}

type taskIDIn struct {
	TaskID string `path:"task_id" format:"uuid" doc:"The task's id"`
}

type taskOut struct{ Body AdminTask }

type listTasksIn struct {
	Status   string `query:"status" enum:"submitted,working,input_required,auth_required,completed,failed,canceled,rejected" doc:"Only tasks of this status"`
	Project  string `query:"project" maxLength:"63" doc:"Only tasks of this project"`
	Deferred bool   `query:"deferred" doc:"Only deferred tasks (deferred=1)"`
	Open     bool   `query:"open" doc:"Only open tasks (open=1)"`
	Agent    string `query:"agent" maxLength:"63" doc:"Only tasks this agent created, holds or was delegated"`
}

type listTasksOut struct {
	Body struct {
		Tasks []AdminTask `json:"tasks" nullable:"false" doc:"At most 200, most recently updated first"`
	}
}

func (m *Module) registerTaskAdmin(api huma.API) {
	huma.Register(api, taskOp(http.MethodGet, "/overview", "get-overview", "The organization at a glance", identity.Viewer), m.overview)
	huma.Register(api, taskOp(http.MethodGet, "/tasks", "list-tasks", "List the organization's tasks", identity.Viewer,
		http.StatusBadRequest), m.listTasks)
	huma.Register(api, taskOp(http.MethodGet, "/tasks/{task_id}", "get-task",
		"A task's trace: the task, its log entries, the mandates in its chains and its messages", identity.Viewer,
		http.StatusNotFound), m.traceTask)
	m.registerDecisions(api)
}

func (m *Module) listTasks(ctx context.Context, in *listTasksIn) (*listTasksOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	got, err := m.svc.Tasks(ctx, nil, personActor(p), TaskQuery{People: TaskFilter{Status: in.Status, Project: in.Project,
		Deferred: in.Deferred, Open: in.Open, Agent: in.Agent}})
	if err != nil {
		return nil, err
	}
	out := &listTasksOut{}
	out.Body.Tasks = adminTasks(got.Tasks)
	return out, nil
}

// adminTasks are ts as people see them; never nil.
func adminTasks(ts []Task) []AdminTask {
	out := make([]AdminTask, 0, len(ts))
	for i := range ts {
		out = append(out, adminTask(&ts[i]))
	}
	return out
}
