package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/modules/audit"
	"github.com/pactboard/pact/modules/board"
	"github.com/pactboard/pact/modules/console"
	"github.com/pactboard/pact/modules/console/web"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/modules/notes"
	"github.com/pactboard/pact/modules/notify"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/modules/people"
)

// Main is one run of the board: the wiring of main, kept apart so an
// end-to-end test can start the real board in-process.
type Main struct {
	Config *boot.Config
	Logger hclog.Logger
	// Demo asks for the demo owner, project and agent on first start.
	Demo bool
	// Out is where --demo prints how to connect the agent; nil discards.
	Out io.Writer
	// Manifest pins the bundled plugins that PACT_AUTH_ISSUER,
	// PACT_SLACK_WEBHOOK_URL and PACT_EXPORT_FORMAT turn on: main passes
	// the one make build embedded (bundled.go); nil bundles none.
	Manifest []pluginhost.Spec
	// NudgeEvery is how often the pacts module looks for unread messages;
	// zero is its default, a minute (a test waiting for a round shortens it).
	NudgeEvery time.Duration

	ready     chan struct{}
	addr      net.Addr
	pprofAddr net.Addr
	// metrics is the registry, when PACT_METRICS_ADDR is set; metricsAddr
	// is where it is served.
	metrics     *metrics.Metrics
	metricsAddr net.Addr

	mu      sync.Mutex
	release func() error
	closed  bool
}

// NewMain prepares a board run with cfg; a nil logger discards logs.
func NewMain(cfg *boot.Config, logger hclog.Logger) *Main {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Main{Config: cfg, Logger: logger, Out: io.Discard, ready: make(chan struct{})}
}

// Ready is closed once the board listens; Addr is valid from then on.
func (m *Main) Ready() <-chan struct{} { return m.ready }

// Addr is the address the board listens on (useful with PORT=0).
func (m *Main) Addr() net.Addr { return m.addr }

// Run starts the board and serves until ctx ends, then shuts down as
// serve says. Call Close afterwards, whatever Run returned.
func (m *Main) Run(ctx context.Context) error {
	signingKey, err := boot.SigningKey(m.Config)
	if err != nil {
		return err
	}
	keys, err := mandate.ParseKeyring(m.Config.BoardKeys, signingKey)
	if err != nil {
		return err
	}
	d, release, err := boot.OpenDatabase(ctx, m.Config, m.Logger)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.release = release
	m.mu.Unlock()

	if m.Config.MetricsAddr != "" {
		m.metrics = metrics.New()
	}
	plugins, err := pluginhost.FromConfig(m.Config, m.Manifest, m.Logger.Named("plugin"), m.metrics)
	if err != nil {
		return err
	}
	plugins.Start() // never fails: a plugin that cannot start is logged and retried
	defer func() {
		if err := plugins.Close(); err != nil {
			m.Logger.Warn("stopping plugins", "error", err)
		}
	}()

	log := ledger.New(&ledger.Options{Statements: m.Config.DBStatements, Metrics: m.metrics})
	mandateSvc := mandate.NewService(keys, &mandate.Options{Statements: m.Config.DBStatements})
	seenLog := m.Logger.Named("presence")
	ident := identity.NewService(d, log, &identity.Options{
		SeenFailed: func(err error) { seenLog.Warn("last_seen stamps wait for the database", "error", err) }})
	// The admin service never has a waiting agent, so it does not listen.
	var hub *events.Hub
	if m.Config.Role != boot.RoleAdmin {
		hub = events.NewHub(d.ListenConfig(), m.Logger.Named("events"))
	}
	issuer := adminIssuer(plugins, m.Config, m.Logger)
	adminAuth := auth.NewAdmin(ident, auth.Options{Issuer: issuer,
		Audience: m.Config.AdminAudience, RequireMFA: m.Config.AdminRequireMFA})
	k := kernel.New(kernel.Deps{DB: d, Log: log, Mandates: mandateSvc, Identity: ident, Events: hub, AdminAuth: adminAuth,
		Logger: m.Logger, Config: m.Config, Metrics: m.metrics})
	// mcp comes last and serves every tool and resource the others registered.
	mcpOpts := mcpOptions(m.Config, k, ident, d, issuer)
	mcpOpts.Conns = mcpserve.NewConns()
	mcpSrv := mcpserve.New(mcpOpts)
	if err := k.Register(append(boardModules(keys, hub, plugins, plugins, m.NudgeEvery), mcpSrv)...); err != nil {
		return err
	}
	if m.Demo {
		if err := firstRun(ctx, d, ident, people.NewService(d, log, ident, mandateSvc), m.Config.PublicURL, m.Out); err != nil {
			return err
		}
		pluginSummary(m.Out, m.Config, plugins)
	}

	stopPprof, err := m.startPprof()
	if err != nil {
		return err
	}
	defer stopPprof()
	if err := observe(m.metrics, k, d, hub, plugins); err != nil {
		return err
	}
	stopMetrics, err := m.startMetrics(m.metrics)
	if err != nil {
		return err
	}
	defer stopMetrics()
	ln, err := net.Listen("tcp", m.Config.Addr())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.Config.Addr(), err)
	}
	m.addr = ln.Addr()
	close(m.ready)
	m.Logger.Info("listening", "addr", ln.Addr().String(), "public_url", m.Config.PublicURL,
		"role", m.Config.Role, "admin_api", m.Config.AdminAPI)
	if err := consoleLink(ctx, m.Config, d, m.Out); err != nil {
		m.Logger.Warn("no console link this start", "error", err)
	}
	return m.serve(ctx, mcpOpts.Conns.Wrap(ln), k, mcpSrv)
}

// serve serves ln until ctx ends; ln gives back the connections of the
// calls mcp parks while they wait, and its Shutdown is followed by waiting
// for their answers, which it does not know.
func (m *Main) serve(ctx context.Context, ln net.Listener, k *kernel.Kernel, mcp *mcpserve.Server) error {
	srv := m.httpServer(closeWhenDraining(k, k.Handler()))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	worked := make(chan error, 1)
	go func() { worked <- k.Run(workCtx) }()

	var serveErr error
	select {
	case <-ctx.Done():
		m.drain(k)
	case serveErr = <-served:
		serveErr = fmt.Errorf("serve: %w", serveErr)
	}
	m.Logger.Info("shutting down", "deadline", m.Config.ShutdownDeadline)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.Config.ShutdownDeadline)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		m.Logger.Warn("requests still running at the deadline; closing them", "error", err)
		_ = srv.Close()
	}
	if err := mcp.WaitParked(sctx); err != nil {
		m.Logger.Warn("parked calls still unanswered at the deadline", "error", err)
	}
	stopWork()
	werr := <-worked
	if err := k.FlushSeen(sctx); err != nil {
		m.Logger.Warn("last_seen stamps of the last second are lost", "error", err)
	}
	m.Logger.Info("stopped")
	return errors.Join(serveErr, werr)
}

// httpServer is the board's server of h. Its timeouts: a request's headers
// within 10 s and the whole request within kernel.MaxRequestRead, so a slow
// client cannot hold a connection (SEC-007); no write timeout, since held
// MCP calls (pact_wait, pact_events) answer up to 50 s later; and an idle
// connection kept for two minutes, longer than any held call, so a client
// between two held calls keeps its connection (REL-012: idle connections
// stay open until the drain ends).
func (m *Main) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       kernel.MaxRequestRead,
		IdleTimeout:       120 * time.Second,
		WriteTimeout:      0,
		ErrorLog:          m.Logger.Named("http").StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
}

// drain is the first step of a requested stop (SIGTERM): the board leaves
// /readyz and answers its held calls at once, telling their clients to
// call again, then keeps serving for PACT_DRAIN_SECONDS, so a load balancer
// sees the 503 and sends new calls (and the re-issued held ones) to
// another board before this one stops taking connections (REL-001).
// Answers from now on close their connections (closeWhenDraining), so a
// client's next call connects anew and the load balancer routes it
// elsewhere.
func (m *Main) drain(k *kernel.Kernel) {
	k.Drain()
	m.Logger.Info("draining", "wait", m.Config.DrainWait)
	if m.Config.DrainWait > 0 {
		time.Sleep(m.Config.DrainWait)
	}
}

// Close closes the database and leaves the embedded cluster, stopping
// PostgreSQL when this was its last user. It is safe to call more than once.
func (m *Main) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.release == nil {
		m.closed = true
		return nil
	}
	m.closed = true
	return m.release()
}

// mcpOptions serves every tool and resource to agents holding their token
// and, when an issuer is configured, to people signed in to the Claude-app
// agents they own.
func mcpOptions(cfg *boot.Config, k *kernel.Kernel, ident *identity.Service, d *db.DB, issuer auth.Issuer) mcpserve.Options {
	o := mcpserve.Options{Resources: k.Resources(), Version: kernel.Version,
		Auth: mcpserve.OAuth{Tokens: mcpserve.AgentTokens{Identity: ident, DB: d}, Issuer: issuer, Identity: ident, DB: d,
			PublicURL: cfg.PublicURL}}
	if issuer != nil && cfg.AuthIssuer != "" {
		o.AuthorizationServers = []string{cfg.AuthIssuer}
	}
	return o
}

// adminIssuer is the auth-issuer plugin that verifies people's tokens: the
// first authissuer entry of PACT_PLUGINS, else the bundled auth-oidc that
// PACT_AUTH_ISSUER turns on. Without one, a bearer token on the Admin API
// is refused with "OAuth is not configured", while the console's local
// sign-in, when on, still signs people in; the log says what a person can
// do now.
func adminIssuer(plugins *pluginhost.Host, cfg *boot.Config, logger hclog.Logger) auth.Issuer {
	names := plugins.Names(pluginhost.KindAuthIssuer)
	if len(names) == 0 {
		logger.Info(noIssuerMessage(cfg.ConsoleLocalSignin))
		return nil
	}
	issuer, err := plugins.Issuer(names[0])
	if err != nil {
		logger.Error("authissuer plugin", "name", names[0], "error", err)
		return nil
	}
	return issuer
}

// noIssuerMessage is what the start log tells a person when no auth
// issuer is configured: what works now, and what turns the rest on.
func noIssuerMessage(localSignin bool) string {
	if localSignin {
		return "no sign-in provider (PACT_AUTH_ISSUER or PACT_PLUGINS): sign in to the console with the one-time local " +
			"link this log prints; the Admin API and pact-admin take people's bearer tokens once a provider is configured"
	}
	return "no sign-in provider (PACT_AUTH_ISSUER or PACT_PLUGINS) and the console's local sign-in is off: nobody can sign in " +
		"yet; set PACT_AUTH_ISSUER (docs/operations.md) or PACT_CONSOLE_LOCAL_SIGNIN=on"
}

// logSweep is how often a board integrates entries it was not told of
// (docs/log-sequencing.md): those committed outside the log's own
// transactions, and those of a board that died before placing its own.
const logSweep = 250 * time.Millisecond

// boardModules are the board's modules in their fixed order, all but the
// MCP transport. The tests build their board from this list too, so what
// they check is what pact-board serves. nudgeEvery is the pacts module's
// Options.NudgeEvery (zero: its default).
func boardModules(keys *mandate.Keyring, hub *events.Hub, notifiers notify.Notifiers, creds credentials.Plugins, nudgeEvery time.Duration) []kernel.Module {
	return []kernel.Module{audit.WellKnown(keys), kernel.EventHub(hub), kernel.LogIntegrator(logSweep),
		board.New(board.Options{Notifiers: notifiers}), mandates.New(), notes.New(),
		pacts.New(pacts.Options{Notifiers: notifiers, NudgeEvery: nudgeEvery}),
		people.New(), audit.New(), notify.New(notify.Options{Notifiers: notifiers}),
		credentials.New(credentials.Options{Plugins: creds, Keys: keys}),
		// The console's files are its web package's build, embedded.
		console.New(console.Options{Keys: keys, Assets: web.Assets()})}
}

// closeWhenDraining has every answer given while the board drains close
// its connection ("Connection: close"), so the client's next call connects
// anew and the load balancer routes it to another board. Idle connections
// are left for Shutdown to close, after PACT_DRAIN_SECONDS: closing them at
// once (SetKeepAlivesEnabled(false)) races a client that has just picked
// one for a POST, which then fails with EOF although the board never saw
// it (docs/reliability.md, scenario 5).
func closeWhenDraining(k *kernel.Kernel, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-k.Draining():
			w.Header().Set("Connection", "close")
		default:
		}
		next.ServeHTTP(w, r)
	})
}
