// Package mandates is the person side of mandate administration: listing
// the mandates an organization's agents hold, issuing further root
// mandates, previewing what a revocation would stop, revoking and
// replacing (docs/specs/behavior.md §5.6). Every change acts as the
// signed-in person through identity's Act, which checks their role again
// and logs it; another organization's mandate answers like a missing one.
//
// The tasks and outside credentials that hang on mandates belong to other
// modules: this one asks them through their seams (seams.MandateTasksSeam,
// seams.MandateCredentialsSeam), and the revoke hooks
// they registered with core/mandate report what a revocation stopped.
package mandates

import (
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
)

// Module is the mandates module.
type Module struct {
	db       *db.DB
	mandates *mandate.Service
	ident    *identity.Service
	// tasks and creds report what hangs on mandates (their seams'
	// defaults, none, when no module provides them).
	tasks func() seams.MandateTasks
	creds func() seams.MandateCredentials
	// roots makes a replacement the agent's root (modules/people keeps
	// agents).
	roots func() (seams.AgentRoots, error)
}

// New returns the mandates module.
func New() *Module { return &Module{} }

// Name is "mandates".
func (m *Module) Name() string { return "mandates" }

// Register adds the module's Admin API operations.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.mandates, m.ident = h.DB(), h.Mandates(), h.Identity()
	m.tasks = kernel.UseOr(h, seams.MandateTasksSeam, seams.MandateTasks(seams.NoMandateTasks{}))
	m.creds = kernel.UseOr(h, seams.MandateCredentialsSeam, seams.MandateCredentials(seams.NoMandateCredentials{}))
	m.roots = kernel.Use(h, seams.AgentRootsSeam)
	m.registerMandateAdmin(h.Admin())
	return nil
}
