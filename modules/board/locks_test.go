package board_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/modules/board"
)

// TestRowLocksLetLogEntriesNameTheRow: the locks the task services take on
// an agent's row (an exclusive claim) and on a task's row (before changing
// it), and the one people's changes take on their organization's row, must
// not block a log entry that names them. An entry takes a KEY
// SHARE lock on both through its foreign keys while it holds its chain's
// head; a FOR UPDATE lock blocks that, and the claim holding it waits for
// the same head at its commit: a deadlock, which concurrent claims by
// runners hit. FOR NO KEY UPDATE leaves KEY SHARE free.
func TestRowLocksLetLogEntriesNameTheRow(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	id := w.post("chat-web", "web", "Locked", nil)
	for name, lock := range map[string]func(tx bun.Tx) error{
		"agent": func(tx bun.Tx) error {
			var one int
			return w.DB.FetchInto(ctx, tx, board.LockAgentSQL, []any{"code-web"}, &one)
		},
		"task":         func(tx bun.Tx) error { return w.board.LockTask(ctx, tx, id) },
		"organization": func(tx bun.Tx) error { return w.Identity.LockOrg(ctx, tx, "default") },
	} {
		t.Run(name, func(t *testing.T) {
			tx, err := w.DB.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer func() { _ = tx.Rollback() }()
			require.NoError(t, lock(tx))
			err = w.DB.InTx(ctx, func(ctx context.Context, tx2 bun.Tx) error {
				if _, err := tx2.ExecContext(ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
					return err
				}
				_, err := w.Log.Append(ctx, tx2, ledger.Entry{Actor: "agent:code-web", AgentID: "code-web",
					ProjectID: "web", TaskID: id, Action: "test.lock"})
				return err
			})
			require.NoError(t, err, "an entry naming the locked %s waits for nothing", name)
		})
	}
	w.VerifyLog()
}
