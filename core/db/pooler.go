package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Session is what the board's connections actually reach, for the warnings
// a board behind a pooler logs at start (docs/operations.md, "PostgreSQL
// behind a pooler").
type Session struct {
	// Pooled: the pool's connections go through a pooler. PostgreSQL's
	// process id (pg_backend_pid) differs from the one the connection was
	// given at startup, which a pooler such as PgBouncer makes up.
	Pooled bool
	// ListenPooled is Pooled for ListenConfig's connections.
	ListenPooled bool
	// JIT is the jit setting of a pool session: "off" unless something (a
	// pooler told to ignore the startup parameter) dropped the board's.
	JIT string
}

// Probe reports what the pool's connections and a listen connection reach;
// it opens one connection of its own when ListenConfig differs from the
// pool's.
func (d *DB) Probe(ctx context.Context) (Session, error) {
	var s Session
	c, err := d.Pool.Acquire(ctx)
	if err != nil {
		return s, err
	}
	defer c.Release()
	if s.Pooled, s.JIT, err = probe(ctx, c.Conn()); err != nil {
		return s, err
	}
	s.ListenPooled = s.Pooled
	if d.listen == nil {
		return s, nil
	}
	lc, err := pgx.ConnectConfig(ctx, d.ListenConfig())
	if err != nil {
		return s, fmt.Errorf("connect to DATABASE_LISTEN_URL: %w", err)
	}
	defer lc.Close(context.WithoutCancel(ctx))
	s.ListenPooled, _, err = probe(ctx, lc)
	return s, err
}

func probe(ctx context.Context, c *pgx.Conn) (pooled bool, jit string, err error) {
	var pid uint32
	err = c.QueryRow(ctx, `SELECT pg_backend_pid(), current_setting('jit')`,
		pgx.QueryExecModeSimpleProtocol).Scan(&pid, &jit)
	return pid != c.PgConn().PID(), jit, err
}
