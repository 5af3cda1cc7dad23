package mandates_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
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

// The list people read a root from says where an imported one came from:
// its format, its outside id and the trusted root (the key) it answers to,
// beside roots the board issued, which carry none of them (CONSOLE-019's
// "answering to that key", served by this module).
func TestTheListSaysWhichTrustedRootAnImportedMandateAnswersTo(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	// The root modules/credentials' import issues (this module cannot call it).
	imported, err := f.Mandates.IssueRoot(ctx, f.DB, mandate.RootInput{Issuer: "val", Holder: "code-web",
		Scope: []string{"task.read@project:web"}, ExpiresAt: f.now.Add(time.Hour),
		Imported: &mandate.Imported{Format: mandate.FormatTenuo, ExternalID: "tnu_wrt_1", Credential: []byte("stack"), IssuerPrincipal: "root-key"}})
	require.NoError(t, err)

	got := f.Admin("ana", "GET", "/mandates", "")
	require.Equal(t, 200, got.Status, got.Raw)
	seen := map[string]map[string]any{}
	for _, m := range got.Body["mandates"].([]any) {
		v := m.(map[string]any)
		seen[v["id"].(string)] = v
	}
	require.Contains(t, seen, imported.ID.String())
	v := seen[imported.ID.String()]
	require.Equal(t, "tenuo", v["format"])
	require.Equal(t, "tnu_wrt_1", v["external_id"])
	require.Equal(t, "root-key", v["issuer_principal"], "the trusted root an imported mandate answers to")
	require.Equal(t, "val", v["issuer"], "issued by the person the root stands for")
	issued := seen[f.Root("code-web")]
	require.NotNil(t, issued, "the agent's own root is listed too")
	require.Equal(t, "pact", issued["format"])
	require.Nil(t, issued["issuer_principal"], "a root the board issued answers to no outside key")
	require.Nil(t, issued["external_id"])
}
