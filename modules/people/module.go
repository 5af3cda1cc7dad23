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
//
// Its Service decides; its store (store*.go) holds the SQL; the Admin
// operations (admin_*.go), POST /connect (hooks_connect.go), the role
// section of pact_whoami (tools_whoami.go) and pact-admin's commands
// (cli.go) translate (docs/architecture.md, "A service and a store per
// module").
package people

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
)

// Module is the people module: its registry entry, holding the service
// its adapters call and what the adapters need beside it.
type Module struct {
	svc *Service
	// The adapters': the board's URL and sign-up settings, and who an
	// account is before it is a person (sign-up, invitations).
	cfg      *boot.Config
	verifier kernel.AdminVerifier
	sessions kernel.SessionAccounts
	rand     io.Reader // setup codes and sign-up's id suffixes
}

// New returns the people module.
func New() *Module { return &Module{rand: rand.Reader} }

// Name is "people".
func (m *Module) Name() string { return "people" }

// Service is the module's service, valid once the module is registered.
func (m *Module) Service() *Service { return m.svc }

// Register builds the service and adds the module's Admin API operations,
// POST /connect, the role section of pact_whoami and the worker that
// seals role secrets again.
func (m *Module) Register(h *kernel.Host) error {
	m.cfg, m.verifier, m.sessions = h.Config(), h.AdminVerifier(), h.SessionAccounts()
	m.svc = &Service{db: h.DB(), log: h.Log(), ident: h.Identity(), mandates: h.Mandates(), boardURL: m.cfg.BoardURL,
		facts: kernel.Use(h, seams.BoardFactsSeam), keys: kernel.UseOr(h, seams.AgentKeysSeam, seams.AgentKeys(seams.NoAgentKeys{})),
		slack: kernel.Use(h, seams.SlackWebhooksSeam), orgCreated: kernel.Publisher(h, seams.OrgCreatedHook), rand: m.rand,
		seal: seal.New(h.Mandates().Keys())}
	if err := kernel.Provide(h, seams.AgentRootsSeam, seams.AgentRoots(m.svc)); err != nil {
		return err
	}
	// Role secrets saved before sealing, or under a retired first key, are
	// sealed again at start (SEC-006).
	h.Worker("reseal-role-settings", func(ctx context.Context) error {
		_, err := m.svc.resealRoleSettings(ctx)
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
