// Package people is the organization itself: who is calling (GET /me), its
// people, projects and agents, its settings and kill switch, and the work
// of staffing it: sign-up, agent roles, hiring from a role and the setup
// codes hired agents connect with. It owns role_templates, agent_roles and
// setup_codes; the principals themselves are core/identity's, which it
// reads and changes through identity's methods. Every operation acts as
// the signed-in person (kernel.AdminPerson) through identity's Act, which
// checks their role again, confines every id to their organization and
// logs each change; reads are filtered by the person's organization, so
// another organization's id answers exactly like a missing one. The
// platform operator's commands (pact-admin's org-* and platform-*) act as
// no person: they are logged with actor "system".
package people

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
)

// maxBody bounds request bodies; every body here is a few fields.
const maxBody = 16 << 10

// Module is the people module.
type Module struct {
	db       *db.DB
	log      *ledger.Log
	identity *identity.Service
	mandates *mandate.Service
	cfg      *boot.Config
	verifier kernel.AdminVerifier
	sessions kernel.SessionAccounts
	// What other modules own, asked through the kernel.
	facts      kernel.BoardFacts
	keys       kernel.AgentKeys
	slack      kernel.SlackWebhooks
	orgCreated *kernel.OrgCreatedHooks
	rand       io.Reader // setup codes and sign-up's id suffixes
	// seal seals the secret settings of roles (rolesecrets.go).
	seal *seal.Box
}

// New returns the people module.
func New() *Module { return &Module{rand: rand.Reader} }

// Name is "people".
func (m *Module) Name() string { return "people" }

// Register adds the module's Admin API operations.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.log, m.identity, m.mandates = h.DB(), h.Log(), h.Identity(), h.Mandates()
	m.cfg, m.verifier, m.sessions = h.Config(), h.AdminVerifier(), h.SessionAccounts()
	m.facts, m.keys, m.slack, m.orgCreated = h.BoardFacts(), h.AgentKeys(), h.SlackWebhooks(), h.OrgCreated()
	m.seal = seal.New(m.mandates.Keys())
	// Role secrets saved before sealing, or under a retired first key, are
	// sealed again at start (SEC-006).
	h.Worker("reseal-role-settings", func(ctx context.Context) error {
		_, err := resealRoleSettings(ctx, m.db, m.seal)
		return err
	})
	api := h.Admin()
	m.registerHumans(api)
	m.registerProjects(api)
	m.registerOrg(api)
	m.registerAgents(api)
	m.registerRoles(api)
	m.registerSignup(api)
	m.registerInvitations(api)
	h.Handle("POST /connect", http.HandlerFunc(m.serveConnect))
	return m.addWhoami(h)
}

// op is an operation of this module: ids are people-<verb>[-<noun>], the
// tag is "people", bodies are small, and AdminOp declares the role gate
// with the 401 and 403 answers.
func op(method, path, id, summary string, min identity.Role, errors ...int) huma.Operation {
	o := huma.Operation{OperationID: "people-" + id, Method: method, Path: path, Summary: summary,
		Tags: []string{"people"}, Errors: errors, MaxBodyBytes: maxBody}
	if method == http.MethodPost && (id == "create-human" || id == "create-project" || id == "create-agent" || id == "hire-agent") {
		o.DefaultStatus = http.StatusCreated
	}
	return kernel.AdminOp(o, min)
}
