// Package notify delivers the notification outbox: the rows core/outbox
// writes in the transactions of board events become Slack cards, webhook
// calls and whatever else an organization's notifier plugins reach.
//
// Delivery never runs inside a board transaction, so a notifier outage never
// fails board work. Each board process runs a few delivery workers that
// claim one row at a time under a lease (FOR UPDATE SKIP LOCKED, then a
// lease owner and expiry on the row), deliver outside any transaction, and
// mark the row sent, retry it later (30 s doubling, 8 attempts) or mark it
// dead with the last error kept. A worker that dies mid-delivery leaves its
// lease to expire and another worker, in this process or another, delivers
// the row again with the same idempotency key, so receivers drop the
// repeat. Workers wake on LISTEN pact_outbox and sleep until the next retry
// is due, never polling in a tight loop.
//
// The module also sweeps expiring root mandates and agent tokens every 10
// minutes (docs/specs/behavior.md §8.8), under a lease row so one process among all of
// them runs each sweep.
package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/notifier"
)

// Notifiers finds the notifier plugins the operator runs, by their name in
// PACT_PLUGINS. cmd/pact-board passes its plugin host. Notifier returns a
// refusal (errs.NotFound) for a name it does not know; deliveries through
// such a name are retried like an outage, since the operator may fix the
// configuration.
type Notifiers interface {
	Notifier(name string) (notifier.Notifier, error)
}

// Options configure the module. Zero fields take the defaults shown; the
// fields marked "from the configuration" are filled by Register from the
// board's configuration when left empty.
type Options struct {
	// Notifiers are the notifier plugins; nil means none run, so every
	// delivery waits (and eventually dies) with a clear last_error.
	Notifiers Notifiers
	// SlackNotifier is the plugin that delivers to organizations' Slack
	// webhooks ("slack").
	SlackNotifier string
	// EmailNotifier is the plugin that emails people ("email", which
	// PACT_SMTP_URL runs): while no plugin runs under this name, nothing is
	// emailed (email.go).
	EmailNotifier string
	// Workers is the number of delivery workers of this process (2).
	Workers int

	// SlackWebhookURL is PACT_SLACK_WEBHOOK_URL, the default
	// organization's webhook until it sets its own (from the configuration).
	SlackWebhookURL string
	// AdminUIURL is PACT_ADMIN_UI_URL; with it notifications link to
	// <AdminUIURL>/tasks/<id> (from the configuration).
	AdminUIURL string
	// ConsoleURL is the web console's base URL, which emails link to
	// (<ConsoleURL>/notifications, /settings): PACT_ADMIN_UI_URL, else
	// PACT_PUBLIC_URL/console (from the configuration).
	ConsoleURL string
	// ExpiryWarn is PACT_EXPIRY_WARN_HOURS: how long before an expiry
	// people are warned (from the configuration; 48 h).
	ExpiryWarn time.Duration
	// Location is the time zone of the times in expiry warnings (time.Local).
	Location *time.Location
	// Logger receives delivery failures and worker trouble; Register uses
	// the module's logger. Nil discards.
	Logger hclog.Logger
	// Seal seals destination URLs and secrets, and opens them and the
	// organizations' Slack webhooks (core/seal). Register uses the board's
	// keyring. Nil seals under a key of this Service alone, which nothing
	// else can open: for tests that own everything they read.
	Seal *seal.Box
	// Metrics counts delivery attempts by how they settled; Register uses
	// the board's (kernel.Host.Metrics). Nil counts nothing.
	Metrics *metrics.Metrics

	// Lease is how long a claimed row stays with its worker (2 min); a
	// worker that dies holds its rows this long.
	Lease time.Duration
	// DeliverTimeout bounds one delivery to one destination (30 s; the
	// plugin host also puts its own deadline on every call).
	DeliverTimeout time.Duration
	// RetryBase is the wait after the first failed attempt, doubling after
	// each further one (30 s), and MaxAttempts how many attempts a row gets
	// before it is dead (8).
	RetryBase   time.Duration
	MaxAttempts int
	// Tick is the longest an idle worker sleeps without a wake (1 min): a
	// safety net under LISTEN and the retry timer.
	Tick time.Duration
	// SweepEvery is the expiry sweep's period and lease (10 min);
	// SweepCheck how often each process tries to take the lease (1 min).
	SweepEvery, SweepCheck time.Duration
	// ListenIdle is how long the outbox listener waits for a notification
	// before it pings its connection, since a dead peer would leave it
	// waiting for ever (30 s).
	ListenIdle time.Duration
}

// Module is the notify module.
type Module struct {
	opts Options
	svc  *Service
}

// New returns the notify module; Register builds its service.
func New(opts Options) *Module { return &Module{opts: opts} }

// Name is "notify".
func (m *Module) Name() string { return "notify" }

// Service returns the module's service (destinations, delivery, sweeps), or
// nil before Register.
func (m *Module) Service() *Service { return m.svc }

// Register builds the service from the board's database, log and
// configuration, adds the Admin API's destination operations and the
// workers: the outbox listener, the delivery workers and the expiry
// sweeper. It does no I/O.
func (m *Module) Register(h *kernel.Host) error {
	opts := m.opts
	if c := h.Config(); c != nil {
		opts.SlackWebhookURL = cmpOr(opts.SlackWebhookURL, c.SlackWebhookURL)
		opts.AdminUIURL = cmpOr(opts.AdminUIURL, c.AdminUIURL)
		if opts.ConsoleURL == "" && c.AdminUIURL != "" {
			opts.ConsoleURL = c.AdminUIURL
		} else if opts.ConsoleURL == "" && c.PublicURL != "" {
			opts.ConsoleURL = c.PublicURL + "/console"
		}
		opts.ExpiryWarn = cmpOr(opts.ExpiryWarn, c.ExpiryWarn)
	}
	if opts.Logger == nil {
		opts.Logger = h.Logger()
	}
	if opts.Metrics == nil {
		opts.Metrics = h.Metrics()
	}
	if h.DB() == nil {
		return fmt.Errorf("notify needs the board's database")
	}
	if opts.Seal == nil && h.Mandates() != nil {
		opts.Seal = seal.New(h.Mandates().Keys())
	}
	m.svc = NewService(h.DB(), h.Log(), &opts)
	if people := h.Identity(); people != nil {
		if err := kernel.Provide(h, seams.SlackWebhooksSeam, m.svc.SlackWebhooks(people)); err != nil {
			return err
		}
		h.Worker("reseal", func(ctx context.Context) error { return m.svc.resealAll(ctx, people) })
	}
	m.svc.registerAdmin(h.Admin())
	m.svc.registerInbox(h.Admin())
	m.svc.registerEmail(h.Admin())
	h.Worker("listen", m.svc.listen)
	for i := range m.svc.opts.Workers {
		h.Worker(fmt.Sprintf("deliver%d", i+1), func(ctx context.Context) error { return m.svc.work(ctx, i) })
	}
	h.Worker("expiry", m.svc.sweepLoop)
	return h.Channel(kernel.Channel{Name: "notifications", Audience: kernel.PersonAudience,
		Summary: "notifications addressed to a person, sent to the organization's Slack and webhook destinations and emailed to the people who chose their kind",
		Exempt: map[kernel.Stop]string{kernel.StopSignOut: "signing out ends a console session, not the person: what " +
			"is addressed to them reaches the organization's destinations, which no session opened"}})
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
