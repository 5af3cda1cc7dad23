package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// Step is one hand-written statement of a pipelined round trip: $n
// placeholders, args sent apart, in the database's statement mode.
type Step struct {
	SQL  string
	Args []any
	// Rows, when set, reads the statement's rows (t is the transaction the
	// step runs in); nil discards them.
	Rows func(t *Tx, rows pgx.Rows) error
}

// Tx is a transaction on one connection whose BEGIN travels in one round
// trip with the statements given to Begin, and whose COMMIT with those given
// to Commit (docs/benchmarks.md, "Round trips"). Between the two it is a
// bun handle like any other: bun's queries, Fetch and Write run on it.
//
// A Tx does not nest: BeginTx and RunInTx refuse, where bun.Conn's would
// send a second BEGIN into the open transaction.
type Tx struct {
	bun.Conn
	d    *DB
	done bool
	kept map[any]any
}

var errNested = errors.New("db: a pipelined transaction does not nest; use db.Savepoint")

// BeginTx refuses: a Tx does not nest.
func (t *Tx) BeginTx(context.Context, *sql.TxOptions) (bun.Tx, error) { return bun.Tx{}, errNested }

// RunInTx refuses: a Tx does not nest.
func (t *Tx) RunInTx(context.Context, *sql.TxOptions, func(context.Context, bun.Tx) error) error {
	return errNested
}

// Begin takes a connection and opens a transaction on it, running first in
// the same round trip. A statement that fails rolls the transaction back and
// returns its error; so does an error from a step's Rows.
func (d *DB) Begin(ctx context.Context, first ...Step) (*Tx, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	t := &Tx{Conn: c, d: d}
	if err := t.send(ctx, "begin", first, ""); err != nil {
		t.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return t, nil
}

// Once runs steps as one transaction in one round trip: BEGIN, the steps
// and COMMIT in one batch, on a connection given back at once. A statement
// that fails commits nothing and returns its error, as Commit does.
func (d *DB) Once(ctx context.Context, steps ...Step) error {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return err
	}
	t := &Tx{Conn: c, d: d}
	err = t.send(ctx, "begin", steps, "commit")
	t.release(context.WithoutCancel(ctx))
	return err
}

// Pipeline runs steps in one round trip, in order, inside t.
func (t *Tx) Pipeline(ctx context.Context, steps ...Step) error {
	if t.done {
		return sql.ErrTxDone
	}
	return t.send(ctx, "", steps, "")
}

// Commit runs last and commits, in one round trip, and gives the connection
// back. When a statement fails, this round trip's or an earlier one's,
// nothing commits and its error is returned. A Rows func of last runs
// after the server has committed: its error comes wrapped in
// ErrReadAfterCommit, since the change is in the database.
func (t *Tx) Commit(ctx context.Context, last ...Step) error {
	if t.done {
		return sql.ErrTxDone
	}
	err := t.send(ctx, "", last, "commit")
	t.release(context.WithoutCancel(ctx))
	return err
}

// Rollback ends t without committing and gives the connection back. It does
// nothing after Commit or a first Rollback.
func (t *Tx) Rollback(ctx context.Context) {
	if !t.done {
		t.release(ctx)
	}
}

// Keep stores v under key for the rest of t: rows a step read ahead for a
// later reader in the same transaction (Take).
func (t *Tx) Keep(key, v any) {
	if t.kept == nil {
		t.kept = map[any]any{}
	}
	t.kept[key] = v
}

// Take returns what Keep stored under key and forgets it, so it is read
// once: by the first reader, before anything in t could have changed it.
func (t *Tx) Take(key any) (any, bool) {
	v, ok := t.kept[key]
	delete(t.kept, key)
	return v, ok
}

// release rolls back whatever is still open on the connection (a failed
// statement leaves the transaction aborted, not ended) and returns it to
// the pool.
func (t *Tx) release(ctx context.Context) {
	t.done = true
	_ = t.Conn.Raw(func(dc any) error {
		pg := dc.(*stdlib.Conn).Conn().PgConn()
		if !pg.IsClosed() && pg.TxStatus() != 'I' {
			t.d.trips.add("rollback")
			_, _ = pg.Exec(ctx, "rollback").ReadAll()
		}
		return nil
	})
	_ = t.Conn.Close()
}

// send writes begin, steps and commit as one batch with one Sync, and reads
// every result in order.
func (t *Tx) send(ctx context.Context, begin string, steps []Step, commit string) error {
	if begin == "" && commit == "" && len(steps) == 0 {
		return nil
	}
	return t.Conn.Raw(func(dc any) error {
		conn := dc.(*stdlib.Conn).Conn()
		var b pgconn.Batch
		label := make([]string, 0, len(steps)+2)
		if begin != "" {
			b.ExecParams(begin, nil, nil, nil, nil)
			label = append(label, begin)
		}
		for _, s := range steps {
			if err := t.d.queue(ctx, conn, &b, s); err != nil {
				return err
			}
			label = append(label, s.SQL)
		}
		if commit != "" {
			b.ExecParams(commit, nil, nil, nil, nil)
			label = append(label, commit)
		}
		t.d.trips.add(strings.Join(label, " ⏎ "))
		return t.read(conn, conn.PgConn().ExecBatch(ctx, &b), begin != "", steps, commit != "")
	})
}

// ErrReadAfterCommit marks a Commit whose transaction did commit, but whose
// last steps' rows a Rows func then failed to read: the change is in the
// database, so the caller must not act as if it were not (by retrying it).
var ErrReadAfterCommit = errors.New("db: the transaction committed, then reading a step's rows failed")

// errCommitRolledBack is Commit's error when the server answered COMMIT with
// ROLLBACK: an earlier statement failed and left the transaction aborted, so
// nothing of it committed. (pgx's own Tx.Commit reports it the same way.)
var errCommitRolledBack = fmt.Errorf("db: nothing committed, an earlier statement of the transaction failed: %w", pgx.ErrTxCommitRollback)

// read reads a batch's results: BEGIN's (when hasBegin), one per step, and
// COMMIT's (when hasCommit). It returns the first error, the server's or a
// step's Rows func's, naming the statement it came from.
func (t *Tx) read(conn *pgx.Conn, mrr *pgconn.MultiResultReader, hasBegin bool, steps []Step, hasCommit bool) error {
	var first error
	unread, committed := false, false
	i := 0
	if hasBegin {
		i = -1
	}
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		var err error
		if i >= 0 && i < len(steps) && steps[i].Rows != nil && first == nil {
			rows := pgx.RowsFromResultReader(conn.TypeMap(), rr)
			ferr := steps[i].Rows(t, rows)
			rows.Close()
			// The server's error wins: after it nothing runs, so nothing commits.
			if err = rows.Err(); err == nil && ferr != nil {
				err, unread = ferr, true
			}
		} else {
			var tag pgconn.CommandTag
			tag, err = rr.Close()
			if hasCommit && i == len(steps) && err == nil {
				committed = tag.String() == "COMMIT"
				if !committed {
					err = errCommitRolledBack
				}
			}
		}
		if err != nil && first == nil {
			first = named(err, i, steps, hasCommit)
		}
		i++
	}
	// A statement that fails before it yields a result (one without rows,
	// or refused as it is bound) ends the batch here: it is the i-th.
	if err := mrr.Close(); err != nil && first == nil {
		first = named(err, i, steps, hasCommit)
	}
	if unread && committed {
		return fmt.Errorf("%w: %w", ErrReadAfterCommit, first)
	}
	return first
}

// named adds the batch's statement at i (BEGIN at -1 when hasBegin, COMMIT
// just past the steps when hasCommit) to err.
func named(err error, i int, steps []Step, hasCommit bool) error {
	switch {
	case i >= 0 && i < len(steps):
		return fmt.Errorf("%w (in %s)", err, firstLine(steps[i].SQL))
	case i < 0:
		return fmt.Errorf("%w (in begin)", err)
	case i == len(steps) && hasCommit:
		return fmt.Errorf("%w (in commit)", err)
	}
	return err
}

// queue adds s to b in the database's statement mode: prepared, a named
// statement the connection keeps (pgx caches it per connection); unprepared,
// parsed afresh each time with parameter types described once per database.
func (d *DB) queue(ctx context.Context, conn *pgx.Conn, b *pgconn.Batch, s Step) error {
	var eqb pgx.ExtendedQueryBuilder
	if d.mode == pgx.QueryExecModeCacheStatement {
		sd, err := conn.Prepare(ctx, s.SQL, s.SQL)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", firstLine(s.SQL), err)
		}
		if err := eqb.Build(conn.TypeMap(), sd, s.Args); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s.SQL), err)
		}
		b.ExecStatement(sd, eqb.ParamValues, eqb.ParamFormats, eqb.ResultFormats)
		return nil
	}
	sd, err := d.described(ctx, conn, s.SQL)
	if err != nil {
		return err
	}
	if err := eqb.Build(conn.TypeMap(), sd, s.Args); err != nil {
		return fmt.Errorf("%s: %w", firstLine(s.SQL), err)
	}
	b.ExecParams(s.SQL, eqb.ParamValues, sd.ParamOIDs, eqb.ParamFormats, eqb.ResultFormats)
	return nil
}

// descriptions caches statement descriptions (parameter and result types)
// for the unprepared mode. Types are the database's, not a connection's, so
// one description serves every connection.
type descriptions struct {
	m sync.Map // SQL → *pgconn.StatementDescription
}

// described returns sql's description, asking the server once (through the
// unnamed statement, which nothing keeps).
func (d *DB) described(ctx context.Context, conn *pgx.Conn, sql string) (*pgconn.StatementDescription, error) {
	if sd, ok := d.descs.m.Load(sql); ok {
		return sd.(*pgconn.StatementDescription), nil
	}
	d.trips.add("<prepare> (described) " + sql)
	sd, err := conn.PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", firstLine(sql), err)
	}
	d.descs.m.Store(sql, sd)
	return sd, nil
}

func firstLine(sql string) string {
	sql = strings.TrimSpace(sql)
	if i := strings.IndexByte(sql, '\n'); i > 0 {
		sql = sql[:i]
	}
	if len(sql) > 80 {
		sql = sql[:80] + "…"
	}
	return sql
}

// Savepoint runs fn inside a savepoint of the transaction tx is in (a Tx or
// a bun.Tx): an error from fn, or a statement of fn that fails, rolls back
// what fn did and leaves the transaction usable; nil keeps it.
func Savepoint(ctx context.Context, tx bun.IDB, fn func(ctx context.Context) error) error {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT pact_savepoint"); err != nil {
		return err
	}
	if err := fn(ctx); err != nil {
		if _, rerr := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT pact_savepoint"); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	_, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT pact_savepoint")
	return err
}

// OneRow is a Step.Rows that scans the first row into dest; without a row,
// dest stays as it was.
func OneRow(dest ...any) func(*Tx, pgx.Rows) error {
	return func(_ *Tx, rows pgx.Rows) error {
		if !rows.Next() {
			return rows.Err()
		}
		return rows.Scan(dest...)
	}
}
