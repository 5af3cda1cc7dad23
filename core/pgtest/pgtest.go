// Package pgtest gives tests a real PostgreSQL: one throwaway cluster per test
// binary, and one fresh database per test cloned from a migrated template.
// There are no SQL mocks anywhere in this project.
//
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// and in a test:
//
//	d := pgtest.New(t)
package pgtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
)

const template = "pact_template"

// server is the test binary's one cluster. It is the one piece of package
// state in the project, and it lives only in test binaries: its scope is the
// test process, which is exactly what it models.
var server struct {
	once    sync.Once
	cluster *pgcluster.Throwaway
	err     error
	next    atomic.Int64
}

// Main runs the tests and then destroys the cluster, if one was started.
func Main(m *testing.M) {
	code := m.Run()
	if server.cluster != nil {
		server.cluster.Destroy()
	}
	os.Exit(code)
}

// SettingsEnv names further server settings for the test binary's cluster,
// space-separated name=value pairs applied after the throwaway's own: a
// benchmark run with "fsync=on synchronous_commit=on full_page_writes=on"
// measures commits that reach the disk (make bench-ratios BENCH_DURABLE=1,
// docs/benchmarks.md).
const SettingsEnv = "PACT_TEST_PG_SETTINGS"

func start() {
	ctx := context.Background()
	c, err := pgcluster.StartThrowaway(ctx, strings.Fields(os.Getenv(SettingsEnv))...)
	if err != nil {
		server.err = err
		return
	}
	server.cluster = c
	if err := c.CreateDatabase(ctx, template, ""); err != nil {
		server.err = err
		return
	}
	d, err := db.Open(ctx, c.DSN(template))
	if err != nil {
		server.err = err
		return
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		server.err = fmt.Errorf("migrate the template database: %w", err)
	}
}

// NewEmptyDSN creates a fresh database with no migrations applied, dropped
// when t ends, for tests of the migrator itself.
func NewEmptyDSN(t testing.TB) string {
	t.Helper()
	return newDSN(t, "")
}

// NewDSN creates a fresh, migrated database for t, dropped when t ends, and
// returns its connection string. Without PostgreSQL binaries the test fails:
// a suite that cannot reach a database must not pass.
func NewDSN(t testing.TB) string {
	t.Helper()
	return newDSN(t, template)
}

func newDSN(t testing.TB, from string) string {
	t.Helper()
	server.once.Do(start)
	if server.err != nil {
		t.Fatalf("test PostgreSQL: %v", server.err)
	}
	ctx := context.Background()
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), server.next.Add(1))
	if err := server.cluster.CreateDatabase(ctx, name, from); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, server.cluster.DSN("postgres"))
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	return server.cluster.DSN(name)
}

// New creates a fresh, migrated database for t and opens it; both are closed
// and dropped when t ends.
func New(t testing.TB) *db.DB {
	t.Helper()
	dsn := NewDSN(t)
	d, err := db.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(d.Close)
	return d
}
