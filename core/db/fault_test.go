package db_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

// requireUnavailable asserts that db.Fault turns err into unavailable with
// message.
func requireUnavailable(t *testing.T, err error, message string) {
	t.Helper()
	require.Error(t, err)
	e, ok := errs.As(db.Fault(err))
	require.True(t, ok, "not translated: %v", err)
	require.Equal(t, errs.Unavailable, e.Code, "%v", err)
	require.Equal(t, message, e.Message, "%v", err)
}

// ownCluster starts a PostgreSQL of the test's own, so stopping it disturbs
// no other test.
func ownCluster(t *testing.T) *pgcluster.Throwaway {
	t.Helper()
	c, err := pgcluster.StartThrowaway(context.Background())
	require.NoError(t, err)
	t.Cleanup(c.Destroy)
	require.NoError(t, c.CreateDatabase(context.Background(), "pact", ""))
	return c
}

// TestFaultAcrossARestart: a statement in flight when PostgreSQL stops, and
// statements while it is down, are unavailable with the message that says
// to retry; once it is back the same pool answers again, unrestarted
// (REL-021).
func TestFaultAcrossARestart(t *testing.T) {
	for _, mode := range []string{"fast", "immediate"} {
		t.Run(mode, func(t *testing.T) {
			c := ownCluster(t)
			ctx := context.Background()
			d, err := db.Open(ctx, c.DSN("pact"), db.Options{AcquireTimeout: 2 * time.Second})
			require.NoError(t, err)
			defer d.Close()

			inFlight := make(chan error, 1)
			go func() {
				_, err := d.ExecContext(ctx, "SELECT pg_sleep(30)")
				inFlight <- err
			}()
			time.Sleep(200 * time.Millisecond) // the statement is on the server
			require.NoError(t, c.Down(mode))
			select {
			case err := <-inFlight:
				t.Logf("-m %s: in flight: %v", mode, err)
				requireUnavailable(t, err, db.DownMessage)
			case <-time.After(10 * time.Second):
				t.Fatal("the statement in flight did not end with the server")
			}
			_, err = d.ExecContext(ctx, "SELECT 1")
			t.Logf("-m %s: while down: %v", mode, err)
			requireUnavailable(t, err, db.DownMessage)

			require.NoError(t, c.Up(ctx))
			back := time.Now()
			for {
				_, err = d.ExecContext(ctx, "SELECT 1")
				if err == nil {
					break
				}
				requireUnavailable(t, err, db.DownMessage)
				require.Less(t, time.Since(back), 10*time.Second, "the pool did not recover: %v", err)
				time.Sleep(50 * time.Millisecond)
			}
			t.Logf("-m %s: the pool answered %v after the server accepted connections", mode, time.Since(back))
		})
	}
}

// TestPoolRunsOut: 20 calls on a pool of 2 connections, one of them held by
// a transaction that keeps a lock the others need. Every call ends within
// the bound, answered or refused unavailable (busy, or its statement timed
// out); none deadlocks (REL-021).
func TestPoolRunsOut(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, pgtest.NewEmptyDSN(t), db.Options{MaxConns: 2, AcquireTimeout: 500 * time.Millisecond,
		StatementTimeout: time.Second})
	require.NoError(t, err)
	defer d.Close()
	_, err = d.ExecContext(ctx, "CREATE TABLE hot (id int PRIMARY KEY, n int); INSERT INTO hot VALUES (1, 0)")
	require.NoError(t, err)

	holder, err := d.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = holder.ExecContext(ctx, "UPDATE hot SET n = n + 1 WHERE id = 1")
	require.NoError(t, err)
	release := time.AfterFunc(3*time.Second, func() { _ = holder.Rollback() })
	defer release.Stop()

	start := time.Now()
	var wg sync.WaitGroup
	results := make(chan error, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := d.ExecContext(ctx, "UPDATE hot SET n = n + 1 WHERE id = 1")
			results <- err
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("calls on an exhausted pool did not end: deadlock")
	}
	close(results)
	counts := map[string]int{}
	for err := range results {
		if err == nil {
			counts["ok"]++
			continue
		}
		e, ok := errs.As(db.Fault(err))
		require.True(t, ok, "not translated: %v", err)
		require.Equal(t, errs.Unavailable, e.Code, "%v", err)
		require.Contains(t, []string{db.BusyMessage, db.TimeoutMessage}, e.Message, "%v", err)
		counts[e.Message]++
	}
	t.Logf("20 calls on 2 connections in %v: %v", time.Since(start), counts)
	require.Positive(t, counts[db.BusyMessage], "some calls must have found no connection: %v", counts)
	require.Positive(t, counts[db.TimeoutMessage], "the lock waiters must have timed out: %v", counts)

	release.Stop()
	require.NoError(t, holder.Rollback())
	_, err = d.ExecContext(ctx, "UPDATE hot SET n = n + 1 WHERE id = 1")
	require.NoError(t, err, "the pool serves again once the lock is gone")
}

// TestStatementTimeout: a statement running past PACT_DB_STATEMENT_TIMEOUT
// is cancelled by PostgreSQL and its call is unavailable with the message
// that names the variable; a migration is exempt.
func TestStatementTimeout(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, pgtest.NewEmptyDSN(t), db.Options{StatementTimeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer d.Close()

	start := time.Now()
	_, err = d.ExecContext(ctx, "SELECT pg_sleep(5)")
	requireUnavailable(t, err, db.TimeoutMessage)
	require.Less(t, time.Since(start), 3*time.Second)

	err = d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "SELECT pg_sleep(5)")
		return fmt.Errorf("in a transaction: %w", err)
	})
	requireUnavailable(t, err, db.TimeoutMessage)

	applied, err := d.MigrateFS(ctx, fstest.MapFS{"0001_slow.sql": {Data: []byte("SELECT pg_sleep(0.6)")}})
	require.NoError(t, err, "a migration is not cut short by the statement timeout")
	require.Equal(t, []string{"0001_slow"}, applied)
}

// TestFaultLeavesOtherErrors: refusals and ordinary errors pass through.
func TestFaultLeavesOtherErrors(t *testing.T) {
	refusal := errs.E(errs.NotFound, "no task")
	require.Same(t, refusal, db.Fault(refusal))
	plain := errors.New("boom")
	require.Same(t, plain, db.Fault(plain))
	require.NoError(t, db.Fault(nil))
	requireUnavailable(t, errs.Wrap(fmt.Errorf("x: %w", db.ErrBusy), "load"), db.BusyMessage)
}
