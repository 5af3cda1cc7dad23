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

// migrationLock is the pg_advisory_lock key that serialises migrators, so
// several board processes starting at once apply each file exactly once.
const migrationLock = 0x70616374 // "pact"

// Migrate applies every migration in migrations.Files not yet recorded in
// schema_migrations, in name order, each in its own transaction, and returns
// the names it applied.
func (d *DB) Migrate(ctx context.Context) ([]string, error) {
	return d.MigrateFS(ctx, migrations.Files)
}

// MigrateFS is Migrate over another set of files (tests use it to stop early).
func (d *DB) MigrateFS(ctx context.Context, files fs.FS) ([]string, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	sort.Strings(names)
	conn, err := d.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: take a connection: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLock); err != nil {
		return nil, fmt.Errorf("take the migration lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", migrationLock)
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	var done []string
	if err := conn.NewSelect().Table("schema_migrations").Column("name").Scan(ctx, &done); err != nil {
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
		err = conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			// Straight to database/sql: bun would read "?" in the SQL as a placeholder.
			if _, err := tx.Tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("db.MigrateFS: %w", err)
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (name) VALUES (?)", name)
			return err
		})
		if err != nil {
			return ran, fmt.Errorf("migration %s: %w", name, err)
		}
		ran = append(ran, strings.TrimSuffix(name, ".sql"))
	}
	return ran, nil
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
