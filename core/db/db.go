// Package db opens the board's PostgreSQL (one pgx pool, shared by bun and by
// hand-written pgx code), runs transactions and applies migrations.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// DB is the board's database: bun for queries, the pgx pool underneath for
// what bun does not do (LISTEN, COPY).
type DB struct {
	*bun.DB
	Pool  *pgxpool.Pool
	trips *roundTrips
	mode  pgx.QueryExecMode // of Fetch and Write
}

// Options shape Open.
type Options struct {
	// Statements is the mode of the hot path's hand-written statements:
	// Prepared (the default) or Unprepared (statements.go).
	Statements string
}

// Open connects to dsn. Every connection reads timestamps in UTC, so hashes
// and signatures see one spelling per instant.
func Open(ctx context.Context, dsn string, opts ...Options) (*DB, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	mode, err := StatementMode(o.Statements)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	// bun formats arguments into the SQL text; the simple protocol keeps pgx
	// from preparing and caching every distinct statement. Fetch and Write
	// name their own mode.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// The board's statements are short and indexed. PostgreSQL's planner
	// cannot see that a fresh table (system_state, one row) is small, so
	// its estimates can cross jit_above_cost, and compiling a statement
	// then takes 40-50 ms for a 0.1 ms query (docs/benchmarks.md, "JIT").
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	trips := &roundTrips{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open the connection pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	return &DB{DB: bun.NewDB(stdlib.OpenDBFromPool(pool), pgdialect.New()), Pool: pool, trips: trips, mode: mode}, nil
}

// Close closes bun's handle and the pool.
func (d *DB) Close() {
	_ = d.DB.Close()
	d.Pool.Close()
}

// InTx runs fn in a transaction: committed when fn returns nil, rolled back
// otherwise (and on panic).
func (d *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	return d.RunInTx(ctx, &sql.TxOptions{}, fn)
}

// PgCode returns the SQLSTATE of a PostgreSQL error in err's chain, or "".
func PgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// SQLSTATE codes the board translates into refusals.
const (
	UniqueViolation     = "23505"
	ForeignKeyViolation = "23503"
	CheckViolation      = "23514"
	RestrictViolation   = "23001"
)
