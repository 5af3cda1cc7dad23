package metrics_test

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/metrics"
)

// A nil *Metrics records nothing and fails nothing: a kernel built without
// a registry (pact-admin, most tests) calls it unguarded.
func TestNilMetricsRecordNothing(t *testing.T) {
	var m *metrics.Metrics
	m.ToolCall("pact_post", "ok", time.Millisecond)
	m.AdminCall("people-get-me", 200, time.Millisecond)
	m.LogAppend("ok")
	m.Delivery(metrics.DeliverySent)
	m.PluginCall("slack", "notifier.Deliver", "ok", time.Millisecond)
	require.NoError(t, m.Gauge("x", "x", func() float64 { return 0 }))
	require.NoError(t, m.Register())
}

// The handler serves what was recorded in the Prometheus text format, the
// delivery outcomes from zero before any attempt.
func TestHandlerServesTheRegistry(t *testing.T) {
	m := metrics.New()
	m.ToolCall("pact_post", "scope_exceeded", 20*time.Millisecond)
	require.NoError(t, m.Gauge("held_waits", "h", func() float64 { return 3 }))
	require.Error(t, m.Gauge("held_waits", "h", func() float64 { return 3 }), "a name registered twice")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range []string{
		`pact_tool_calls_total{outcome="scope_exceeded",tool="pact_post"} 1`,
		`pact_tool_call_duration_seconds_bucket{outcome="scope_exceeded",tool="pact_post",le="0.025"} 1`,
		`pact_held_waits 3`,
		`pact_outbox_delivery_attempts_total{outcome="dead"} 0`,
	} {
		require.Contains(t, string(body), line)
	}
}
