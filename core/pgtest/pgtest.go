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
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
)

// SharedEnv names a PostgreSQL server for test binaries to share instead of
// each starting its own: a connection string without dbname, of a role that
// may create databases (make proofs sets it: starting a throwaway cluster
// takes a second or more of each short test run). Each binary then migrates
// a template database of its own, named for its process, and drops it when
// its tests end, so binaries built from different sources can share one.
const SharedEnv = "PACT_TEST_POSTGRES"

// server is the test binary's one cluster. It is the one piece of package
// state in the project, and it lives only in test binaries: its scope is the
// test process, which is exactly what it models.
var server struct {
	once     sync.Once
	cluster  *pgcluster.Throwaway // nil on a shared server
	dsn      func(dbname string) string
	template string
	err      error
	next     atomic.Int64
}

// Main runs the tests and then destroys the cluster, or drops the template
// on a shared server.
func Main(m *testing.M) {
	code := m.Run()
	switch {
	case server.cluster != nil:
		server.cluster.Destroy()
	case server.dsn != nil:
		dropDatabase(context.Background(), server.template)
	}
	os.Exit(code)
}

func start() {
	ctx := context.Background()
	if shared := os.Getenv(SharedEnv); shared != "" {
		server.template = fmt.Sprintf("pact_template_%d", os.Getpid())
		server.dsn = func(name string) string { return shared + " dbname=" + name }
		dropDatabase(ctx, server.template) // left by a process of that PID that died
	} else {
		c, err := pgcluster.StartThrowaway(ctx)
		if err != nil {
			server.err = err
			return
		}
		server.cluster, server.dsn, server.template = c, c.DSN, "pact_template"
	}
	if err := createDatabase(ctx, server.template, ""); err != nil {
		server.err = err
		return
	}
	d, err := db.Open(ctx, server.dsn(server.template))
	if err != nil {
		server.err = err
		return
	}
	defer d.Close()
	if _, err := d.Migrate(ctx); err != nil {
		server.err = fmt.Errorf("migrate the template database: %w", err)
	}
}

func createDatabase(ctx context.Context, name, template string) error {
	conn, err := pgx.Connect(ctx, server.dsn("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	q := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if template != "" {
		q += " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	}
	_, err = conn.Exec(ctx, q)
	return err
}

func dropDatabase(ctx context.Context, name string) {
	conn, err := pgx.Connect(ctx, server.dsn("postgres"))
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// NewEmptyDSN creates a fresh database with no migrations applied, dropped
// when t ends, for tests of the migrator itself.
func NewEmptyDSN(t testing.TB) string {
	t.Helper()
	return newDSN(t, false)
}

// NewDSN creates a fresh, migrated database for t, dropped when t ends, and
// returns its connection string. Without PostgreSQL binaries the test fails:
// a suite that cannot reach a database must not pass.
func NewDSN(t testing.TB) string {
	t.Helper()
	return newDSN(t, true)
}

func newDSN(t testing.TB, migrated bool) string {
	t.Helper()
	server.once.Do(start)
	if server.err != nil {
		t.Fatalf("test PostgreSQL: %v", server.err)
	}
	from := ""
	if migrated {
		from = server.template
	}
	ctx := context.Background()
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), server.next.Add(1))
	if err := createDatabase(ctx, name, from); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(ctx, name) })
	return server.dsn(name)
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
