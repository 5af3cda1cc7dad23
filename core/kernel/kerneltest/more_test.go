package kerneltest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// A second organization is made through the services: its owner signs in
// to it, adds to it, and the log of both organizations verifies.
func TestOrgMakesASecondOrganizationItsOwnerSignsInTo(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{}, who{})
	w.Office()
	acme := w.Org("acme", "bo")
	require.Equal(t, "acme", acme)
	w.Person("bo", "bea", identity.Approver)
	w.Project("bo", "rocket", false)
	r := w.Admin("bea", "GET", "/who", "")
	require.Equal(t, http.StatusOK, r.Status, r.Raw)
	require.Equal(t, "bea", r.Body["id"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM projects WHERE id = 'rocket' AND org_id = ?`, acme))
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM humans WHERE org_id = ?`, acme))
	w.VerifyLog()
}

// Mandate issues a further root the agent's calls can name.
func TestMandateIssuesAFurtherRoot(t *testing.T) {
	w := kerneltest.New(t, kerneltest.Options{})
	w.Office()
	w.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	id := w.Mandate("ana", "code-web", "task.read@project:web")
	require.NotEqual(t, w.Root("code-web"), id)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM mandates WHERE id = ? AND holder = 'code-web' AND issuer = 'ana'
		AND depth = 0 AND scope = '{task.read@project:web}' AND revoked_at IS NULL`, id))
}

// Options.Now is the clock of the World's identity service.
func TestNowIsTheIdentityClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	w := kerneltest.New(t, kerneltest.Options{NoMCP: true, Now: func() time.Time { return at }})
	require.Equal(t, at, w.Identity.Now())
}
