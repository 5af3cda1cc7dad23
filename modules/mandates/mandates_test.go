package mandates_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

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
	f.World = kerneltest.New(t, kerneltest.Options{NoMCP: true, Now: func() time.Time { return f.now }}, f.svc, kerneltest.PeopleStandIn())
	f.Office()
	f.Org("acme", "bo")
	f.Project("bo", "rocket", false)
	return f
}

func ptr[T any](v T) *T { return &v }

// requireAnswersLikeMissing requires the refusal for another organization's
// id to be, word for word, the refusal for an id that does not exist, with
// one id in place of the other: comparing codes alone would let the message
// leak what the foreign id is, such as its holder (ID-004).
func requireAnswersLikeMissing(t *testing.T, foreign error, foreignID string, missing error, missingID string) {
	t.Helper()
	me, ok := errs.As(missing)
	require.True(t, ok, "a missing id is refused, got %v", missing)
	require.Equal(t, errs.NotFound, me.Code)
	fe, ok := errs.As(foreign)
	require.True(t, ok, "another organization's id is refused, got %v", foreign)
	require.Equal(t, errs.Error{Code: me.Code, Message: strings.ReplaceAll(me.Message, missingID, foreignID), MandateID: me.MandateID},
		errs.Error{Code: fe.Code, Message: fe.Message, MandateID: fe.MandateID}, "another organization's id answers like a missing one")
}

func TestPeopleIssueAndRevokeMandates(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.RegisterAgent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	m, err := f.svc.IssueMandate(ctx, "val", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
	require.NoError(t, err)
	_, err = f.svc.IssueMandate(ctx, "val", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:prod"}})
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))
	_, foreign := f.svc.IssueMandate(ctx, "bo", mandates.IssueInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
	_, missing := f.svc.IssueMandate(ctx, "bo", mandates.IssueInput{Holder: "code-nowhere", Scope: []string{"task.read@project:web"}})
	requireAnswersLikeMissing(t, foreign, "code-web", missing, "code-nowhere")
	_, foreign = f.svc.RevokeMandate(ctx, "bo", m.ID.String())
	missingID := uuid.NewString()
	_, missing = f.svc.RevokeMandate(ctx, "bo", missingID)
	requireAnswersLikeMissing(t, foreign, m.ID.String(), missing, missingID)
	_, err = f.svc.RevokeMandate(ctx, "val", "not-a-uuid")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	r, err := f.svc.RevokeMandate(ctx, "val", m.ID.String())
	require.NoError(t, err)
	require.Equal(t, 0, r.DescendantMandates)
	require.Empty(t, r.TasksStopped, "without a board no task hangs on a mandate")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, m.ID))
}
