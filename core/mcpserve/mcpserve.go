// Package mcpserve serves the board's MCP tools and resources to agents over
// Streamable HTTP (go-sdk, stateless mode), one URL per agent:
// /mcp/a/<agent-id>. It authenticates the caller as that agent (a live
// agent token today; OAuth joins through [Authenticator]) and hands every
// tool call to kernel.Tools.Call, so the gate, the transaction and the log
// entry apply to MCP exactly as to any other caller.
//
// Routes (docs/specs/behavior.md §9.1):
//
//	/mcp/a/{agent}, /mcp/a/{agent}/     MCP (POST; the SDK answers 405 to GET and DELETE)
//	/mcp, /mcp/…                         404 {"error":"not_found","message":"use /mcp/a/<agent-id>"}
//	(both above)                         403 forbidden when Host or Origin is not the board's (rebinding.go)
//	/.well-known/oauth-protected-resource/mcp/a/{agent}[/]   RFC 9728 metadata, CORS *
//
// Stateless mode is what accepts every protocol version the SDK knows
// (2026-07-28 and the legacy 2024-11-05 … 2025-11-25): each request stands
// alone, so the agent can be carried in the request's context. Calls such as
// pact_wait and pact_events last up to 50 s: the http.Server in front must
// have no WriteTimeout (cmd/pact-board sets none), and nothing here adds a
// deadline. A call ends early only when its client goes away, which cancels
// the tool's context for every protocol version.
package mcpserve

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// Options configures a Server. Register fills Tools, Identity, DB, Logger
// and PublicURL from the kernel's Host when they are left empty; Resources
// has no Host getter and must be set (kernel.Kernel.Resources()).
type Options struct {
	Tools     *kernel.Tools
	Resources *kernel.Resources
	Identity  *identity.Service
	DB        *db.DB
	// PublicURL is how agents reach the board, without a trailing slash; it
	// names the protected resource in 401 challenges and in the metadata.
	PublicURL string
	Logger    hclog.Logger
	// Version is the server version agents see; kernel.Version by default.
	Version string
	// Auth decides who may act as an agent; AgentTokens by default.
	Auth Authenticator
	// AuthorizationServers are the OAuth issuers listed in the protected
	// resource metadata; none until OAuth is configured.
	AuthorizationServers []string
	// Grants verifies per-run credentials (pact_run_… tokens): the
	// kernel's (Host.Grants) when left empty.
	Grants kernel.GrantVerifier
	// Conns, when it wraps the server's listener, lets held calls park
	// off net/http while they wait (park.go); without it they wait on
	// their request's goroutine.
	Conns *Conns
}

// Server is the MCP endpoint. It is also the kernel module "mcp".
type Server struct {
	opts Options

	once    sync.Once
	handler http.Handler
	err     error
	// waits names the tools with a Wait phase, whose calls are served in
	// two passes (held.go); passes has a slot per pass at once.
	waits  map[string]bool
	passes chan struct{}
	// parked counts the parked calls not yet answered (WaitParked).
	parked parkedCalls
}

// parkedCalls counts the parked calls not yet answered. A WaitGroup will
// not do: a call may park while WaitParked waits (a request that arrived
// just before Shutdown), and a WaitGroup's Add from zero must not race its
// Wait.
type parkedCalls struct {
	mu sync.Mutex
	n  int
	// idle is closed whenever n is 0; a new one is made when n leaves 0.
	idle chan struct{}
}

func (p *parkedCalls) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		p.idle = make(chan struct{})
	}
	p.n++
}

func (p *parkedCalls) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n--; p.n == 0 {
		close(p.idle)
	}
}

// none is closed once no call is parked.
func (p *parkedCalls) none() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.idle
}

var agentID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// New returns a server; nothing is built until the first request, so every
// module's tools are registered by then whatever the registration order.
func New(opts Options) *Server {
	if opts.Version == "" {
		opts.Version = kernel.Version
	}
	return &Server{opts: opts}
}

// WaitParked waits until every parked call has been answered, or ctx
// ends: the HTTP server's Shutdown does not know the connections they took
// over. Call it after Shutdown, once the drain has ended every wait.
func (s *Server) WaitParked(ctx context.Context) error {
	select {
	case <-s.parked.none():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Name is the module name.
func (*Server) Name() string { return "mcp" }

// Register mounts the routes on the kernel.
func (s *Server) Register(h *kernel.Host) error {
	o := &s.opts
	if o.Tools == nil {
		o.Tools = h.Tools()
	}
	if o.Identity == nil {
		o.Identity = h.Identity()
	}
	if o.DB == nil {
		o.DB = h.DB()
	}
	if o.Logger == nil {
		o.Logger = h.Logger()
	}
	if o.Grants == nil {
		o.Grants = h.Grants()
	}
	if o.PublicURL == "" && h.Config() != nil {
		o.PublicURL = h.Config().PublicURL
	}
	switch {
	case o.Resources == nil:
		return fmt.Errorf("mcpserve: Options.Resources is required (pass kernel.Kernel.Resources())")
	case o.Auth == nil && (o.Identity == nil || o.DB == nil):
		return fmt.Errorf("mcpserve: agent tokens need the identity service and the database")
	}
	for pattern, handler := range s.Routes() {
		h.Handle(pattern, handler)
	}
	return nil
}

// Routes returns the handlers by ServeMux pattern, for a mux other than
// the kernel's; Options must then be complete (Register fills them from
// the Host).
func (s *Server) Routes() map[string]http.Handler {
	if s.opts.Logger == nil {
		s.opts.Logger = hclog.NewNullLogger()
	}
	// The metadata is public and CORS * by design (any origin may read
	// it), so only the MCP routes check Host and Origin (rebinding.go).
	g := newHostGuard(s.opts.PublicURL)
	mcpH := g.guard(http.HandlerFunc(s.serveMCP))
	meta := http.HandlerFunc(s.serveMetadata)
	none := g.guard(http.HandlerFunc(useAgentURL))
	return map[string]http.Handler{
		"/mcp/a/{agent}":               mcpH,
		"/mcp/a/{agent}/{$}":           mcpH,
		"/mcp":                         none,
		"/mcp/":                        none,
		metadataPrefix + "{agent}":     meta,
		metadataPrefix + "{agent}/{$}": meta,
	}
}

func useAgentURL(w http.ResponseWriter, _ *http.Request) {
	kernel.WriteError(w, http.StatusNotFound, errs.E(errs.NotFound, "use /mcp/a/<agent-id>"))
}

// serveMCP checks the agent id and the credential (404 and 401/403 come
// before MCP), then hands the request to the SDK with the agent attached.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	agent := r.PathValue("agent")
	if !agentID.MatchString(agent) {
		useAgentURL(w, r)
		return
	}
	h, err := s.build()
	if err != nil {
		kernel.WriteError(w, http.StatusInternalServerError, errs.Public(err))
		return
	}
	p := peek(r)
	if token, ok := s.checkedInCall(r, p); ok {
		c := &caller{agent: agent, req: r.Context(), unchecked: token, tool: p.tool}
		s.serveUnchecked(w, r, h, c)
		return
	}
	grant, ok := s.authenticate(w, r, agent)
	if !ok {
		return
	}
	c := &caller{agent: agent, req: r.Context(), grant: grant}
	if s.held(p) {
		s.serveHeld(w, r, h, c, p.body, p.tool)
		return
	}
	h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// build makes the SDK server and handler once, from the registries as they
// are at the first request (complete: modules register before serving).
func (s *Server) build() (http.Handler, error) {
	s.once.Do(func() {
		srv := mcp.NewServer(&mcp.Implementation{Name: "pact-board", Title: "PACT Board", Version: s.opts.Version},
			&mcp.ServerOptions{
				Instructions: Instructions,
				Logger:       slogger(s.opts.Logger),
				// Tools and resources, always, and fixed once serving (no
				// listChanged); no logging: the board sends no log messages.
				Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
			})
		srv.AddReceivingMiddleware(narrowLists, s.checkUnchecked)
		if s.err = s.addTools(srv); s.err != nil {
			s.opts.Logger.Error("cannot serve MCP", "error", s.err)
			return
		}
		s.waits = map[string]bool{}
		for _, t := range s.opts.Tools.List() {
			s.waits[t.Name] = t.Wait != nil
		}
		s.passes = make(chan struct{}, s.heldPasses())
		if s.err = s.addResources(srv); s.err != nil {
			s.opts.Logger.Error("cannot serve MCP", "error", s.err)
			return
		}
		s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{
				Stateless:                    true,
				JSONResponse:                 true,
				PropagateRequestCancellation: true,
				// hostGuard (rebinding.go) has checked Host and Origin against
				// PACT_PUBLIC_URL; the SDK's check would also refuse the public
				// Host that a reverse proxy on the same machine forwards.
				DisableLocalhostProtection: true,
				Logger:                     slogger(s.opts.Logger),
			})
	})
	return s.handler, s.err
}

// caller is what serveMCP learned about the request, for the handlers.
type caller struct {
	agent string
	// req is the HTTP request's context: it ends when the client goes away.
	req context.Context
	// grant narrows the call when it is made with a per-run credential;
	// nil for the agent's own credential.
	grant *kernel.Grant
	// unchecked is the agent token of a tools/call of tool whose check
	// the call makes in its first round trip (calltoken.go); "" when the
	// token was checked before the SDK saw the request.
	unchecked, tool string
	// tokenRefused is set when the check found the token is not the
	// agent's: the answer becomes a 401. tokenChecked is set when it found
	// it is.
	tokenRefused, tokenChecked atomic.Bool
}

type callerKey struct{}

// callerFrom returns the authenticated caller. In stateless mode the
// handler's context carries the values of the request being served.
func callerFrom(ctx context.Context) (*caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*caller)
	return c, ok
}

// bound returns ctx canceled also when the client's HTTP request ends, and
// carrying the caller's grant, if any (kernel.WithGrant). The SDK
// propagates the end only for 2026-07-28 requests; this covers the legacy
// ones, so an abandoned call stops its work (and its wait) at once.
func bound(ctx context.Context, c *caller) (context.Context, context.CancelFunc) {
	if c.grant != nil {
		ctx = kernel.WithGrant(ctx, c.grant)
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.req, cancel)
	return ctx, func() { stop(); cancel() }
}
