package board

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
)

// mandateTasks tells mandate administration (modules/mandates) about the
// tasks hanging on mandates, through the kernel's kernel.MandateTasks.
type mandateTasks struct{ st store }

// OpenTasksUnder lists the open tasks whose own, assignee or delegated
// mandate is one of ids, oldest first.
func (r mandateTasks) OpenTasksUnder(ctx context.Context, tx bun.IDB, ids []string) ([]kernel.TaskBrief, error) {
	if len(ids) == 0 {
		return []kernel.TaskBrief{}, nil
	}
	return r.st.openTasksUnder(ctx, tx, ids)
}

// DelegatedFor returns, for each of ids delegated with a task, the first
// task it was delegated for.
func (r mandateTasks) DelegatedFor(ctx context.Context, tx bun.IDB, ids []string) (map[string]kernel.TaskBrief, error) {
	if len(ids) == 0 {
		return map[string]kernel.TaskBrief{}, nil
	}
	return r.st.delegatedFor(ctx, tx, ids)
}
