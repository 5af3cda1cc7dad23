package boot

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

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
	d, err := db.Open(ctx, dsn, db.Options{Statements: cfg.DBStatements})
	if err != nil {
		return nil, nil, errors.Join(err, leave())
	}
	return d, func() error { d.Close(); return leave() }, nil
}
