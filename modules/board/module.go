// Package board is the task board agents work on over MCP: posting,
// listing, claiming and reporting on tasks, deferring to people and revoking
// what they delegated. Every tool body runs inside the kernel's tool-call
// pipeline, so the gate, the log entry and the refusal rule are not this
// package's business; authority is: each tool verifies the chain it is
// handed and the scope the action needs.
package board

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/a2a"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
)

// Module is the board module: the registry entry that holds its service
// and registers the adapters over it (tools_*.go, admin_*.go, hooks_*.go,
// cli.go), with what they need beside it.
type Module struct {
	svc *Service
	// db, ident and mandates are how adapters establish who acts: a
	// person's role (identity.Act, identity.RequirePerson) and an agent's
	// chain (tools.go).
	db       *db.DB
	ident    *identity.Service
	mandates *mandate.Service
	logger   hclog.Logger
	// whoamiSections build pact_whoami's answer, other modules' parts too.
	whoamiSections *kernel.Whoami
	// tools runs the board's own tools for Claude Code hooks (pact_list,
	// pact_claim), through the same pipeline as an agent's call.
	tools *kernel.Tools
	// events wakes the A2A streams and blocking sends at the commits that
	// change their task; draining ends them when the board drains.
	events   *events.Hub
	draining <-chan struct{}
	// publicURL is how agents reach the board (the A2A cards' URLs).
	publicURL string
	// remote drives the remote A2A agents (a2a_remote.go); allowPrivate
	// lets it reach them on private addresses (PACT_A2A_ALLOW_PRIVATE).
	remote       *remoteDriver
	allowPrivate bool
	// opts are New's; push posts A2A push notifications (a2a_push.go).
	opts Options
	push *pushService
}

// New returns the board module; Register fills it in. opts, when given,
// are its Options (service_a2a_push.go).
func New(opts ...Options) *Module {
	m := &Module{}
	if len(opts) > 0 {
		m.opts = opts[0]
	}
	m.opts.defaults()
	return m
}

// Name is "board".
func (m *Module) Name() string { return "board" }

// Register adds the board's tools and hooks its task cancellation into
// mandate revocation: revoking any link cancels the open tasks hanging on
// its subtree, in the revoking transaction.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.mandates, m.ident, m.logger, m.tools = h.DB(), h.Mandates(), h.Identity(), h.Logger(), h.Tools()
	m.svc = newService(h)
	m.events, m.draining = h.Events(), h.Draining()
	stale := 30 * time.Minute
	if cfg := h.Config(); cfg != nil {
		m.publicURL, m.allowPrivate = cfg.PublicURL, cfg.A2AAllowPrivate
		if cfg.StaleAfter > 0 {
			stale = cfg.StaleAfter
		}
	}
	m.remote = newRemoteDriver(seal.New(h.Mandates().Keys()), a2a.HTTPClient(m.allowPrivate), stale)
	m.mandates.OnRevoke(m.svc.onRevoke)
	h.ProvideGrants(m.svc)
	if err := kernel.Provide(h, seams.BoardFactsSeam, seams.BoardFacts(m.svc)); err != nil {
		return err
	}
	if err := kernel.Provide(h, seams.MandateTasksSeam, seams.MandateTasks(m.svc)); err != nil {
		return err
	}
	if err := kernel.Subscribe(h, seams.OrgCreatedHook, m.svc.seedApprovalRules); err != nil {
		return err
	}
	for _, add := range []func(*kernel.Host) error{m.addWhoami, m.addPost, m.addList, m.addClaim, m.addReport,
		m.addDefer, m.addCancel, m.addRevoke, m.addMessage, m.addReply, m.addWait, m.addEvents, m.addRunCredential} {
		if err := add(h); err != nil {
			return err
		}
	}
	api := h.Admin()
	m.registerTaskAdmin(api)
	m.registerApprovalRules(h)
	h.Handle("/hooks/a/{agent}/{event}", http.HandlerFunc(m.serveHook))
	if err := h.Channel(kernel.Channel{Name: "hooks", Audience: kernel.AgentAudience, Routes: []string{"/hooks/a/{agent}/{event}"},
		Summary: "Claude Code's hooks: their answers hand the agent its unread messages and claimed work"}); err != nil {
		return err
	}
	h.Handle(a2aRoute, http.HandlerFunc(m.serveA2A))
	h.Handle(a2aCardRoute, http.HandlerFunc(m.serveA2ACard))
	if err := h.Channel(kernel.Channel{Name: "a2a", Audience: kernel.AgentAudience, Routes: []string{a2aRoute},
		Summary: "A2A streams (SendStreamingMessage, SubscribeToTask) and blocking sends: a task's updates as they happen",
		Exempt: map[kernel.Stop]string{kernel.StopRevokeLink: "an A2A agent acts under its own root mandate only, " +
			"which no link sits above: revoking it is revoke-root"}}); err != nil {
		return err
	}
	m.registerRemoteAdmin(api)
	h.Worker("reoffer", m.reofferWorker)
	h.Worker("a2a-remote", m.remoteWorker)
	if err := m.registerPush(h); err != nil {
		return err
	}
	return nil
}

// reofferWorker runs reoffer every reofferEvery.
func (m *Module) reofferWorker(ctx context.Context) error {
	tick := time.NewTicker(reofferEvery)
	defer tick.Stop()
	for {
		if err := m.svc.reoffer(ctx); err != nil && ctx.Err() == nil {
			m.logger.Warn("offers whose lease ran out wait for the next round", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
