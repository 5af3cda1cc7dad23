package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pactboard/pact/core/pgcluster"
)

// PgBouncerEnv names the pgbouncer binary the pooler checks run
// (docs/operations.md, "PostgreSQL behind a pooler"); unset, they skip.
const PgBouncerEnv = "PACT_PGBOUNCER"

// PgBouncer starts PgBouncer (the binary $PACT_PGBOUNCER) in front of the
// server of dsn, shaped by o (its Binary, Host and Port are filled here),
// and returns dsn's database through it. PgBouncer stops when t ends.
// Without PACT_PGBOUNCER the test is skipped, saying why; with it naming no
// runnable binary, the test fails.
func PgBouncer(t testing.TB, dsn string, o pgcluster.PgBouncerOptions) (string, *pgcluster.PgBouncer) {
	t.Helper()
	bin := pgBouncerBinary(t)
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("pgtest.PgBouncer: %v", err)
	}
	o.Binary, o.Host, o.Port = bin, cfg.Host, cfg.Port
	p, err := pgcluster.StartPgBouncer(context.Background(), o)
	if err != nil {
		t.Fatalf("%s=%s: %v (install it with apt-get install pgbouncer)", PgBouncerEnv, bin, err)
	}
	t.Cleanup(p.Stop)
	t.Logf("%s, pool_mode=%s, %s %q, in front of %s:%d", p.Version, o.PoolMode, o.DatabaseParams, o.Settings, cfg.Host, cfg.Port)
	return p.DSN(cfg.Database), p
}

// PgBouncerVersion is the major and minor version of $PACT_PGBOUNCER,
// skipping or failing t as PgBouncer does.
func PgBouncerVersion(t testing.TB) (major, minor int) {
	t.Helper()
	bin := pgBouncerBinary(t)
	_, major, minor, err := pgcluster.PgBouncerVersion(bin)
	if err != nil {
		t.Fatalf("%s=%s: %v (install it with apt-get install pgbouncer)", PgBouncerEnv, bin, err)
	}
	return major, minor
}

// SkipWithoutPgBouncer skips t, saying why, unless PACT_PGBOUNCER is set:
// a test calls it first, before it makes a database it would not use.
func SkipWithoutPgBouncer(t testing.TB) {
	t.Helper()
	pgBouncerBinary(t)
}

func pgBouncerBinary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(PgBouncerEnv)
	if bin == "" {
		t.Skipf("%s is unset: set it to a pgbouncer binary (apt-get install pgbouncer; "+
			"PACT_PGBOUNCER=/usr/sbin/pgbouncer, or make pgbouncer-check) to check the board behind PgBouncer", PgBouncerEnv)
	}
	return bin
}
