// Package people is the Admin API's view of the organization itself: who is
// calling (GET /me), its people, its projects, its settings and its kill
// switch. Every operation acts as the signed-in person (kernel.AdminPerson)
// through core/identity, which checks their role again, confines every id
// to their organization and logs each change; reads are filtered by the
// person's organization, so another organization's id answers exactly like
// a missing one.
package people

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/errs"
)

// maxBody bounds request bodies; every body here is a few fields.
const maxBody = 16 << 10

// Module is the people module.
type Module struct {
	db       *db.DB
	identity *identity.Service
	cfg      *boot.Config
	verifier kernel.AdminVerifier
}

// New returns the people module.
func New() *Module { return &Module{} }

// Name is "people".
func (m *Module) Name() string { return "people" }

// Register adds the module's Admin API operations.
func (m *Module) Register(h *kernel.Host) error {
	m.db, m.identity, m.cfg, m.verifier = h.DB(), h.Identity(), h.Config(), h.AdminVerifier()
	api := h.Admin()
	m.registerHumans(api)
	m.registerProjects(api)
	m.registerOrg(api)
	m.registerAgents(api)
	m.registerRoles(api)
	m.registerSignup(api)
	m.registerApprovalRules(api)
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

// caller is the person the gate let through.
func caller(ctx context.Context) (*identity.Person, error) {
	p := kernel.AdminPerson(ctx)
	if p == nil {
		return nil, errs.E(errs.Unauthorized, "no signed-in person on this request")
	}
	return p, nil
}
