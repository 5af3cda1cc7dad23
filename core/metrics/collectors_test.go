package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/metrics"
)

func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return string(body)
}

// The collectors report, at scrape time, what their sources hold: each
// plugin whether it runs and its restarts (starts after the first, never
// below zero), the outbox's depth and lag, the pool's statistics.
func TestCollectorsReportTheirSourcesAtScrapeTime(t *testing.T) {
	m := metrics.New()
	states := []metrics.PluginState{
		{Name: "slack", Kind: "notifier", Running: true, Starts: 3},
		{Name: "tenuo", Kind: "credential", Running: false, Starts: 0},
	}
	pool, err := pgxpool.New(t.Context(), "postgres://nobody@127.0.0.1:1/none?pool_max_conns=7")
	require.NoError(t, err) // lazy: it connects to nothing until asked
	t.Cleanup(pool.Close)
	require.NoError(t, m.Register(
		metrics.Plugins(func() []metrics.PluginState { return states }),
		metrics.Outbox(func(context.Context) (metrics.OutboxState, error) {
			return metrics.OutboxState{Pending: 4, Oldest: 90 * time.Second}, nil
		}),
		metrics.LogQueue(func(context.Context) (metrics.QueueState, error) {
			return metrics.QueueState{Pending: 2, Oldest: 3 * time.Second}, nil
		}),
		metrics.Pool(pool.Stat),
	))
	body := scrape(t, m)
	for _, line := range []string{
		`pact_plugin_up{kind="notifier",plugin="slack"} 1`,
		`pact_plugin_restarts_total{kind="notifier",plugin="slack"} 2`,
		`pact_plugin_up{kind="credential",plugin="tenuo"} 0`,
		`pact_plugin_restarts_total{kind="credential",plugin="tenuo"} 0`,
		`pact_outbox_pending 4`,
		`pact_outbox_oldest_pending_age_seconds 90`,
		`pact_log_queued_entries 2`,
		`pact_log_oldest_queued_age_seconds 3`,
		`pact_db_pool_max_connections 7`,
		`pact_db_pool_acquires_total 0`,
	} {
		require.Contains(t, body, line+"\n")
	}
	require.Error(t, m.Register(metrics.Plugins(func() []metrics.PluginState { return nil })),
		"a collector of names already registered")
}

// The outbox is read under a deadline of its own, seconds away, so that a
// slow database cannot hold a scrape; a read that fails leaves the outbox's
// figures out of the scrape and serves the rest.
func TestTheOutboxIsReadUnderADeadlineAndAFailedReadIsLeftOut(t *testing.T) {
	m := metrics.New()
	var left time.Duration
	require.NoError(t, m.Register(metrics.Outbox(func(ctx context.Context) (metrics.OutboxState, error) {
		dl, ok := ctx.Deadline()
		require.True(t, ok, "the read has a deadline")
		left = time.Until(dl)
		return metrics.OutboxState{}, errors.New("the database is away")
	})))
	require.NoError(t, m.Gauge("held_waits", "h", func() float64 { return 1 }))
	body := scrape(t, m)
	require.Greater(t, left, 4*time.Second)
	require.LessOrEqual(t, left, 5*time.Second)
	require.NotContains(t, body, "pact_outbox_pending")
	require.True(t, strings.Contains(body, "pact_held_waits 1\n"), body)
}
