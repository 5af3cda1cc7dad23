package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pactboard/pact/sdk/errs"
)

// What a caller reads when the database fails its call. Each says what to
// do, since the caller cannot see the cause (it goes to the board's log).
const (
	DownMessage    = "the database is unavailable (restarting?); try again in a few seconds"
	BusyMessage    = "the database is busy: no connection was free in time (PACT_DB_MAX_CONNS, PACT_DB_ACQUIRE_TIMEOUT); try again in a few seconds"
	TimeoutMessage = "a database statement ran longer than PACT_DB_STATEMENT_TIMEOUT allows and was cancelled; try again in a few seconds"
)

// ErrBusy is the cause of a call that waited PACT_DB_ACQUIRE_TIMEOUT for one
// of the pool's connections without getting one.
var ErrBusy = errors.New("db: no pool connection was free within the acquire timeout")

// Fault returns err as an errs.Unavailable refusal when the database failed
// the call rather than the call being wrong: PostgreSQL down, restarting or
// refusing connections, the connection lost mid-call, the pool exhausted,
// or a statement cancelled by its deadline. The cause stays in Err for the
// log. Any other error, a refusal, and nil come back unchanged.
//
// The boundaries call it once, just before errs.Public (kernel.Public), so
// that nothing below them needs to know how pgx spells a lost connection.
func Fault(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := errs.As(err); ok && e.Code != errs.Internal {
		return err
	}
	if msg := faultMessage(err); msg != "" {
		return &errs.Error{Code: errs.Unavailable, Message: msg, Err: err}
	}
	return err
}

// faultMessage is what Fault tells the caller about err, or "" when err is
// not the database failing.
func faultMessage(err error) string {
	if errors.Is(err, ErrBusy) {
		return BusyMessage
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014" && strings.Contains(pe.Message, "statement timeout"),
			pe.Code == "55P03": // lock_not_available: lock_timeout, when an operator sets one
			return TimeoutMessage
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", // admin_shutdown: pg_ctl stop/restart -m fast
			pe.Code == "57P02", // crash_shutdown: -m immediate, or another backend crashed
			pe.Code == "57P03", // cannot_connect_now: starting up, shutting down, recovering
			pe.Code == "53300": // too_many_connections
			return DownMessage
		}
		return ""
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce),
		errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return DownMessage
	}
	return ""
}

// acquiring is the pool's connector for database/sql (bun), with a bound on
// how long a call waits for a connection. pgxpool itself waits for as long
// as the call's context lives; a held call's context lives for minutes, so
// without this a pool exhausted by a stuck statement would stack calls up
// silently instead of answering them "busy".
type acquiring struct {
	driver.Connector
	wait time.Duration
}

// Connect takes a connection from the pool within a.wait, else ErrBusy.
// The wait also bounds dialing a new connection: a server that does not
// answer is, to the caller, as good as a busy one.
func (a acquiring) Connect(ctx context.Context) (driver.Conn, error) {
	if a.wait <= 0 {
		return a.Connector.Connect(ctx)
	}
	actx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	c, err := a.Connector.Connect(actx)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil, errors.Join(ErrBusy, err)
	}
	return c, err
}
