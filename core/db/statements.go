package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Statement modes. bun writes each call's arguments into the SQL text, so
// PostgreSQL parses and plans every statement it sends afresh. The hot path
// (docs/benchmarks.md, "Round trips") instead sends hand-written statements
// with their arguments apart (Fetch, Write), which PostgreSQL can plan once.
const (
	// Prepared makes each hand-written statement a named prepared
	// statement, cached per connection: parsed and planned once. It needs a
	// session that lasts as long as the connection: a direct connection,
	// PgBouncer in session mode, or PgBouncer 1.21+ in transaction mode
	// with max_prepared_statements above 0.
	Prepared = "prepared"
	// Unprepared sends arguments apart but prepares nothing that outlives
	// the round trip, for poolers in transaction mode that do not keep
	// prepared statements (PgBouncer before 1.21). pgx describes each
	// statement once per connection (its parameter and result types, kept
	// in the client) and then sends it unnamed, parse and execution in one
	// round trip, with arguments encoded as prepared mode encodes them
	// (a []byte for a jsonb parameter is JSON, not bytea, as it would be in
	// pgx's exec mode). Verified behind PgBouncer 1.18 in transaction mode
	// (docs/operations.md, "PostgreSQL behind a pooler").
	Unprepared = "unprepared"
)

// StatementMode maps a PACT_DB_STATEMENTS value to pgx's mode.
func StatementMode(name string) (pgx.QueryExecMode, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", Prepared:
		return pgx.QueryExecModeCacheStatement, nil
	case Unprepared:
		return pgx.QueryExecModeCacheDescribe, nil
	}
	return 0, fmt.Errorf("PACT_DB_STATEMENTS is %q: use %q (the default) or %q", name, Prepared, Unprepared)
}

// SQLHandle is what Handle returns.
type SQLHandle interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Mode is the pgx mode Fetch and Write send statements in; a caller of
// Handle passes it as the first argument.
func (d *DB) Mode() pgx.QueryExecMode { return d.mode }

// Handle is the database/sql handle under a bun handle: statements sent
// through it keep their arguments apart, where bun's own methods would
// format them into the text.
func Handle(idb bun.IDB) (SQLHandle, error) {
	switch h := idb.(type) {
	case bun.Tx:
		return h.Tx, nil
	case *bun.Tx:
		return h.Tx, nil
	case *bun.DB:
		return h.DB, nil
	case bun.Conn:
		return h.Conn, nil
	case *Tx:
		return h.Conn.Conn, nil
	case *DB:
		return h.DB.DB, nil
	}
	return nil, fmt.Errorf("db: no database/sql handle under %T", idb)
}

// Fetch runs a hand-written SELECT (or a statement with RETURNING) on idb,
// a transaction or the pool, with $n placeholders and args sent apart, and
// scans its rows into dest as bun's Scan does: a struct or scalars for one
// row (sql.ErrNoRows when there is none), a slice for many.
func (d *DB) Fetch(ctx context.Context, idb bun.IDB, dest any, query string, args ...any) error {
	h, err := Handle(idb)
	if err != nil {
		return err
	}
	rows, err := h.QueryContext(ctx, query, append([]any{d.mode}, args...)...)
	if err != nil {
		return err
	}
	return d.DB.ScanRows(ctx, rows, dest)
}

// FetchInto is Fetch into several scalars of one row.
func (d *DB) FetchInto(ctx context.Context, idb bun.IDB, query string, args []any, dest ...any) error {
	h, err := Handle(idb)
	if err != nil {
		return err
	}
	rows, err := h.QueryContext(ctx, query, append([]any{d.mode}, args...)...)
	if err != nil {
		return err
	}
	return ScanOne(rows, dest...)
}

// ScanOne scans the one row of rows into dest (sql.ErrNoRows when there is
// none) and closes them.
func ScanOne(rows *sql.Rows, dest ...any) error {
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// Write runs a hand-written statement without rows on idb, args sent
// apart, and returns how many rows it changed.
func (d *DB) Write(ctx context.Context, idb bun.IDB, query string, args ...any) (int64, error) {
	h, err := Handle(idb)
	if err != nil {
		return 0, err
	}
	res, err := h.ExecContext(ctx, query, append([]any{d.mode}, args...)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
