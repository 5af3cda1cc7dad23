package kernel

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/metrics"
)

// Host is one module's view of the kernel, handed to its Register. It is
// valid only during Register; a module keeps what it needs (DB, Log,
// Logger) in its own fields.
type Host struct {
	k      *Kernel
	module string
	logger hclog.Logger
}

// Module returns the name of the module this Host belongs to.
func (h *Host) Module() string { return h.module }

// DB returns the board's database.
func (h *Host) DB() *db.DB { return h.k.deps.DB }

// Log returns the board's append-only log.
func (h *Host) Log() *ledger.Log { return h.k.deps.Log }

// Mandates returns the mandate service: verification, delegation, budgets.
func (h *Host) Mandates() *mandate.Service { return h.k.deps.Mandates }

// Identity returns the people, projects, agents and tokens service.
func (h *Host) Identity() *identity.Service { return h.k.deps.Identity }

// Events returns the process's event hub: tools that wait subscribe to it,
// and changes that may end a wait publish with events.Publish in their
// transaction. It may be nil; a nil hub's subscriptions are never woken.
func (h *Host) Events() *events.Hub { return h.k.deps.Events }

// Tool registers an MCP tool. Its body only ever runs inside the kernel's
// tool-call pipeline (gate, transaction, log entry, refusal rule).
func (h *Host) Tool(t Tool) error { return h.k.tools.Add(t) }

// Resource registers an MCP resource template.
func (h *Host) Resource(r Resource) error { return h.k.res.Add(r) }

// Tools returns the tool pipeline, for modules whose other surfaces (MCP
// resources, hook endpoints) must run a tool call exactly as an agent would.
func (h *Host) Tools() *Tools { return h.k.tools }

// Metrics returns the process's metrics registry; nil (which records
// nothing) when the kernel was built without one.
func (h *Host) Metrics() *metrics.Metrics { return h.k.deps.Metrics }

// Logger returns the board's logger, named after the module.
func (h *Host) Logger() hclog.Logger { return h.logger }

// Config returns the process configuration. It must not be modified.
func (h *Host) Config() *boot.Config { return h.k.deps.Config }

// Handle registers handler for pattern (net/http ServeMux syntax, e.g.
// "POST /connect" or "/mcp/a/{agent}"). A pattern that conflicts with one
// already registered makes the kernel's Register return an error.
func (h *Host) Handle(pattern string, handler http.Handler) {
	h.k.handle(pattern, handler)
}

// Admin returns the Admin API group: paths given to huma.Register on it are
// relative to /admin/api. Operation ids follow <module>-<verb>[-<noun>], and
// handlers return errs refusals (translated by ToAdminError).
func (h *Host) Admin() huma.API { return h.k.admin }

// Worker adds a background job that Kernel.Run runs until its context ends.
// When run returns an error (or panics) it is logged and run again after a
// growing delay; when it returns nil before the context ends it is done.
// run must return promptly once ctx is done.
func (h *Host) Worker(name string, run func(ctx context.Context) error) {
	h.k.mu.Lock()
	defer h.k.mu.Unlock()
	h.k.workers = append(h.k.workers, worker{name: h.module + "." + name, run: run, logger: h.logger.Named(name)})
}
