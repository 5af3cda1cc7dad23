package db

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/migrations"
)

// migrationLock is the pg_advisory_xact_lock key that serialises migrators,
// so several board processes starting at once apply each file exactly once.
// The lock is a transaction's, never the session's: behind a pooler in
// transaction mode a session lock stays on whichever server connection took
// it, so it neither excludes the next migrator nor is released by the
// unlock, which may run on another (docs/operations.md, "PostgreSQL behind
// a pooler").
const migrationLock = 0x70616374 // "pact"

// Migrate applies every migration in migrations.Files not yet recorded in
// schema_migrations, in name order, each in its own transaction, and returns
// the names it applied.
func (d *DB) Migrate(ctx context.Context) ([]string, error) {
	return d.MigrateFS(ctx, migrations.Files)
}

// MigrateFS is Migrate over another set of files (tests use it to stop early).
// Each file is applied in a transaction that holds the migration lock and
// first checks again that no other migrator applied it meanwhile.
func (d *DB) MigrateFS(ctx context.Context, files fs.FS) ([]string, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	err = d.locked(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	var done []string
	if err := d.NewSelect().Table("schema_migrations").Column("name").Scan(ctx, &done); err != nil {
		return nil, fmt.Errorf("db.MigrateFS: %w", err)
	}
	applied := map[string]bool{}
	for _, n := range done {
		applied[n] = true
	}
	var ran []string
	for _, name := range names {
		if applied[name] {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			return ran, err
		}
		did := false
		err = d.locked(ctx, func(ctx context.Context, tx bun.Tx) error {
			var n int
			if err := tx.NewRaw(`SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(ctx, &n); err != nil || n > 0 {
				return err // n > 0: another migrator applied it while we waited
			}
			// Straight to database/sql: bun would read "?" in the SQL as a placeholder.
			if _, err := tx.Tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("db.MigrateFS: %w", err)
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (name) VALUES (?)", name)
			did = err == nil
			return err
		})
		if err != nil {
			return ran, fmt.Errorf("migration %s: %w", name, err)
		}
		if did {
			ran = append(ran, strings.TrimSuffix(name, ".sql"))
		}
	}
	return ran, nil
}

// locked runs fn in a transaction that first takes the migration lock.
// The transaction has no statement_timeout (PACT_DB_STATEMENT_TIMEOUT is
// for calls): a migration may rewrite a large table, and waiting for
// another process's migrations is the lock's purpose.
func (d *DB) locked(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
			return fmt.Errorf("lift the statement timeout for migrations: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", migrationLock); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		return fn(ctx, tx)
	})
}

// Pending returns the embedded migrations not yet recorded as applied, by
// name without ".sql". A database never migrated has them all pending.
func (d *DB) Pending(ctx context.Context) ([]string, error) {
	names, err := fs.Glob(migrations.Files, "*.sql")
	if err != nil {
		return nil, err
	}
	var have []string
	err = d.NewRaw(`SELECT name FROM schema_migrations`).Scan(ctx, &have)
	if err != nil && PgCode(err) != "42P01" { // undefined_table: never migrated
		return nil, err
	}
	applied := map[string]bool{}
	for _, n := range have {
		applied[n] = true
	}
	var pending []string
	for _, n := range names {
		if !applied[n] {
			pending = append(pending, strings.TrimSuffix(n, ".sql"))
		}
	}
	return pending, nil
}
