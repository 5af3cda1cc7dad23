package mandates_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// fixture is the mandates module on kerneltest's World, on a clock the test
// moves: the Office in organization default (ana owner, val approver, vic
// viewer; projects web, api and prod, a production one) and organization
// acme of bo with the project rocket.
type fixture struct {
	*kerneltest.World
	svc *mandates.Module
	now time.Time
}

func withPeople(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{now: time.Now(), svc: mandates.New()}
	f.World = kerneltest.New(t, kerneltest.Options{NoMCP: true, Now: func() time.Time { return f.now }}, f.svc)
	f.Office()
	f.Org("acme", "bo")
	f.Project("bo", "rocket", false)
	return f
}

func ptr[T any](v T) *T { return &v }

func TestPeopleIssueAndRevokeMandates(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.Identity.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	m, err := f.svc.IssueMandate(ctx, "val", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
	require.NoError(t, err)
	_, err = f.svc.IssueMandate(ctx, "val", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:prod"}})
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))
	_, err = f.svc.IssueMandate(ctx, "bo", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	_, err = f.svc.RevokeMandate(ctx, "bo", m.ID.String())
	require.Equal(t, errs.NotFound, errs.CodeOf(err), "another organization's mandate answers like a missing one")
	_, err = f.svc.RevokeMandate(ctx, "val", "not-a-uuid")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	r, err := f.svc.RevokeMandate(ctx, "val", m.ID.String())
	require.NoError(t, err)
	require.Equal(t, 0, r.DescendantMandates)
	require.Empty(t, r.TasksStopped, "without a board no task hangs on a mandate")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, m.ID))
}
