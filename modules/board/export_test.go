package board

import (
	"context"

	"github.com/uptrace/bun"
)

// LockAgentSQL is the statement that locks a claiming agent's row, for the
// lock test.
const LockAgentSQL = lockAgentSQL

// LockTask locks task id as the task services do before changing it.
func (m *Module) LockTask(ctx context.Context, tx bun.IDB, id string) error {
	_, err := m.svc.st.getTask(ctx, tx, id, true)
	return err
}

// NotClaimable is why a claim that found task id taken or closed was
// refused, as the task is now.
func (m *Module) NotClaimable(ctx context.Context, tx bun.IDB, id string) error {
	return m.svc.notClaimable(ctx, tx, id)
}
