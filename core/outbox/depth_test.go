package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
)

// Depth counts the notifications neither sent nor dead and gives the age of
// the oldest of them: a sent or dead one, however old, counts for neither;
// with none waiting, both are zero.
func TestDepthIsThePendingRowsAndTheAgeOfTheOldest(t *testing.T) {
	ctx := context.Background()
	d, ids := pending(t, "sent", "dead", "late", "new")
	count, oldest, err := outbox.Depth(ctx, d)
	require.NoError(t, err)
	require.Equal(t, int64(4), count)
	require.Less(t, oldest, time.Minute)

	for _, id := range ids[:2] {
		c, err := outbox.Claim(ctx, d, "w", time.Minute)
		require.NoError(t, err)
		require.Equal(t, id, c.ID)
	}
	require.NoError(t, outbox.Sent(ctx, d, "w", ids[0], ""))
	require.NoError(t, outbox.Dead(ctx, d, "w", ids[1], "refused"))
	_, err = d.ExecContext(ctx, `UPDATE notifications SET created_at = now() - interval '3 hours' WHERE id IN (?, ?)`,
		ids[0], ids[1])
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `UPDATE notifications SET created_at = now() - interval '1 hour' WHERE id = ?`, ids[2])
	require.NoError(t, err)
	count, oldest, err = outbox.Depth(ctx, d)
	require.NoError(t, err)
	require.Equal(t, int64(2), count)
	require.InDelta(t, time.Hour.Seconds(), oldest.Seconds(), 60, "the oldest pending row is an hour old")

	for _, id := range ids[2:] {
		c, err := outbox.Claim(ctx, d, "w", time.Minute)
		require.NoError(t, err)
		require.Equal(t, id, c.ID)
		require.NoError(t, outbox.Sent(ctx, d, "w", id, ""))
	}
	count, oldest, err = outbox.Depth(ctx, d)
	require.NoError(t, err)
	require.Zero(t, count)
	require.Zero(t, oldest)
}
