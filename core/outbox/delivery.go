package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/pactboard/pact/core/db"
)

// Delivery is the other half of the outbox: a deliverer (modules/notify)
// takes due rows one at a time under a lease and settles each. The row lock
// (FOR UPDATE SKIP LOCKED) lasts only the claiming statement; the lease
// (owner and expiry on the row) lasts until the row is settled or the lease
// runs out, so a deliverer that dies leaves the row to another, which
// delivers it again with the same idempotency key.

// Claimed is an outbox row taken for delivery.
type Claimed struct {
	ID        int64     `bun:"id"`
	OrgID     string    `bun:"org_id"`
	Kind      Kind      `bun:"kind"`
	ProjectID string    `bun:"project_id"`
	TaskID    *string   `bun:"task_id"`
	AgentID   *string   `bun:"agent_id"`
	HumanID   *string   `bun:"human_id"` // the one person it is for; nil: the organization's people
	Title     string    `bun:"title"`
	Detail    *string   `bun:"detail"`
	Key       string    `bun:"idempotency_key"`
	CreatedAt time.Time `bun:"created_at"`
	// Attempts counts this one: taking a row counts an attempt, so a row
	// whose delivery kills its deliverer still ends up dead.
	Attempts  int     `bun:"attempts"`
	LastError *string `bun:"last_error"`
}

// Claim takes the next due row for owner under a lease of the given length,
// or returns nil when none is due. Rows go out earliest due first; ordering
// by next_attempt_at alone walks the outbox's pending index (a tie-break on
// id would sort every pending row on each claim).
func Claim(ctx context.Context, d *db.DB, owner string, lease time.Duration) (*Claimed, error) {
	var rows []Claimed
	err := d.Fetch(ctx, d, &rows, `UPDATE notifications n
		SET attempts = n.attempts + 1, lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2)
		FROM (SELECT id FROM notifications
		      WHERE sent_at IS NULL AND dead_at IS NULL AND next_attempt_at <= now()
		        AND (lease_expires_at IS NULL OR lease_expires_at <= now())
		      ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED) c
		WHERE n.id = c.id
		RETURNING n.id, n.org_id, n.kind, n.project_id, n.task_id, n.agent_id, n.human_id, n.title, n.detail,
		          n.idempotency_key, n.created_at, n.attempts, n.last_error`,
		owner, lease.Seconds())
	if err != nil {
		return nil, fmt.Errorf("outbox: claim for %s: %w", owner, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
}

// Sent settles owner's row id as delivered. lastError ("" for none) keeps
// what some destinations said when others took it. A deliverer that lost
// its lease to another changes nothing, here and in Dead, Retry and Renew.
func Sent(ctx context.Context, d *db.DB, owner string, id int64, lastError string) error {
	return settle(ctx, d, owner, id, `sent_at = now()`, nil, lastError)
}

// Dead settles owner's row id as never to be delivered, keeping why.
func Dead(ctx context.Context, d *db.DB, owner string, id int64, why string) error {
	return settle(ctx, d, owner, id, `dead_at = now()`, nil, why)
}

// Retry ends owner's lease on row id and makes it due again after wait,
// keeping the error of this attempt.
func Retry(ctx context.Context, d *db.DB, owner string, id int64, wait time.Duration, lastError string) error {
	return settle(ctx, d, owner, id, `next_attempt_at = now() + make_interval(secs => $4)`, []any{wait.Seconds()}, lastError)
}

// settle ends owner's lease on row id with set (one of the fixed
// assignments above, whose own arguments are extra, from $4) and
// last_error (NULL when empty). Each assignment is its own prepared
// statement.
func settle(ctx context.Context, d *db.DB, owner string, id int64, set string, extra []any, lastError string) error {
	_, err := d.Write(ctx, d, `UPDATE notifications SET `+set+`, last_error = $1, lease_expires_at = NULL
		WHERE id = $2 AND lease_owner = $3 AND sent_at IS NULL AND dead_at IS NULL`,
		append([]any{nullable(lastError), id, owner}, extra...)...)
	if err != nil {
		return fmt.Errorf("outbox: settle notification %d: %w", id, err)
	}
	return nil
}

// Renew extends owner's lease on row id to lease from now; false when the
// lease was lost.
func Renew(ctx context.Context, d *db.DB, owner string, id int64, lease time.Duration) (bool, error) {
	n, err := d.Write(ctx, d, `UPDATE notifications SET lease_expires_at = now() + make_interval(secs => $1)
		WHERE id = $2 AND lease_owner = $3 AND sent_at IS NULL AND dead_at IS NULL`, lease.Seconds(), id, owner)
	if err != nil {
		return false, fmt.Errorf("outbox: renew the lease on notification %d: %w", id, err)
	}
	return n == 1, nil
}

// NextDue is how long until a pending row becomes claimable (its retry
// time, or its lease's expiry when a deliverer holds it; negative when one
// is overdue), and false when no row is pending.
func NextDue(ctx context.Context, d *db.DB) (time.Duration, bool, error) {
	var secs sql.NullFloat64
	err := d.FetchInto(ctx, d, `SELECT extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_expires_at, next_attempt_at)) - now()))::float8
		FROM notifications WHERE sent_at IS NULL AND dead_at IS NULL`, nil, &secs)
	if err != nil {
		return 0, false, fmt.Errorf("outbox: next due: %w", err)
	}
	if !secs.Valid {
		return 0, false, nil
	}
	return time.Duration(secs.Float64 * float64(time.Second)), true, nil
}
