package kernel

import (
	"context"

	"github.com/uptrace/bun"
)

// TaskBrief is a task as mandate administration shows it.
type TaskBrief struct {
	ID       string  `bun:"id" json:"id" format:"uuid"`
	Title    string  `bun:"title" json:"title"`
	Status   string  `bun:"status" json:"status"`
	Assignee *string `bun:"assignee" json:"assignee"`
}

// MandateTasks is what the module that owns tasks (the board) tells
// mandate administration about the tasks that hang on mandates, so that
// neither reads the other's tables.
type MandateTasks interface {
	// OpenTasksUnder lists the open tasks whose own, assignee or delegated
	// mandate is one of mandateIDs, oldest first: what revoking them would
	// cancel (docs/specs/behavior.md §5.6).
	OpenTasksUnder(ctx context.Context, tx bun.IDB, mandateIDs []string) ([]TaskBrief, error)
	// DelegatedFor returns, for each of mandateIDs delegated with a task, the
	// first task it was delegated for.
	DelegatedFor(ctx context.Context, tx bun.IDB, mandateIDs []string) (map[string]TaskBrief, error)
}

// MandateCredentials is what the module that mints outside credentials
// tells mandate administration about them.
type MandateCredentials interface {
	// RevocationsPublished returns the mandates among mandateIDs some outside
	// credential id minted for which is on a published revocation list.
	RevocationsPublished(ctx context.Context, tx bun.IDB, mandateIDs []string) (map[string]bool, error)
}

// MandateReporters holds the reporters modules registered at start-up. A
// reporter no module registered reports nothing: a board without tasks has
// no task hanging on a mandate.
type MandateReporters struct {
	tasks MandateTasks
	creds MandateCredentials
}

// ReportTasks registers the tasks reporter. Call it at start-up only.
func (r *MandateReporters) ReportTasks(t MandateTasks) { r.tasks = t }

// ReportCredentials registers the credentials reporter. Call it at
// start-up only.
func (r *MandateReporters) ReportCredentials(c MandateCredentials) { r.creds = c }

// Tasks returns the tasks reporter, or one that reports none.
func (r *MandateReporters) Tasks() MandateTasks {
	if r.tasks == nil {
		return noTasks{}
	}
	return r.tasks
}

// Credentials returns the credentials reporter, or one that reports none.
func (r *MandateReporters) Credentials() MandateCredentials {
	if r.creds == nil {
		return noCredentials{}
	}
	return r.creds
}

// MandateReports returns the mandate reporters: the board and the
// credentials module register there, and mandate administration asks them.
func (h *Host) MandateReports() *MandateReporters { return h.k.mandateReports }

type noTasks struct{}

func (noTasks) OpenTasksUnder(context.Context, bun.IDB, []string) ([]TaskBrief, error) {
	return []TaskBrief{}, nil
}

func (noTasks) DelegatedFor(context.Context, bun.IDB, []string) (map[string]TaskBrief, error) {
	return map[string]TaskBrief{}, nil
}

type noCredentials struct{}

func (noCredentials) RevocationsPublished(context.Context, bun.IDB, []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}
