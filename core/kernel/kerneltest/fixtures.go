package kerneltest

import (
	"context"
	"strings"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
)

// Person adds a person through identity.AddHuman with the email
// <id>@example.com and binds the account sub-<id> to them, as accepting
// the invitation does, so AdminToken(id) signs in as them. The first
// person of the board needs no by and must be an owner. Invited leaves the
// invitation pending.
func (w *World) Person(by, id string, role identity.Role) *identity.Person {
	w.T.Helper()
	w.Invited(by, id, role)
	p, err := w.Identity.AcceptInvitation(context.Background(), w.DB, id, id+"@example.com", w.Issuer.URL, "sub-"+id)
	require.NoError(w.T, err)
	require.NotNil(w.T, p, "the invitation of %s", id)
	return p
}

// Invited adds a person as Person does, leaving their invitation pending.
func (w *World) Invited(by, id string, role identity.Role) *identity.Person {
	w.T.Helper()
	p, err := w.Identity.AddHuman(context.Background(), by, identity.HumanInput{ID: id,
		Name: capital(id), Role: role, Email: id + "@example.com"})
	require.NoError(w.T, err)
	return p
}

// Project adds a project through identity.AddProject, by person by.
func (w *World) Project(by, id string, production bool) {
	w.T.Helper()
	_, err := w.Identity.AddProject(context.Background(), by, id, id, production)
	require.NoError(w.T, err)
}

// Root is the root mandate id of an agent registered with Agent.
func (w *World) Root(agent string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.roots[agent]
}

// Token is the token of an agent registered with Agent.
func (w *World) Token(agent string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tokens[agent]
}

// SetToken replaces the token Call presents for agent (a test that issues
// a new one) and drops its open session.
func (w *World) SetToken(agent, token string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tokens[agent] = token
	if cs, ok := w.sessions[agent]; ok {
		_ = cs.Close()
		delete(w.sessions, agent)
	}
}

// Office is the usual cast: in the default organization, ana (owner), val
// (approver) and vic (viewer), and the projects web, api and prod (a
// production project).
func (w *World) Office() {
	w.T.Helper()
	w.Person("", "ana", identity.Owner)
	w.Person("ana", "val", identity.Approver)
	w.Person("ana", "vic", identity.Viewer)
	w.Project("ana", "web", false)
	w.Project("ana", "api", false)
	w.Project("ana", "prod", true)
}

// capital is id with its first letter upper-cased, the name fixtures give.
func capital(id string) string { return strings.ToUpper(id[:1]) + id[1:] }
