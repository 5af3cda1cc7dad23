package board

import (
	"context"
	"time"

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

// Service holds the board's rules (docs/architecture.md, "A service and a
// store per module"): posting, listing, claiming, reporting, deferring and
// revoking, the messages on a task and the waits for them, the decisions
// people take on a task, approval rules, offers, and what the board tells
// other modules. Its methods take the caller's transaction and the Actor;
// the MCP tools (tools_*.go), the Admin API's operations (admin_*.go), the
// hook endpoints (hooks_*.go) and pact-admin (cli.go) are adapters over
// them: they translate and format, and decide nothing. Its SQL is its
// store's (store*.go).
type Service struct {
	db       *db.DB
	st       store
	log      *ledger.Log
	mandates *mandate.Service
	ident    *identity.Service
	// hub wakes pact_wait and pact_events; nil (tests without one) means
	// waiting calls only check at their start and their deadline.
	hub *events.Hub
	// claims publishes seams.ClaimedHook: subscribers add to a claim's
	// answer (an exported credential).
	claims func(context.Context, bun.IDB, seams.Claimed) error
	// cat holds the words this module writes for people (catalog.go).
	cat *i18n.Catalog
	// stale is how long a claim lives without a heartbeat.
	stale time.Duration
	// offerLease is how long an offer waits for its holder to claim.
	offerLease time.Duration
}

// newService is the board's service on the kernel's host.
func newService(h *kernel.Host) *Service {
	s := &Service{db: h.DB(), st: store{db: h.DB()}, log: h.Log(), mandates: h.Mandates(), ident: h.Identity(),
		hub: h.Events(), claims: kernel.Publisher(h, seams.ClaimedHook), cat: mustCatalog(), stale: 30 * time.Minute, offerLease: defaultOfferLease}
	if c := h.Config(); c != nil && c.StaleAfter > 0 {
		s.stale = c.StaleAfter
	}
	if c := h.Config(); c != nil && c.OfferLease > 0 {
		s.offerLease = c.OfferLease
	}
	return s
}
