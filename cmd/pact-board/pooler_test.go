package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/core/pgtest"
)

// The checks of the board behind PgBouncer (docs/operations.md, "PostgreSQL
// behind a pooler") run with PACT_PGBOUNCER naming a pgbouncer binary (make
// pgbouncer-check) and are skipped without it; TestEveryToolUnprepared
// needs no pooler and always runs.

// bouncerJITOff is the databases' entry that turns jit off on every server
// connection, since PgBouncer must ignore the board's jit startup parameter.
const bouncerJITOff = "connect_query='SET jit = off'"

// ignoreJIT is the setting without which PgBouncer refuses the board's
// connections ("unsupported startup parameter: jit").
const ignoreJIT = "ignore_startup_parameters = jit"

// The unprepared mode on a direct connection: every tool answers, and
// waiters wake at once.
func TestEveryToolUnprepared(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	b := startPoolerBoard(t, dsn, map[string]string{"DATABASE_URL": dsn, "PACT_DB_STATEMENTS": "unprepared"})
	b.everyToolSucceeds(t)
	require.Less(t, b.wake(t, 10), 5*time.Second)
	require.False(t, b.logged("pooler"), "a direct connection is not reported as a pooler:\n%s", b.logs)
}

// PgBouncer in transaction mode, the board as docs/operations.md says:
// PACT_DB_STATEMENTS=unprepared, DATABASE_LISTEN_URL straight to
// PostgreSQL, jit ignored as a startup parameter and set by connect_query.
// Every tool answers, also when called at once, and waiters wake at once.
func TestBoardBehindPgBouncerTransactionMode(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	dsn := pgtest.NewDSN(t)
	via, bouncer := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "transaction",
		Settings: []string{ignoreJIT}, DatabaseParams: bouncerJITOff})
	b := startPoolerBoard(t, dsn, map[string]string{"DATABASE_URL": via, "PACT_DB_STATEMENTS": "unprepared",
		"DATABASE_LISTEN_URL": dsn})
	b.everyToolSucceeds(t)
	require.Less(t, b.wake(t, 10), 5*time.Second, "the listener reaches PostgreSQL directly")
	require.False(t, b.logged("pooler") || b.logged("jit is"), "nothing to warn about:\n%s", b.logs)
	require.NotContains(t, bouncer.Log(), "when not linked", "no notification went through PgBouncer")
}

// Without DATABASE_LISTEN_URL the listeners LISTEN through PgBouncer in
// transaction mode: PostgreSQL's notifications reach a server connection no
// client holds, and PgBouncer drops them. Tools still answer, and a waiter
// gets its message, but only at its deadline; the board warns at start.
func TestBoardBehindPgBouncerTransactionModeLosesWakes(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	dsn := pgtest.NewDSN(t)
	via, bouncer := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "transaction",
		Settings: []string{ignoreJIT}})
	b := startPoolerBoard(t, dsn, map[string]string{"DATABASE_URL": via, "PACT_DB_STATEMENTS": "unprepared"})
	took := b.wake(t, 4)
	require.GreaterOrEqual(t, took, 4*time.Second, "no wake: the waiter answers at its deadline")
	// Where the notification went depends on which client holds the
	// listening server connection at commit: usually none, and PgBouncer
	// logs the drop; else a pool connection that ignores it.
	t.Logf("PgBouncer logged a dropped notification: %v",
		strings.Contains(bouncer.Log(), "got packet 'A' from server when not linked"))
	require.True(t, b.logged("set DATABASE_LISTEN_URL"), "the board says what to set:\n%s", b.logs)
	require.True(t, b.logged("jit is on"), "without connect_query the board says jit is on:\n%s", b.logs)
}

// PgBouncer in session mode keeps a server connection per client: the
// default (prepared) statements and LISTEN work through it.
func TestBoardBehindPgBouncerSessionMode(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	dsn := pgtest.NewDSN(t)
	via, _ := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "session",
		Settings: []string{ignoreJIT, "default_pool_size = 40"}, DatabaseParams: bouncerJITOff})
	b := startPoolerBoard(t, dsn, map[string]string{"DATABASE_URL": via})
	b.everyToolSucceeds(t)
	require.Less(t, b.wake(t, 10), 5*time.Second)
}

// PgBouncer 1.21 and later keep protocol-level prepared statements in
// transaction mode when max_prepared_statements is above 0: the default
// (prepared) statements should then work. Older versions skip.
func TestBoardBehindPgBouncerTransactionModePrepared(t *testing.T) {
	if major, minor := pgtest.PgBouncerVersion(t); major == 1 && minor < 21 {
		t.Skipf("PgBouncer %d.%d keeps no prepared statements in transaction mode (max_prepared_statements is 1.21+)", major, minor)
	}
	dsn := pgtest.NewDSN(t)
	via, _ := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "transaction",
		Settings: []string{ignoreJIT, "max_prepared_statements = 200"}, DatabaseParams: bouncerJITOff})
	b := startPoolerBoard(t, dsn, map[string]string{"DATABASE_URL": via, "DATABASE_LISTEN_URL": dsn})
	b.everyToolSucceeds(t)
	require.Less(t, b.wake(t, 10), 5*time.Second)
}
