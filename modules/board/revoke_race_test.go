package board_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// SEC-013: a revocation that commits while a post or a claim is between
// verifying its chain and writing must not leave open work under the
// revoked chain. Each test parks the write after its Verify on a row lock
// the test holds, revokes the root of the writer's chain (a link above the
// leaf) in another transaction, then lets the write finish.

func TestRevocationRacingAPostLeavesNoOpenTask(t *testing.T) {
	w := newWorld(t)
	delegated := w.delegatedTo("gemini-web", "task.post@project:web", map[string]any{"tasks": 5})
	// Consume locks the delegated mandate's usage row after Verify: hold it.
	w.Exec(`INSERT INTO limit_usage (mandate_id, limit_key) VALUES (?, 'tasks') ON CONFLICT DO NOTHING`, delegated)
	release := w.holdRow(`SELECT 1 FROM limit_usage WHERE mandate_id = ? AND limit_key = 'tasks' FOR UPDATE`, delegated)

	posted := make(chan error, 1)
	go func() {
		_, err := w.Call("gemini-web", "pact_post", map[string]any{"project_id": "web", "title": "Racing", "mandate_id": delegated})
		posted <- err
	}()
	w.revokeWhileParked(w.Root("code-web"), release)

	err := <-posted
	if err != nil {
		require.Equal(t, errs.MandateRevoked, errs.CodeOf(err), "%v", err)
	}
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE created_by = 'gemini-web' AND task_status_is_open(status)`),
		"no open task hangs under the revoked chain")
}

func TestRevocationRacingAClaimLeavesNoWorkingTask(t *testing.T) {
	w := newWorld(t)
	task := w.post("chat-web", "web", "Free", nil)
	delegated := w.delegatedTo("gemini-web", "task.work@project:web", nil)
	// The claim's UPDATE of the task comes after Verify: hold the task's row.
	release := w.holdRow(`SELECT 1 FROM tasks WHERE id = ? FOR UPDATE`, task)

	claimed := make(chan error, 1)
	go func() {
		_, err := w.Call("gemini-web", "pact_claim", map[string]any{"task_id": task, "mandate_id": delegated})
		claimed <- err
	}()
	w.revokeWhileParked(w.Root("code-web"), release)

	err := <-claimed
	if err != nil {
		require.Equal(t, errs.MandateRevoked, errs.CodeOf(err), "%v", err)
	}
	require.Zero(t, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'working'`, task),
		"no task is worked under the revoked chain")
}

// delegatedTo posts a task of code-web's delegated to agent with scope
// (and task.read) and limits, and returns the delegated mandate: a chain
// of two links, code-web's root above it.
func (w *world) delegatedTo(agent, scope string, limits map[string]any) string {
	w.T.Helper()
	args := map[string]any{"project_id": "web", "title": "Delegated", "mandate_id": w.Root("code-web"),
		"delegate_to": agent, "child_scope": []string{scope, "task.read@project:web"}}
	if limits != nil {
		args["child_limits"] = limits
	}
	return w.OK("code-web", "pact_post", args)["delegated_mandate_id"].(string)
}

// holdRow runs the locking query q in a transaction of its own and returns
// what ends it.
func (w *world) holdRow(q string, args ...any) (release func()) {
	w.T.Helper()
	tx, err := w.DB.BeginTx(context.Background(), nil)
	require.NoError(w.T, err)
	_, err = tx.ExecContext(context.Background(), q, args...)
	require.NoError(w.T, err)
	return func() { _ = tx.Rollback() }
}

// revokeWhileParked waits until a call waits on the test's lock, revokes
// mandate id in a transaction of its own and lets it commit (or, when the
// parked call holds the chain, waits until the revocation queues behind
// it), then releases the lock and waits for the revocation.
func (w *world) revokeWhileParked(id string, release func()) {
	w.T.Helper()
	w.waitForLockWaiters(1)
	revoked := make(chan error, 1)
	go func() {
		revoked <- w.DB.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			_, err := w.Mandates.RevokeSubtree(ctx, tx, uuid.MustParse(id))
			return err
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(revoked) == 0 && w.lockWaiters() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	release()
	require.NoError(w.T, <-revoked)
}

func (w *world) waitForLockWaiters(n int) {
	w.T.Helper()
	require.Eventually(w.T, func() bool { return w.lockWaiters() >= n }, 10*time.Second, 5*time.Millisecond)
}

// lockWaiters counts the sessions of the test's database waiting on a lock.
func (w *world) lockWaiters() int {
	return w.Count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
}
