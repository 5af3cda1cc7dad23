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

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
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
}

// New returns the board module; Register fills it in.
func New() *Module { return &Module{} }

// Name is "board".
func (m *Module) Name() string { return "board" }

// Register adds the board's tools and hooks its task cancellation into
// mandate revocation: revoking any link cancels the open tasks hanging on
// its subtree, in the revoking transaction.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.mandates, m.ident, m.logger, m.tools = h.DB(), h.Mandates(), h.Identity(), h.Logger(), h.Tools()
	m.svc = newService(h)
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
		m.addDefer, m.addRevoke, m.addMessage, m.addWait, m.addEvents, m.addRunCredential} {
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
	h.Worker("reoffer", m.reofferWorker)
	return nil
}

// reofferWorker runs reoffer every reofferEvery.
func (m *Module) reofferWorker(ctx context.Context) error {
	tick := time.NewTicker(reofferEvery)
	defer tick.Stop()
	for {
		if _, err := m.svc.reoffer(ctx); err != nil && ctx.Err() == nil {
			m.logger.Warn("offers whose lease ran out wait for the next round", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}
