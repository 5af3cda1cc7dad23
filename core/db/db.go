// Package db opens the board's PostgreSQL (one pgx pool, shared by bun and by
// hand-written pgx code), runs transactions and applies migrations.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

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
	Pool   *pgxpool.Pool
	trips  *roundTrips
	descs  descriptions      // of pipelined statements, in the unprepared mode
	mode   pgx.QueryExecMode // of Fetch and Write
	listen *pgx.ConnConfig   // of the LISTEN connections; nil: the pool's
}

// Options shape Open.
type Options struct {
	// Statements is the mode of the hot path's hand-written statements:
	// Prepared (the default) or Unprepared (statements.go).
	Statements string
	// ListenURL, when set, is where the event listeners' dedicated
	// connections go (ListenConfig) instead of dsn: PostgreSQL itself when
	// dsn leads to a pooler in transaction mode, which drops notifications
	// (docs/operations.md, "PostgreSQL behind a pooler").
	ListenURL string
	// MaxConns, when above 0, is the pool's size (PACT_DB_MAX_CONNS);
	// otherwise DATABASE_URL's pool_max_conns, else pgxpool's default
	// (4, or the number of CPUs when more).
	MaxConns int32
	// AcquireTimeout bounds how long a call waits for a free connection
	// before it is refused errs.Unavailable "busy" (PACT_DB_ACQUIRE_TIMEOUT);
	// 0 waits as long as the call's context.
	AcquireTimeout time.Duration
	// StatementTimeout is PostgreSQL's statement_timeout on the pool's
	// connections (PACT_DB_STATEMENT_TIMEOUT): a statement stuck on a lock
	// or running away is cancelled there, and the call is refused
	// errs.Unavailable. 0 keeps the server's setting. Migrations and the
	// LISTEN connections are exempt.
	StatementTimeout time.Duration
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
	sessionSettings(cfg.ConnConfig)
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
		cfg.MinConns = min(cfg.MinConns, o.MaxConns)
	}
	if o.StatementTimeout > 0 {
		cfg.AfterConnect = statementTimeout(o.StatementTimeout)
	}
	trips := &roundTrips{}
	cfg.ConnConfig.Tracer = trips
	var listen *pgx.ConnConfig
	if o.ListenURL != "" {
		if listen, err = pgx.ParseConfig(o.ListenURL); err != nil {
			return nil, fmt.Errorf("parse DATABASE_LISTEN_URL: %w", err)
		}
		sessionSettings(listen)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open the connection pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", explainRefusal(err))
	}
	if listen != nil {
		conn, err := pgx.ConnectConfig(ctx, listen)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("connect to PostgreSQL at DATABASE_LISTEN_URL: %w", explainRefusal(err))
		}
		_ = conn.Close(ctx)
	}
	// As stdlib.OpenDBFromPool, with a bound on the wait for a connection.
	sqldb := sql.OpenDB(acquiring{Connector: stdlib.GetPoolConnector(pool), wait: o.AcquireTimeout})
	sqldb.SetMaxIdleConns(0) // the pool keeps the idle connections, not database/sql
	return &DB{DB: bun.NewDB(sqldb, pgdialect.New()), Pool: pool, trips: trips, mode: mode,
		listen: listen}, nil
}

// statementTimeout sets statement_timeout on each new pool connection with
// a SET rather than a startup parameter: PgBouncer refuses startup
// parameters it does not know (explainRefusal), and a SET passes through
// any pooler. The LISTEN connections are made apart (ListenConfig) and keep
// the server's setting, since their one statement is LISTEN.
func statementTimeout(d time.Duration) func(context.Context, *pgx.Conn) error {
	set := fmt.Sprintf("SET statement_timeout = %d", d.Milliseconds())
	return func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, set, pgx.QueryExecModeSimpleProtocol)
		return err
	}
}

// sessionSettings are the settings every connection of the board starts
// with, sent as startup parameters (a pooler may refuse them:
// explainRefusal).
func sessionSettings(c *pgx.ConnConfig) {
	c.RuntimeParams["timezone"] = "UTC"
	// The board's statements are short and indexed. PostgreSQL's planner
	// cannot see that a fresh table (system_state, one row) is small, so
	// its estimates can cross jit_above_cost, and compiling a statement
	// then takes 40-50 ms for a 0.1 ms query (docs/benchmarks.md, "Round trips").
	c.RuntimeParams["jit"] = "off"
}

// explainRefusal adds what to do to PgBouncer's refusal of a startup
// parameter it does not know (jit), which otherwise reads as a protocol
// error.
func explainRefusal(err error) error {
	if PgCode(err) != "08P01" || !strings.Contains(err.Error(), "unsupported startup parameter") {
		return err
	}
	return fmt.Errorf("%w; a pooler in front of PostgreSQL refuses a setting the board starts its sessions with "+
		"(jit=off, timezone=UTC): with PgBouncer, set ignore_startup_parameters = jit and turn jit off on the server "+
		"side, e.g. connect_query = 'SET jit = off' (docs/operations.md, \"PostgreSQL behind a pooler\")", err)
}

// ListenConfig is the configuration of a dedicated LISTEN connection: the
// one Options.ListenURL names, else the pool's.
func (d *DB) ListenConfig() *pgx.ConnConfig {
	if d.listen != nil {
		return d.listen.Copy()
	}
	return d.Pool.Config().ConnConfig
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
