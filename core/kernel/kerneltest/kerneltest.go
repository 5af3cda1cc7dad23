// Package kerneltest is the one test harness of the board: a kernel over a
// fresh real database (core/pgtest), the modules a test names registered as
// cmd/pact-board registers them, a real HTTP server in front, people who
// sign in through a real OAuth issuer (core/auth/authtest served over the
// plugin wire), and agents that call tools through a real MCP client at
// /mcp/a/<agent>. Fixtures are made through the services, never by INSERT.
//
// A test package calls Main from its TestMain, which sets huma's error
// constructor once, as cmd/pact-board does, and runs the package's tests
// against one throwaway PostgreSQL cluster.
package kerneltest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth"
	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/mcpserve"
	"github.com/pactboard/pact/core/metrics"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/plugintest"
)

// Main runs a test package's tests: the Admin API answers with the board's
// error model, and every World's database comes from one cluster.
func Main(m *testing.M) {
	huma.NewError = kernel.NewAdminError
	huma.NewErrorWithContext = kernel.NewAdminErrorWithContext
	pgtest.Main(m)
}

// Options shape a World. The zero value is a board with no modules beyond
// the MCP transport, no event hub and an empty environment.
type Options struct {
	// Env is the environment boot.Load reads (nil: empty).
	Env map[string]string
	// Events runs an events.Hub, so pact_wait and pact_events wake on
	// commits rather than at their deadline.
	Events bool
	// Logger receives the kernel's logs (nil: discarded).
	Logger hclog.Logger
	// NoMCP leaves the MCP transport out (a test that registers its own).
	NoMCP bool
	// NoPark has held calls wait on their request's goroutine, as where
	// the server cannot take connections back (mcpserve.Options.Conns).
	NoPark bool
	// MCP shapes the MCP transport from the World's services, for a test
	// of the transport itself (its public URL, an Authenticator). Nil: the
	// defaults; Resources is always the kernel's, and an empty PublicURL is
	// http://board.test.
	MCP func(w *World) mcpserve.Options
	// Now is the clock of the World's identity service, which the modules
	// acting through it share (nil: time.Now), for a test that moves time.
	Now func() time.Time
	// Modules builds further modules from the World's services (a module
	// that needs the keyring, say); they register after the ones New is
	// given and before the MCP transport.
	Modules func(w *World) []kernel.Module
	// Metrics is the registry the kernel and the log record into, as
	// cmd/pact-board's with PACT_METRICS_ADDR (nil: none).
	Metrics *metrics.Metrics
}

// World is one board under test.
type World struct {
	T  testing.TB
	DB *db.DB
	// DSN names the World's database, for a Process's own pool.
	DSN      string
	Log      *ledger.Log
	Mandates *mandate.Service
	Identity *identity.Service
	Config   *boot.Config
	Hub      *events.Hub
	Kernel   *kernel.Kernel
	Issuer   *authtest.Issuer
	// URL is the board's base URL, e.g. http://127.0.0.1:41234.
	URL string

	server serverCloser
	// conns and mcp park held calls (nil with NoMCP).
	conns *mcpserve.Conns
	mcp   *mcpserve.Server

	mu       sync.Mutex
	roots    map[string]string // agent → root mandate id
	tokens   map[string]string // agent → token
	sessions map[string]*mcp.ClientSession
	outputs  map[string]*jsonschema.Resolved // tool → its output schema, once listed
}

type serverCloser interface{ Close() }

// New builds a World and registers modules in order, then the MCP
// transport (unless opts.NoMCP), as cmd/pact-board does.
func New(t testing.TB, opts Options, modules ...kernel.Module) *World {
	t.Helper()
	w := &World{T: t, DSN: pgtest.NewDSN(t), Log: ledger.New(&ledger.Options{Metrics: opts.Metrics}), Issuer: authtest.New(t),
		roots: map[string]string{}, tokens: map[string]string{}, sessions: map[string]*mcp.ClientSession{}}
	var err error
	w.DB, err = db.Open(context.Background(), w.DSN)
	require.NoError(t, err)
	t.Cleanup(w.DB.Close)
	w.Config, err = boot.Load(func(k string) string { return opts.Env[k] })
	require.NoError(t, err)
	keys, err := mandate.ParseKeyring("", strings.Repeat("k", 40))
	require.NoError(t, err)
	w.Mandates = mandate.NewService(keys, nil)
	w.Identity = identity.NewService(w.DB, w.Log, &identity.Options{Now: opts.Now})
	if opts.Events {
		w.Hub = events.NewHub(w.DB.ListenConfig(), nil)
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = w.Hub.Run(ctx) }()
		t.Cleanup(func() { stop(); <-done })
	}
	admin := auth.NewAdmin(w.Identity, auth.Options{Issuer: plugintest.Issuer(t, w.Issuer),
		Audience: w.Config.AdminAudience, RequireMFA: w.Config.AdminRequireMFA})
	w.Kernel = kernel.New(kernel.Deps{DB: w.DB, Log: w.Log, Mandates: w.Mandates, Identity: w.Identity,
		Events: w.Hub, Config: w.Config, AdminAuth: admin, Logger: opts.Logger, Metrics: opts.Metrics})
	if opts.Modules != nil {
		modules = append(modules, opts.Modules(w)...)
	}
	if !opts.NoMCP {
		var o mcpserve.Options
		if opts.MCP != nil {
			o = opts.MCP(w)
		}
		o.Resources = w.Kernel.Resources()
		if o.PublicURL == "" {
			o.PublicURL = "http://board.test"
		}
		if o.Conns == nil && !opts.NoPark {
			o.Conns = mcpserve.NewConns() // held calls park, as on the board
		}
		w.conns, w.mcp = o.Conns, mcpserve.New(o)
		modules = append(modules, w.mcp)
	}
	require.NoError(t, w.Kernel.Register(modules...))
	w.serve()
	return w
}

// Close stops the HTTP server early (it also stops at the test's end).
func (w *World) Close() { w.server.Close() }

// Bare is a kernel with no database, log or services, for a test of what
// registering a module takes from the host or refuses without them. cfg
// may be nil.
func Bare(cfg *boot.Config) *kernel.Kernel { return kernel.New(kernel.Deps{Config: cfg}) }
