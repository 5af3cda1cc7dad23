// Package kernel is the module registry of PACT Board. Modules register
// explicitly with a [Kernel] at start-up, each through its own [Host]: HTTP
// routes, MCP tools (whose calls all run through one pipeline, Tools.Call),
// Admin API operations (a huma group under /admin/api) and background
// workers. The kernel adds what every board serves: /healthz,
// /readyz and JSON 404s.
//
// A Kernel is built and filled on one goroutine (cmd/pact-board does it in
// Main.Run); once Handler is serving and Run is running it is only read.
package kernel

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/metrics"
)

// Version is the board's version, shown in the Admin API document.
const Version = "0.1.0"

// AdminPrefix is where the Admin API lives.
const AdminPrefix = "/admin/api"

// Module is one feature of the board. Register adds the module's routes,
// operations and workers through h; it does no I/O, and an error it returns
// stops the board from starting.
type Module interface {
	// Name is short and lower-case (^[a-z][a-z0-9]*$), unique on a kernel.
	Name() string
	Register(h *Host) error
}

// Deps is what the kernel hands to modules through their Host.
type Deps struct {
	DB       *db.DB
	Log      *ledger.Log
	Mandates *mandate.Service
	Identity *identity.Service
	// Events wakes waiting agents when a commit concerns them. Nil is
	// allowed (tests): its subscriptions are never woken, so waits end by
	// their deadline.
	Events *events.Hub
	Logger hclog.Logger
	Config *boot.Config
	// AdminAuth authenticates people on the Admin API (core/auth.Admin).
	// Nil refuses every operation that is not public.
	AdminAuth AdminAuthenticator
	// Metrics is the process's registry (cmd/pact-board builds it): tool
	// calls and Admin API calls are recorded into it, and modules reach it
	// through Host.Metrics. Nil records nothing.
	Metrics *metrics.Metrics
}

// Kernel is the registry: one mux, one Admin API, the modules and their workers.
type Kernel struct {
	deps   Deps
	logger hclog.Logger
	mux    *http.ServeMux
	api    huma.API
	admin  huma.API
	tools  *Tools
	res    *Resources
	seams  *seams
	drain  *drain // Drain; held calls and /readyz watch it
	// channels: how the board pushes content to agents and people.
	channels channels

	mu      sync.Mutex
	modules []string
	routes  []string
	workers []worker
	running bool

	// Restart backoff of failed workers; tests shorten them.
	backoffMin, backoffMax time.Duration
}

var moduleName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// New builds a kernel with its built-in routes. A nil Logger discards logs;
// a nil Config means the defaults of an empty environment.
func New(deps Deps) *Kernel {
	if deps.Logger == nil {
		deps.Logger = hclog.NewNullLogger()
	}
	if deps.Config == nil {
		deps.Config, _ = boot.Load(func(string) string { return "" })
	}
	k := &Kernel{
		deps:       deps,
		logger:     deps.Logger,
		mux:        http.NewServeMux(),
		backoffMin: time.Second,
		backoffMax: time.Minute,
	}
	k.drain = newDrain()
	k.tools = NewTools(deps.DB, deps.Log, deps.Mandates)
	if deps.Identity != nil {
		k.tools.seen = deps.Identity.Seen
		k.tools.identity = deps.Identity
	}
	k.tools.drain = k.drain
	k.tools.hub = deps.Events
	k.tools.metrics = deps.Metrics
	k.res = &Resources{}
	k.seams = newSeams()
	if _, ok := huma.NewError(0, "").(*AdminError); !ok {
		k.logger.Error("huma.NewError is not kernel.NewAdminError: Admin API errors will not follow the error model; " +
			"cmd must assign it before building the kernel")
	}
	k.api = humago.New(recordingMux{k}, adminConfig())
	admin := huma.NewGroup(k.api, AdminPrefix)
	admin.UseModifier(checkAdminOperation)
	admin.UseMiddleware(k.adminMetrics, k.adminContext, k.adminGate, k.adminNUL)
	k.admin = admin
	k.builtins()
	return k
}

func adminConfig() huma.Config {
	cfg := huma.DefaultConfig("PACT Board Admin API", Version)
	cfg.CreateHooks = nil // no $schema fields, no Link headers
	cfg.SchemasPath = ""
	cfg.DocsPath = "" // the default docs page loads scripts from a CDN
	cfg.OpenAPIPath = AdminPrefix + "/openapi"
	cfg.Formats = maps.Clone(cfg.Formats)
	for name, f := range cfg.Formats {
		if strings.Contains(name, "json") {
			cfg.Formats[name] = nulFreeJSON(f)
		}
	}
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "An admin token from the board's OAuth issuer."},
		ConsoleSecurity: {Type: "apiKey", In: "cookie", Name: "pact_console",
			Description: "The web console's session: a sealed, HttpOnly cookie the board sets at sign-in (docs/console.md). " +
				"Used only when the request has no Authorization header; a method other than GET, HEAD or OPTIONS " +
				"must also repeat the session's CSRF token (GET /console/session) in X-CSRF-Token."},
	}
	return cfg
}

// Register registers modules in order. It refuses a bad or duplicate name,
// and returns the first module's error, or its panic (a conflicting route
// pattern, a malformed operation) as an error. The kernel is unusable after
// an error: the caller should exit.
func (k *Kernel) Register(mods ...Module) (err error) {
	for _, m := range mods {
		name := m.Name()
		if !moduleName.MatchString(name) {
			return fmt.Errorf("module name %q must match %s", name, moduleName)
		}
		k.mu.Lock()
		taken, running := slices.Contains(k.modules, name), k.running
		if !taken && !running {
			k.modules = append(k.modules, name)
		}
		k.mu.Unlock()
		switch {
		case running:
			return fmt.Errorf("module %s: the kernel is already running", name)
		case taken:
			return fmt.Errorf("module %s is registered twice", name)
		}
		if err := k.registerOne(m, name); err != nil {
			return err
		}
	}
	return nil
}

func (k *Kernel) registerOne(m Module, name string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("module %s: %v", name, p)
		}
	}()
	if err := m.Register(&Host{k: k, module: name, logger: k.logger.Named(name)}); err != nil {
		return fmt.Errorf("module %s: %w", name, err)
	}
	return nil
}

// Modules returns the registered module names in registration order.
func (k *Kernel) Modules() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.modules)
}

// Routes returns every pattern registered on the mux, sorted: the
// built-ins, module routes and Admin API operations. Route-wide tests
// iterate over it.
func (k *Kernel) Routes() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := slices.Clone(k.routes)
	slices.Sort(out)
	return out
}

// Tools returns the MCP tool registry and its pipeline.
func (k *Kernel) Tools() *Tools { return k.tools }

// Resources returns the MCP resource templates.
func (k *Kernel) Resources() *Resources { return k.res }

// OpenAPI returns the Admin API document.
func (k *Kernel) OpenAPI() *huma.OpenAPI { return k.api.OpenAPI() }

// Handler serves everything registered, behind the role gate (PACT_ROLE,
// PACT_ADMIN_API), a panic guard and the refusal of a NUL character in a
// plain route's path or query (urlWithoutNUL).
func (k *Kernel) Handler() http.Handler {
	return k.gate(k.guard(urlWithoutNUL(k.mux)))
}

// handle registers pattern on the mux (which panics on a conflict) and
// records it.
func (k *Kernel) handle(pattern string, h http.Handler) {
	k.mux.Handle(pattern, h)
	k.mu.Lock()
	k.routes = append(k.routes, pattern)
	k.mu.Unlock()
}

// recordingMux is the mux huma registers operations on, so they are
// recorded like every other route.
type recordingMux struct{ k *Kernel }

func (m recordingMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.k.handle(pattern, http.HandlerFunc(h))
}

func (m recordingMux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.k.mux.ServeHTTP(w, r) }
