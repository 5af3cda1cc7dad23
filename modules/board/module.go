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
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/events"
	"github.com/pactboard/pact/core/i18n"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
)

// Module is the board module.
type Module struct {
	db       *db.DB
	log      *ledger.Log
	mandates *mandate.Service
	ident    *identity.Service
	logger   hclog.Logger
	// hub wakes pact_wait and pact_events; nil (tests without one) means
	// waiting calls only check at their start and their deadline.
	hub *events.Hub
	// claims publishes seams.ClaimedHook: subscribers add to a claim's
	// answer (an exported credential).
	claims func(context.Context, bun.IDB, seams.Claimed) error
	// whoamiSections build pact_whoami's answer, other modules' parts too.
	whoamiSections *kernel.Whoami
	// stale is how long a claim lives without a heartbeat.
	stale time.Duration
	// offerLease is how long an offer waits for its holder to claim.
	offerLease time.Duration
	// tools runs the board's own tools for Claude Code hooks (pact_list,
	// pact_claim), through the same pipeline as an agent's call.
	tools *kernel.Tools
	// cat holds the words this module writes for people (messages.go).
	cat *i18n.Catalog
}

// New returns the board module; Register fills it in.
func New() *Module { return &Module{cat: mustCatalog()} }

// Name is "board".
func (m *Module) Name() string { return "board" }

// Register adds the board's tools and hooks its task cancellation into
// mandate revocation: revoking any link cancels the open tasks hanging on
// its subtree, in the revoking transaction.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.log, m.mandates, m.ident, m.logger, m.hub = h.DB(), h.Log(), h.Mandates(), h.Identity(), h.Logger(), h.Events()
	m.claims, m.tools = kernel.Publisher(h, seams.ClaimedHook), h.Tools()
	m.stale, m.offerLease = 30*time.Minute, defaultOfferLease
	if c := h.Config(); c != nil && c.StaleAfter > 0 {
		m.stale = c.StaleAfter
	}
	if c := h.Config(); c != nil && c.OfferLease > 0 {
		m.offerLease = c.OfferLease
	}
	m.mandates.OnRevoke(m.onRevoke)
	h.ProvideGrants(m)
	if err := kernel.Provide(h, seams.BoardFactsSeam, seams.BoardFacts(m)); err != nil {
		return err
	}
	if err := kernel.Provide(h, seams.MandateTasksSeam, seams.MandateTasks(mandateTasks{})); err != nil {
		return err
	}
	if err := kernel.Subscribe(h, seams.OrgCreatedHook, m.seedApprovalRules); err != nil {
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
