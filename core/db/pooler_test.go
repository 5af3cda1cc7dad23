package db_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/migrations"
)

// The tests named …PgBouncer… run with PACT_PGBOUNCER naming a pgbouncer
// binary (make pgbouncer-check) and are skipped without it
// (docs/operations.md, "PostgreSQL behind a pooler").

// ignoreJIT is the setting without which PgBouncer refuses the board's
// connections.
const ignoreJIT = "ignore_startup_parameters = jit"

// advisoryLocks counts the advisory locks held in dsn's database.
func advisoryLocks(t *testing.T, dsn string) int {
	var n int
	require.NoError(t, open(t, dsn).NewRaw(`SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
		WHERE l.locktype = 'advisory' AND d.datname = current_database()`).Scan(context.Background(), &n))
	return n
}

// A direct connection is no pooler, its sessions have jit off, and its
// LISTEN connections are the pool's unless ListenURL names others.
func TestProbeOnADirectConnection(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDSN(t)
	d := open(t, dsn)
	s, err := d.Probe(ctx)
	require.NoError(t, err)
	require.Equal(t, db.Session{JIT: "off"}, s)
	require.Equal(t, d.Pool.Config().ConnConfig.Database, d.ListenConfig().Database)

	other := pgtest.NewDSN(t)
	l, err := db.Open(ctx, dsn, db.Options{ListenURL: other})
	require.NoError(t, err)
	defer l.Close()
	want, err := pgx.ParseConfig(other)
	require.NoError(t, err)
	require.Equal(t, want.Database, l.ListenConfig().Database)
	require.Equal(t, "off", l.ListenConfig().RuntimeParams["jit"], "listen connections start like the pool's")

	_, err = db.Open(ctx, dsn, db.Options{ListenURL: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"})
	require.ErrorContains(t, err, "DATABASE_LISTEN_URL")
}

// Migrating takes no session lock, so nothing is left held however the
// statements were spread over server connections.
func TestMigrateLeavesNoLockBehind(t *testing.T) {
	dsn := pgtest.NewEmptyDSN(t)
	_, err := open(t, dsn).Migrate(context.Background())
	require.NoError(t, err)
	require.Zero(t, advisoryLocks(t, dsn))
}

// PgBouncer 1.18 refuses the board's jit startup parameter unless told to
// ignore it; the board's error then says which setting to change.
func TestPgBouncerRefusalNamesTheSetting(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	via, _ := pgtest.PgBouncer(t, pgtest.NewDSN(t), pgcluster.PgBouncerOptions{PoolMode: "transaction"})
	_, err := db.Open(context.Background(), via)
	require.ErrorContains(t, err, "unsupported startup parameter: jit")
	require.ErrorContains(t, err, "ignore_startup_parameters = jit")
}

// Behind PgBouncer in transaction mode the pool is seen as pooled; every
// session reads timestamps in UTC even after another client left its
// server connection in another time zone (PgBouncer tracks TimeZone);
// jit is what the server side says (connect_query here).
func TestPgBouncerSessions(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	ctx := context.Background()
	dsn := pgtest.NewDSN(t)
	via, _ := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "transaction",
		Settings: []string{ignoreJIT, "default_pool_size = 1"}, DatabaseParams: "connect_query='SET jit = off'"})
	other, err := pgx.Connect(ctx, via+" timezone=Asia/Bangkok default_query_exec_mode=simple_protocol")
	require.NoError(t, err)
	defer other.Close(ctx)
	var tz string
	require.NoError(t, other.QueryRow(ctx, "SHOW timezone").Scan(&tz))
	require.Equal(t, "Asia/Bangkok", tz)

	d, err := db.Open(ctx, via, db.Options{Statements: db.Unprepared, ListenURL: dsn})
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.QueryRowContext(ctx, "SHOW timezone").Scan(&tz))
	require.Equal(t, "UTC", tz)
	s, err := d.Probe(ctx)
	require.NoError(t, err)
	require.Equal(t, db.Session{Pooled: true, ListenPooled: false, JIT: "off"}, s)
}

// Several board processes migrating at once through PgBouncer in
// transaction mode: each file is applied exactly once and no lock is left
// on a server connection (a session lock would be: its unlock may run on
// another server connection).
func TestPgBouncerConcurrentMigrators(t *testing.T) {
	pgtest.SkipWithoutPgBouncer(t)
	ctx := context.Background()
	dsn := pgtest.NewEmptyDSN(t)
	via, _ := pgtest.PgBouncer(t, dsn, pgcluster.PgBouncerOptions{PoolMode: "transaction", Settings: []string{ignoreJIT}})
	files, err := migrations.Files.ReadDir(".")
	require.NoError(t, err)
	const procs = 4
	applied := make([][]string, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := db.Open(ctx, via, db.Options{Statements: db.Unprepared})
			if err != nil {
				t.Error(err)
				return
			}
			defer d.Close()
			if applied[i], err = d.Migrate(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, a := range applied {
		total += len(a)
	}
	require.Equal(t, len(files), total, "every .sql file applied exactly once across all migrators")
	require.Zero(t, advisoryLocks(t, dsn))
}
