package board

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/seams"
)

// The board answers what other modules need to know of its tasks through
// seams.BoardFacts, so none of them reads the tasks table
// (docs/architecture.md, "Table ownership").
var _ seams.BoardFacts = (*Service)(nil)

// OpenTaskCounts returns how many open tasks each of projectIDs has, 0 for
// a project with none. Open is task_status_is_open, defined once in
// migrations/010_table_owners.sql.
func (s *Service) OpenTaskCounts(ctx context.Context, tx bun.IDB, projectIDs []string) (map[string]int, error) {
	rows, err := s.st.openTaskCounts(ctx, tx, projectIDs)
	if err != nil {
		return nil, fmt.Errorf("board.OpenTaskCounts: %w", err)
	}
	out := make(map[string]int, len(projectIDs))
	for _, p := range projectIDs {
		out[p] = 0
	}
	for _, r := range rows {
		out[r.ProjectID] = r.N
	}
	return out, nil
}

// The service tells mandate administration (modules/mandates) about the
// tasks hanging on mandates, through seams.MandateTasksSeam.
var _ seams.MandateTasks = (*Service)(nil)

// OpenTasksUnder lists the open tasks whose own, assignee or delegated
// mandate is one of ids, oldest first.
func (s *Service) OpenTasksUnder(ctx context.Context, tx bun.IDB, ids []string) ([]seams.TaskBrief, error) {
	if len(ids) == 0 {
		return []seams.TaskBrief{}, nil
	}
	return s.st.openTasksUnder(ctx, tx, ids)
}

// DelegatedFor returns, for each of ids delegated with a task, the first
// task it was delegated for.
func (s *Service) DelegatedFor(ctx context.Context, tx bun.IDB, ids []string) (map[string]seams.TaskBrief, error) {
	if len(ids) == 0 {
		return map[string]seams.TaskBrief{}, nil
	}
	return s.st.delegatedFor(ctx, tx, ids)
}
