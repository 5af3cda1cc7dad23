// Package metrics is the board's Prometheus instrumentation: one registry
// per process, owned by whoever builds the kernel (cmd/pact-board), never
// the client library's global one, and the metric vectors the kernel, the
// plugin host, the log and the modules record into. It is served on a
// listener of its own (PACT_METRICS_ADDR, docs/operations.md, "What to
// monitor").
//
// Every label is bounded (docs/invariants.md OBS-001): tool names, Admin
// API operation ids, HTTP statuses, error codes, outcomes, plugin names
// from the operator's catalog. No label ever carries the id of an agent,
// task, project, organization or person, so the number of series does not
// grow with the board's population.
//
// Every method works on a nil *Metrics and records nothing, so a kernel
// built without metrics (pact-admin, most tests) needs no branch.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric the board defines.
const Namespace = "pact"

// latency is the buckets of the latency histograms, in seconds. They reach
// a minute because a pact_wait or pact_events call waiting in the pipeline
// (not handed to its transport) lasts up to 50 s.
func latency() []float64 { return []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60} }

// Outcomes of a notification's delivery attempt (modules/notify), each
// counted from zero so rate() has a series before the first attempt.
const (
	DeliverySent  = "sent"
	DeliveryRetry = "retry"
	DeliveryDead  = "dead"
)

// Metrics is one process's registry and the vectors recorded into it.
type Metrics struct {
	reg *prometheus.Registry

	toolCalls    *prometheus.CounterVec
	toolSeconds  *prometheus.HistogramVec
	adminCalls   *prometheus.CounterVec
	adminSeconds *prometheus.HistogramVec
	logAppends   *prometheus.CounterVec
	logLag       prometheus.Histogram
	deliveries   *prometheus.CounterVec
	pluginCalls  *prometheus.HistogramVec
}

// New returns a registry holding the board's vectors and the Go runtime
// and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "tool_calls_total",
		Help: "MCP tool calls by tool and outcome: ok, the refusal's error code, or error."}, []string{"tool", "outcome"})
	m.toolSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "tool_call_duration_seconds",
		Help: "MCP tool call latency through the pipeline (over MCP, a held wait's time is not in it).", Buckets: latency()}, []string{"tool", "outcome"})
	m.adminCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "admin_requests_total",
		Help: "Admin API calls by operation id and HTTP status."}, []string{"operation", "status"})
	m.adminSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "admin_request_duration_seconds",
		Help: "Admin API call latency by operation id.", Buckets: latency()}, []string{"operation"})
	m.logAppends = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "log_appends_total",
		Help: "Entries appended to the log: outcome ok, or refused (a refusal's entry)."}, []string{"outcome"})
	m.logLag = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "log_integration_lag_seconds",
		Help:    "How long a committed entry waited for its place and hash in its chain (docs/log-sequencing.md).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}})
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "outbox_delivery_attempts_total",
		Help: "Notification delivery attempts by how they settled: sent, retry, dead."}, []string{"outcome"})
	m.pluginCalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "plugin_call_duration_seconds",
		Help: "Plugin call latency by plugin, method and outcome (ok or the error code).", Buckets: latency()},
		[]string{"plugin", "method", "outcome"})
	m.reg.MustRegister(m.toolCalls, m.toolSeconds, m.adminCalls, m.adminSeconds, m.logAppends, m.logLag, m.deliveries, m.pluginCalls,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, o := range []string{DeliverySent, DeliveryRetry, DeliveryDead} {
		m.deliveries.WithLabelValues(o)
	}
	return m
}

// Registry is the process's registry: what /metrics serves and what tests
// gather.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format. A collector
// that fails (the database down while the outbox is read) leaves its
// metrics out and the rest are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError})
}

// Register adds collectors (the gauges read at scrape time); it fails on
// a name registered twice.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	if m == nil {
		return nil
	}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Gauge registers a gauge read from f at scrape time.
func (m *Metrics) Gauge(name, help string, f func() float64) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help}, f))
}

// ToolCall records one call of a registered tool (never an unknown name,
// which an agent chooses).
func (m *Metrics) ToolCall(tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.toolCalls.WithLabelValues(tool, outcome).Inc()
	m.toolSeconds.WithLabelValues(tool, outcome).Observe(d.Seconds())
}

// AdminCall records one Admin API call of a registered operation.
func (m *Metrics) AdminCall(operation string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.adminCalls.WithLabelValues(operation, strconv.Itoa(status)).Inc()
	m.adminSeconds.WithLabelValues(operation).Observe(d.Seconds())
}

// LogAppend records one entry appended to the log.
func (m *Metrics) LogAppend(outcome string) {
	if m == nil {
		return
	}
	m.logAppends.WithLabelValues(outcome).Inc()
}

// LogIntegrated records how long one entry waited between its commit (its
// append, which commits with it) and its place in its chain.
func (m *Metrics) LogIntegrated(lag time.Duration) {
	if m == nil {
		return
	}
	m.logLag.Observe(lag.Seconds())
}

// Delivery records how one notification delivery attempt settled
// (DeliverySent, DeliveryRetry, DeliveryDead).
func (m *Metrics) Delivery(outcome string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(outcome).Inc()
}

// PluginCall records one call of a plugin's method.
func (m *Metrics) PluginCall(plugin, method, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.pluginCalls.WithLabelValues(plugin, method, outcome).Observe(d.Seconds())
}
