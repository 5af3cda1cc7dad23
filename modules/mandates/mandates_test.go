package mandates_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fixture is the mandates module on a real database, on a clock the test
// moves: in organization default ana (owner), val (approver), vic (viewer)
// and the projects web and prod (production); in acme bo (owner) and the
// project rocket.
type fixture struct {
	d     *db.DB
	ident *identity.Service
	svc   *mandates.Module
	now   time.Time
}

func withPeople(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{d: pgtest.New(t), now: time.Now(), svc: mandates.New()}
	keys, err := mandate.ParseKeyring("", strings.Repeat("s", 32))
	require.NoError(t, err)
	log, ms := ledger.New(nil), mandate.NewService(keys, nil)
	f.ident = identity.NewService(f.d, log, ms, &identity.Options{Now: func() time.Time { return f.now }})
	k := kernel.New(kernel.Deps{DB: f.d, Log: log, Mandates: ms, Identity: f.ident})
	require.NoError(t, k.Register(f.svc))

	_, err = f.ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = f.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: "val", Name: "Val", Role: identity.Approver})
	require.NoError(t, err)
	_, err = f.ident.AddHuman(ctx, "ana", identity.HumanInput{ID: "vic", Name: "Vic", Role: identity.Viewer})
	require.NoError(t, err)
	_, err = f.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role) VALUES ('bo', 'acme', 'Bo', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	_, err = f.ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	_, err = f.ident.AddProject(ctx, "ana", "prod", "Production site", true)
	require.NoError(t, err)
	return f
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

func ptr[T any](v T) *T { return &v }

func TestPeopleIssueAndRevokeMandates(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.ident.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
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
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM mandates WHERE id = ? AND revoked_at IS NOT NULL`, m.ID))
}
