package db

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// roundTrips counts the exchanges the pool's connections have with
// PostgreSQL: each statement (BEGIN and COMMIT included), each batch (one
// exchange however many statements it carries), each explicit prepare. It
// is a pgx tracer, so it sees every statement bun and hand-written pgx code
// send through the pool.
type roundTrips struct {
	n atomic.Int64

	mu    sync.Mutex
	watch func(sql string) // set by Watch; nil otherwise
}

// add counts an exchange and tells the watcher, under the lock: exchanges
// come from many goroutines (a background writer's too), and a watcher is
// called by one at a time, never after Watch's stop returned.
func (r *roundTrips) add(sql string) {
	r.n.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watch != nil {
		r.watch(sql)
	}
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(d.SQL)
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.add("<batch>")
	return ctx
}

func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

type preparing struct{}

// A prepare counts when it reaches the server: pgx traces the start of every
// Conn.Prepare, also of one it answers from the connection's cache.
func (r *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	return context.WithValue(ctx, preparing{}, d.SQL)
}

func (r *roundTrips) TracePrepareEnd(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareEndData) {
	if !d.AlreadyPrepared {
		sql, _ := ctx.Value(preparing{}).(string)
		r.add("<prepare> " + sql)
	}
}

// RoundTrips is how many exchanges with PostgreSQL the pool has made since
// it opened (see roundTrips for what counts).
func (d *DB) RoundTrips() int64 { return d.trips.n.Load() }

// Watch calls fn with the SQL of every exchange until the returned stop is
// called; a test uses it to see what one call sends. One watcher at a time;
// fn is called by one goroutine at a time, and must not call Watch.
func (d *DB) Watch(fn func(sql string)) (stop func()) {
	d.trips.mu.Lock()
	d.trips.watch = fn
	d.trips.mu.Unlock()
	return func() {
		d.trips.mu.Lock()
		d.trips.watch = nil
		d.trips.mu.Unlock()
	}
}
