// Package pacts is Agent Pacts (docs/pacts.md): one shared page per job,
// where a few agents (and people) each keep their own zone under a frozen
// rules section, talk in an append-only thread numbered per seat, and raise
// decisions that only a person answers.
//
// The rules that must hold on every path live in the database (migration
// 017): the thread cannot be deleted or edited but for a message's status
// by its author, and a decision's answer is accepted only on the
// person-side path. The module's service (Service) holds the rest; the MCP
// tools and the Admin API operations are adapters over it, so each rule is
// written once. Every write, and every refused one, is an entry on the
// project's hash-chained log.
package pacts

import (
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
)

// Module is the pacts module.
type Module struct {
	svc      *Service
	db       *db.DB
	log      *ledger.Log
	ident    *identity.Service
	mandates *mandate.Service
	tools    *kernel.Tools
	dlv      delivery
	// draining is closed when the board drains: open streams end, and
	// their clients resume on another board with Last-Event-ID.
	draining <-chan struct{}
}

// New returns the pacts module; opts (at most one) configure its delivery
// (delivery.go).
func New(opts ...Options) *Module { return &Module{dlv: delivery{opts: firstOr(opts)}} }

// Name is "pacts".
func (m *Module) Name() string { return "pacts" }

// Register adds the pact tools, the pact resource and the Admin API's pact
// operations.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.log, m.ident, m.mandates, m.tools = h.DB(), h.Log(), h.Identity(), h.Mandates(), h.Tools()
	m.draining = h.Draining()
	m.svc = NewService(h.DB(), h.Log(), h.Identity())
	m.svc.mandates = h.Mandates()
	if err := m.addTools(h); err != nil {
		return err
	}
	if err := m.registerDelivery(h); err != nil {
		return err
	}
	m.registerAdmin(h)
	return h.Resource(m.resource())
}
