package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pgtest"
)

// pending is a database with project web and the notifications titled
// titles enqueued in that order.
func pending(t *testing.T, titles ...string) (*db.DB, []int64) {
	ctx := context.Background()
	d := pgtest.New(t)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err := ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	var ids []int64
	for _, title := range titles {
		require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			id, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: title})
			ids = append(ids, id)
			return err
		}))
	}
	return d, ids
}

type rowState struct {
	Attempts  int        `bun:"attempts"`
	Owner     *string    `bun:"lease_owner"`
	Leased    bool       `bun:"leased"`
	SentAt    *time.Time `bun:"sent_at"`
	DeadAt    *time.Time `bun:"dead_at"`
	LastError *string    `bun:"last_error"`
	RetryIn   float64    `bun:"retry_in"`
}

func stateOf(t *testing.T, d *db.DB, id int64) rowState {
	var s rowState
	require.NoError(t, d.NewRaw(`SELECT attempts, lease_owner, lease_expires_at > now() AS leased, sent_at, dead_at,
		last_error, extract(epoch FROM next_attempt_at - now())::float8 AS retry_in FROM notifications WHERE id = ?`, id).
		Scan(context.Background(), &s))
	return s
}

func TestAClaimTakesTheEarliestDueRowUnderALeaseAndCountsAnAttempt(t *testing.T) {
	ctx := context.Background()
	d, ids := pending(t, "first", "second")
	a, err := outbox.Claim(ctx, d, "a", time.Minute)
	require.NoError(t, err)
	require.Equal(t, ids[0], a.ID)
	require.Equal(t, "first", a.Title)
	require.Equal(t, outbox.Question, a.Kind)
	require.Equal(t, "default", a.OrgID)
	require.Equal(t, 1, a.Attempts)
	require.Regexp(t, `^ntf_`, a.Key)
	b, err := outbox.Claim(ctx, d, "b", time.Minute)
	require.NoError(t, err)
	require.Equal(t, ids[1], b.ID, "a leased row is not taken again")
	none, err := outbox.Claim(ctx, d, "c", time.Minute)
	require.NoError(t, err)
	require.Nil(t, none)
	s := stateOf(t, d, ids[0])
	require.Equal(t, "a", *s.Owner)
	require.True(t, s.Leased)

	wait, ok, err := outbox.NextDue(ctx, d)
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, time.Minute.Seconds(), wait.Seconds(), 5, "the next row frees when a lease runs out")
}

func TestSettlingEndsTheLeaseAndOnlyTheLeaseOwnerSettles(t *testing.T) {
	ctx := context.Background()
	d, ids := pending(t, "sent", "dead", "retried")
	for _, id := range ids {
		r, err := outbox.Claim(ctx, d, "w", time.Minute)
		require.NoError(t, err)
		require.Equal(t, id, r.ID)
	}
	require.NoError(t, outbox.Sent(ctx, d, "intruder", ids[0], ""))
	require.Nil(t, stateOf(t, d, ids[0]).SentAt, "another owner changes nothing")
	ok, err := outbox.Renew(ctx, d, "intruder", ids[0], time.Minute)
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, outbox.Sent(ctx, d, "w", ids[0], ""))
	require.NoError(t, outbox.Dead(ctx, d, "w", ids[1], "refused"))
	require.NoError(t, outbox.Retry(ctx, d, "w", ids[2], 30*time.Second, "outage"))
	sent, dead, retried := stateOf(t, d, ids[0]), stateOf(t, d, ids[1]), stateOf(t, d, ids[2])
	require.NotNil(t, sent.SentAt)
	require.Nil(t, sent.LastError)
	require.False(t, sent.Leased)
	require.NotNil(t, dead.DeadAt)
	require.Equal(t, "refused", *dead.LastError)
	require.Nil(t, retried.SentAt)
	require.Nil(t, retried.DeadAt)
	require.Equal(t, "outage", *retried.LastError)
	require.InDelta(t, 30, retried.RetryIn, 5)
	require.False(t, retried.Leased)

	require.NoError(t, outbox.Dead(ctx, d, "w", ids[0], "late"))
	require.Nil(t, stateOf(t, d, ids[0]).DeadAt, "a settled row stays settled")
	none, err := outbox.Claim(ctx, d, "w", time.Minute)
	require.NoError(t, err)
	require.Nil(t, none, "the retried row is not due yet")
	wait, ok, err := outbox.NextDue(ctx, d)
	require.NoError(t, err)
	require.True(t, ok)
	require.InDelta(t, 30, wait.Seconds(), 5)
}

func TestAnExpiredLeaseGoesToAnotherOwnerAndTheFirstCannotRenewOrSettle(t *testing.T) {
	ctx := context.Background()
	d, ids := pending(t, "slow")
	_, err := outbox.Claim(ctx, d, "a", 0) // a lease that has already run out
	require.NoError(t, err)
	b, err := outbox.Claim(ctx, d, "b", time.Minute)
	require.NoError(t, err)
	require.Equal(t, ids[0], b.ID)
	require.Equal(t, 2, b.Attempts)
	ok, err := outbox.Renew(ctx, d, "a", ids[0], time.Minute)
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, outbox.Sent(ctx, d, "a", ids[0], ""))
	require.Nil(t, stateOf(t, d, ids[0]).SentAt)
	ok, err = outbox.Renew(ctx, d, "b", ids[0], time.Minute)
	require.NoError(t, err)
	require.True(t, ok)

	require.NoError(t, outbox.Sent(ctx, d, "b", ids[0], ""))
	_, ok, err = outbox.NextDue(ctx, d)
	require.NoError(t, err)
	require.False(t, ok, "nothing is pending")
}
