package outbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestEnqueueCleansTextAndTakesTheProjectsOrganization(t *testing.T) {
	ctx := context.Background()
	d, _ := pending(t)
	ident := identity.NewService(d, ledger.New(nil), nil)
	kerneltest.MakeOrg(t, d, ledger.New(nil), ident, "https://issuer.test", "acme", "bo", nil)
	acme := "acme"
	_, err := ident.AddProject(ctx, "bo", "rocket", "Rocket", false)
	require.NoError(t, err)
	var id int64
	require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		id, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Deferred, ProjectID: "rocket",
			Title:  "Deploy   the\nsite token=s3cr3t-value " + strings.Repeat("x", 300),
			Detail: "\n\n  needs password=hunter2 to go on \nsecond line"})
		return err
	}))
	var row struct {
		OrgID  string  `bun:"org_id"`
		Title  string  `bun:"title"`
		Detail *string `bun:"detail"`
		Key    string  `bun:"idempotency_key"`
	}
	require.NoError(t, d.NewRaw(`SELECT org_id, title, detail, idempotency_key FROM notifications WHERE id = ?`, id).Scan(ctx, &row))
	require.Equal(t, acme, row.OrgID)
	require.Len(t, []rune(row.Title), outbox.MaxTitle)
	require.True(t, strings.HasPrefix(row.Title, "Deploy the site token=[REDACTED] xxx"), row.Title)
	require.NotContains(t, row.Title, "s3cr3t")
	require.True(t, strings.HasSuffix(row.Title, "…"))
	require.Equal(t, "needs password=[REDACTED] to go on", *row.Detail)
	require.Regexp(t, `^ntf_[0-9a-f]{32}$`, row.Key)
}

func TestARolledBackEventLeavesNoNotification(t *testing.T) {
	ctx := context.Background()
	d, _ := pending(t)
	err := d.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "t"}); err != nil {
			return err
		}
		return context.Canceled // the event is refused after the enqueue
	})
	require.Error(t, err)
	var n int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM notifications`).Scan(ctx, &n))
	require.Zero(t, n)
}
