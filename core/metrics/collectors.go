package metrics

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Collectors read at scrape time: what they report already lives in
// another package (the pool's counters, the plugin host's state, the
// outbox's rows), so nothing on a call's path records it twice and no
// call pays a round trip for it (docs/invariants.md PERF-001).

// poolCollector reports a pgx pool's Stat.
type poolCollector struct {
	stat                                  func() *pgxpool.Stat
	acquired, idle, total, max            *prometheus.Desc
	acquires, empty, canceled, waitSecond *prometheus.Desc
}

// Pool returns the collector of the database pool whose statistics stat
// reads (db.DB.Pool.Stat).
func Pool(stat func() *pgxpool.Stat) prometheus.Collector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "db_pool", name), help, nil, nil)
	}
	return &poolCollector{stat: stat,
		acquired:   d("acquired_connections", "Connections of the pool in use."),
		idle:       d("idle_connections", "Connections of the pool idle."),
		total:      d("connections", "Connections the pool holds (acquired, idle and being opened)."),
		max:        d("max_connections", "The most connections the pool may hold (PACT_DB_MAX_CONNS)."),
		acquires:   d("acquires_total", "Connections taken from the pool."),
		empty:      d("empty_acquires_total", "Acquires that had to wait because no connection was idle."),
		canceled:   d("canceled_acquires_total", "Acquires given up before a connection came (PACT_DB_ACQUIRE_TIMEOUT, a caller gone)."),
		waitSecond: d("empty_acquire_wait_seconds_total", "Time acquires spent waiting because no connection was idle."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.total, c.max, c.acquires, c.empty, c.canceled, c.waitSecond} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stat()
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	n := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	g(c.acquired, float64(s.AcquiredConns()))
	g(c.idle, float64(s.IdleConns()))
	g(c.total, float64(s.TotalConns()))
	g(c.max, float64(s.MaxConns()))
	n(c.acquires, float64(s.AcquireCount()))
	n(c.empty, float64(s.EmptyAcquireCount()))
	n(c.canceled, float64(s.CanceledAcquireCount()))
	n(c.waitSecond, s.EmptyAcquireWaitTime().Seconds())
}

// PluginState is what the plugin collector reads of one plugin
// (pluginhost.Status).
type PluginState struct {
	Name, Kind string
	Running    bool
	Starts     int
}

// pluginCollector reports the plugin host's state.
type pluginCollector struct {
	states       func() []PluginState
	up, restarts *prometheus.Desc
}

// Plugins returns the collector of the plugins states lists: whether each
// runs, and how often it was restarted (starts after the first).
func Plugins(states func() []PluginState) prometheus.Collector {
	labels := []string{"plugin", "kind"}
	return &pluginCollector{states: states,
		up: prometheus.NewDesc(Namespace+"_plugin_up", "1 when the plugin's process runs.", labels, nil),
		restarts: prometheus.NewDesc(Namespace+"_plugin_restarts_total",
			"Processes of the plugin launched after its first (it died or stopped answering).", labels, nil),
	}
}

func (c *pluginCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.up; ch <- c.restarts }

func (c *pluginCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.states() {
		up := 0.0
		if s.Running {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, s.Name, s.Kind)
		ch <- prometheus.MustNewConstMetric(c.restarts, prometheus.CounterValue, float64(max(s.Starts-1, 0)), s.Name, s.Kind)
	}
}

// QueueState is a queue as its collector reads it: the outbox's
// notifications, the log's entries waiting for their places.
type QueueState struct {
	// Pending counts what waits (notifications neither sent nor dead,
	// entries not yet placed).
	Pending int64
	// Oldest is the age of the oldest waiting (0: none).
	Oldest time.Duration
}

// OutboxState is the outbox as the outbox collector reads it.
type OutboxState = QueueState

// queueCollector reads a queue at scrape time.
type queueCollector struct {
	read            func(context.Context) (QueueState, error)
	pending, oldest *prometheus.Desc
}

// Outbox returns the collector of the outbox read reads (outbox.Depth),
// under a deadline of its own so a slow database cannot hold a scrape.
func Outbox(read func(context.Context) (OutboxState, error)) prometheus.Collector {
	return &queueCollector{read: read,
		pending: prometheus.NewDesc(Namespace+"_outbox_pending", "Notifications waiting to be delivered (neither sent nor dead).", nil, nil),
		oldest: prometheus.NewDesc(Namespace+"_outbox_oldest_pending_age_seconds",
			"Age of the oldest notification waiting to be delivered: how far delivery lags behind the log.", nil, nil),
	}
}

// LogQueue returns the collector of the log's queue read reads
// (ledger.Queued): committed entries the integrator has not placed yet.
func LogQueue(read func(context.Context) (QueueState, error)) prometheus.Collector {
	return &queueCollector{read: read,
		pending: prometheus.NewDesc(Namespace+"_log_queued_entries",
			"Committed log entries waiting for their place in their chain (docs/log-sequencing.md).", nil, nil),
		oldest: prometheus.NewDesc(Namespace+"_log_oldest_queued_age_seconds",
			"Age of the oldest log entry waiting for its place: a growing age means no integrator is running.", nil, nil),
	}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.pending; ch <- c.oldest }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.pending, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(s.Pending))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, s.Oldest.Seconds())
}
