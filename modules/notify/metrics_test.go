package notify_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/sdk/errs"
)

// Each delivery attempt is counted by how it settled, and the outbox's
// depth (read when metrics are scraped) follows the row until it is sent.
func TestDeliveryAttemptsAreCountedByOutcome(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	m := metrics.New()
	slack := &recorder{fail: 2, err: errs.E(errs.Unavailable, "slack answered 503: try later")}
	svc := notify.NewService(d, nil, &notify.Options{Notifiers: plugins{"slack": slack}, SlackWebhookURL: envSlack, Metrics: m})
	enqueue(t, d, outbox.Notification{Kind: outbox.Question, ProjectID: "web", Title: "Which colour?"})
	pending, oldest, err := outbox.Depth(ctx, d)
	require.NoError(t, err)
	require.EqualValues(t, 1, pending)
	require.Positive(t, oldest)

	for range 3 {
		_, err := svc.DeliverDue(ctx)
		require.NoError(t, err)
		makeDue(t, d)
	}
	require.Equal(t, map[string]float64{"sent": 1, "retry": 2, "dead": 0}, deliveries(t, m))
	pending, oldest, err = outbox.Depth(ctx, d)
	require.NoError(t, err)
	require.Zero(t, pending)
	require.Zero(t, oldest)
}

// deliveries is pact_outbox_delivery_attempts_total by outcome.
func deliveries(t *testing.T, m *metrics.Metrics) map[string]float64 {
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() == "pact_outbox_delivery_attempts_total" {
			for _, s := range f.GetMetric() {
				out[s.GetLabel()[0].GetValue()] = s.GetCounter().GetValue()
			}
		}
	}
	return out
}
