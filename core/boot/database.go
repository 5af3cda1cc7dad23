package boot

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgcluster"
)

// EmbeddedDatabase is the name of the board's database in the embedded cluster.
const EmbeddedDatabase = "pact"

// OpenDatabase opens the board's database with [Connect] and brings its
// schema up to date: db.Migrate applies pending migrations under an advisory
// lock, so several processes may start at once. It logs what it applied.
//
// release closes the database and leaves the embedded cluster; call it once.
// When no PostgreSQL server binaries are installed the error wraps
// pgcluster.ErrNoBinaries, whose one-line text says how to install them.
func OpenDatabase(ctx context.Context, cfg *Config, logger hclog.Logger) (*db.DB, func() error, error) {
	d, release, err := Connect(ctx, cfg, logger)
	if err != nil {
		return nil, nil, err
	}
	applied, err := d.Migrate(ctx)
	if len(applied) > 0 {
		logger.Info("applied migrations", "names", applied)
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("apply migrations: %w", err), release())
	}
	if len(applied) == 0 {
		logger.Debug("schema is up to date")
	}
	return d, release, nil
}

// Connect opens the board's database without migrating it (pact-admin
// migrate calls db.Migrate itself to report what it applied).
//
// With DATABASE_URL it connects there. Without it, it starts (or joins) the
// embedded cluster under DataDir/pg, which the last process to release it
// stops. release closes the database and leaves the cluster; call it once.
func Connect(ctx context.Context, cfg *Config, logger hclog.Logger) (*db.DB, func() error, error) {
	dsn := cfg.DatabaseURL
	leave := func() error { return nil }
	if cfg.Embedded() {
		dir := filepath.Join(cfg.DataDir, "pg")
		shared, err := pgcluster.Acquire(ctx, dir, EmbeddedDatabase)
		if err != nil {
			if errors.Is(err, pgcluster.ErrNoBinaries) {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("start the embedded PostgreSQL in %s: %w", dir, err)
		}
		logger.Info("embedded PostgreSQL", "data", shared.Dir, "socket", shared.SocketDir,
			"database", EmbeddedDatabase, "hint", "set DATABASE_URL to use another PostgreSQL")
		dsn = shared.DSN(EmbeddedDatabase)
		leave = shared.Release
	} else {
		logger.Info("external PostgreSQL from DATABASE_URL")
	}
	opts := db.Options{Statements: cfg.DBStatements, MaxConns: cfg.DBMaxConns,
		AcquireTimeout: cfg.DBAcquireTimeout, StatementTimeout: cfg.DBStatementTimeout}
	if !cfg.Embedded() {
		opts.ListenURL = cfg.DatabaseListenURL
	} else if cfg.DatabaseListenURL != "" {
		logger.Warn("DATABASE_LISTEN_URL is ignored without DATABASE_URL: the embedded cluster is reached directly")
	}
	d, err := db.Open(ctx, dsn, opts)
	if err != nil {
		return nil, nil, errors.Join(err, leave())
	}
	if !cfg.Embedded() {
		warnPooler(ctx, d, cfg, logger)
	}
	return d, func() error { d.Close(); return leave() }, nil
}

// warnPooler logs what a pooler between the board and PostgreSQL may break
// and the setting that avoids it (docs/operations.md, "PostgreSQL behind a
// pooler"). Session mode breaks none of it; the board cannot tell the
// modes apart, so the warnings say what to check.
func warnPooler(ctx context.Context, d *db.DB, cfg *Config, logger hclog.Logger) {
	s, err := d.Probe(ctx)
	if err != nil {
		logger.Warn("could not tell whether DATABASE_URL goes through a pooler", "error", err)
		return
	}
	warnSession(s, cfg, logger)
}

// warnSession logs the warnings of warnPooler for the session s probed.
func warnSession(s db.Session, cfg *Config, logger hclog.Logger) {
	const see = "docs/operations.md, \"PostgreSQL behind a pooler\""
	if s.Pooled && mode(cfg.DBStatements) == db.Prepared {
		logger.Warn("DATABASE_URL goes through a pooler and PACT_DB_STATEMENTS is prepared: unless it is in session mode "+
			"(or PgBouncer 1.21+ with max_prepared_statements above 0), tool calls fail with "+
			"\"prepared statement ... does not exist\" or \"already exists\"; set PACT_DB_STATEMENTS=unprepared", "see", see)
	}
	if s.ListenPooled {
		logger.Warn("the event listeners' connections go through a pooler: unless it is in session mode it drops notifications, "+
			"so pact_wait and pact_events answer only at their deadline and the outbox waits for its next tick; "+
			"set DATABASE_LISTEN_URL to PostgreSQL itself or to PgBouncer in session mode", "see", see)
	}
	if s.JIT != "off" {
		logger.Warn("jit is "+s.JIT+" in the board's sessions: a pooler dropped the board's jit=off startup parameter; "+
			"turn it off on the server side (PgBouncer: connect_query = 'SET jit = off')", "see", see)
	}
}

// mode is a PACT_DB_STATEMENTS value as db names it.
func mode(s string) string {
	if strings.TrimSpace(s) == "" {
		return db.Prepared
	}
	return strings.ToLower(strings.TrimSpace(s))
}
