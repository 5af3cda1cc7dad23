package main

// Prometheus metrics: with PACT_METRICS_ADDR set, the board builds one
// registry (core/metrics), records tool calls, Admin API calls, log
// appends, deliveries and plugin calls into it, and serves it at /metrics
// on a listener of its own (docs/operations.md, "What to monitor"). Like
// profiling, it is never mounted on the board's handler: it is for the
// operator's scraper, not for agents or people.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/pluginhost"
)

// MetricsAddr is where /metrics listens (useful with port 0); nil when
// PACT_METRICS_ADDR is unset. Valid once Ready is closed.
func (m *Main) MetricsAddr() net.Addr { return m.metricsAddr }

// Metrics is the board's registry; nil when PACT_METRICS_ADDR is unset.
// Valid once Ready is closed.
func (m *Main) Metrics() *metrics.Metrics { return m.metrics }

// observe registers the gauges read at scrape time: held waits, event
// subscribers, the pool, the outbox and the plugins. hub and plugins may
// be nil.
func observe(reg *metrics.Metrics, k *kernel.Kernel, d *db.DB, hub *events.Hub, plugins *pluginhost.Host) error {
	if reg == nil {
		return nil
	}
	return errors.Join(
		reg.Gauge("held_waits", "Calls with a Wait phase (pact_wait, pact_events) held now.",
			func() float64 { return float64(k.Tools().Waiting()) }),
		reg.Gauge("event_subscribers", "Open subscriptions of the event hub (held waits and live streams).",
			func() float64 { return float64(hub.Len()) }),
		reg.Register(metrics.Pool(d.Pool.Stat),
			metrics.Outbox(func(ctx context.Context) (metrics.OutboxState, error) {
				n, oldest, err := outbox.Depth(ctx, d)
				return metrics.OutboxState{Pending: n, Oldest: oldest}, err
			}),
			metrics.LogQueue(func(ctx context.Context) (metrics.QueueState, error) { return ledger.Queued(ctx, d) }),
			metrics.Plugins(func() []metrics.PluginState {
				var out []metrics.PluginState
				if plugins == nil {
					return nil
				}
				for _, s := range plugins.Status() {
					out = append(out, metrics.PluginState{Name: s.Name, Kind: string(s.Kind), Running: s.Running, Starts: s.Starts})
				}
				return out
			})),
	)
}

// startMetrics serves reg's /metrics on PACT_METRICS_ADDR, if set, until
// stop.
func (m *Main) startMetrics(reg *metrics.Metrics) (stop func(), err error) {
	if reg == nil {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", m.Config.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for metrics on %s (PACT_METRICS_ADDR): %w", m.Config.MetricsAddr, err)
	}
	m.metricsAddr = ln.Addr()
	logger := m.Logger.Named("metrics")
	logger.Info("serving /metrics", "addr", ln.Addr().String())
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", reg.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		ErrorLog: logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics stopped", "error", err)
		}
	}()
	return func() { _ = srv.Close(); <-served }, nil
}
