package identity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/sdk/errs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type fixture struct {
	d   *db.DB
	svc *identity.Service
	log *ledger.Log
	now time.Time
}

func setup(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{d: pgtest.New(t), log: ledger.New(nil), now: time.Now()}
	f.svc = identity.NewService(f.d, f.log, &identity.Options{Now: func() time.Time { return f.now }})
	return f
}

// withPeople bootstraps ana (owner, default org) and adds val (approver)
// and vic (viewer), plus an organization acme with its owner bo.
func withPeople(t *testing.T) *fixture {
	f := setup(t)
	ctx := context.Background()
	_, err := f.svc.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "Ana@Example.com"})
	require.NoError(t, err)
	_, err = f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "val", Name: "Val", Role: identity.Approver})
	require.NoError(t, err)
	_, err = f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "vic", Name: "Vic", Role: identity.Viewer})
	require.NoError(t, err)
	_, err = f.d.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO humans (id, org_id, name, role) VALUES ('bo', 'acme', 'Bo', 'owner');
		INSERT INTO projects (id, org_id, name, created_by) VALUES ('rocket', 'acme', 'Rocket', 'bo');`)
	require.NoError(t, err)
	_, err = f.svc.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	_, err = f.svc.AddProject(ctx, "ana", "prod", "Production site", true)
	require.NoError(t, err)
	return f
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.d.NewRaw(q, args...).Scan(context.Background(), &n))
	return n
}

func TestBootstrapMakesTheFirstOwnerOnce(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	_, err := f.svc.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Viewer})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "the first person must be an owner")
	p, err := f.svc.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	require.Equal(t, "default", p.OrgID)
	_, err = f.svc.AddHuman(ctx, "", identity.HumanInput{ID: "eve", Name: "Eve", Role: identity.Owner})
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "once anyone exists, --by is required")
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM humans`))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.human.add' AND outcome = 'ok'`))
	require.Equal(t, 2, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.human.add' AND outcome <> 'ok'`))
}

func TestPeopleRulesAndRefusals(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	cases := []struct {
		name string
		by   string
		in   identity.HumanInput
		want errs.Code
	}{
		{"viewer cannot add", "vic", identity.HumanInput{ID: "x", Name: "X", Role: identity.Viewer}, errs.Forbidden},
		{"approver cannot add", "val", identity.HumanInput{ID: "x", Name: "X", Role: identity.Viewer}, errs.Forbidden},
		{"unknown actor", "nobody", identity.HumanInput{ID: "x", Name: "X", Role: identity.Viewer}, errs.Forbidden},
		{"missing --by", "", identity.HumanInput{ID: "x", Name: "X", Role: identity.Viewer}, errs.Forbidden},
		{"bad id", "ana", identity.HumanInput{ID: "Not OK", Name: "X", Role: identity.Viewer}, errs.InvalidRequest},
		{"blank name", "ana", identity.HumanInput{ID: "x", Name: "  ", Role: identity.Viewer}, errs.InvalidRequest},
		{"bad role", "ana", identity.HumanInput{ID: "x", Name: "X", Role: "admin"}, errs.InvalidRequest},
		{"id taken", "ana", identity.HumanInput{ID: "val", Name: "X", Role: identity.Viewer}, errs.IDTaken},
		{"id taken in another org", "ana", identity.HumanInput{ID: "bo", Name: "X", Role: identity.Viewer}, errs.IDTaken},
		{"email taken case-insensitively", "ana", identity.HumanInput{ID: "x", Name: "X", Role: identity.Viewer, Email: "ana@EXAMPLE.com"}, errs.IDTaken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := f.count(t, `SELECT count(*) FROM humans`)
			_, err := f.svc.AddHuman(ctx, tc.by, tc.in)
			require.Equal(t, tc.want, errs.CodeOf(err), "%v", err)
			require.Equal(t, before, f.count(t, `SELECT count(*) FROM humans`), "a refusal adds no one")
		})
	}
	_, err := f.d.ExecContext(ctx, `DELETE FROM humans WHERE id = 'vic'`)
	require.Equal(t, db.RestrictViolation, db.PgCode(err), "people are never deleted")
}

// A name may be 200 characters, not 201; an email already someone's in the
// organization is refused saying so, before the database's own index.
func TestPeopleNameBoundAndEmailTaken(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "long", Name: strings.Repeat("é", 200), Role: identity.Viewer})
	require.NoError(t, err)
	_, err = f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "longer", Name: strings.Repeat("é", 201), Role: identity.Viewer})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	_, err = f.svc.AddHuman(ctx, "ana", identity.HumanInput{ID: "twin", Name: "Twin", Role: identity.Viewer, Email: "ana@example.COM"})
	require.Equal(t, errs.IDTaken, errs.CodeOf(err))
	require.Equal(t, "email ana@example.COM is already someone's in this organization", errs.Public(err).Message)
}

// Roles rank viewer < approver < owner; anything else is no role, and ranks
// below every one, even viewer.
func TestRolesRank(t *testing.T) {
	roles := []identity.Role{identity.Viewer, identity.Approver, identity.Owner}
	for i, r := range roles {
		require.True(t, r.Valid(), r)
		for j, min := range roles {
			require.Equal(t, i >= j, r.AtLeast(min), "%s at least %s", r, min)
		}
	}
	for _, bad := range []identity.Role{"admin", ""} {
		require.False(t, bad.Valid(), bad)
		require.False(t, bad.AtLeast(identity.Viewer), bad)
	}
}

// A token names its agent only while it is live; GetPerson finds a person or
// answers not_found (ID-006).
func TestAgentForTokenAndGetPerson(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	token := f.seedAgent(t, "code-web", "web")
	agent, ok, err := f.svc.AgentForToken(ctx, f.d, token)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "code-web", agent)
	ok, err = f.svc.AuthenticateAgent(ctx, f.d, "code-web", token)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = f.svc.AgentForToken(ctx, f.d, "pact_"+strings.Repeat("A", 43))
	require.NoError(t, err)
	require.False(t, ok)
	_, err = f.d.ExecContext(ctx, `UPDATE agent_tokens SET revoked_at = now() WHERE agent_id = 'code-web'`)
	require.NoError(t, err)
	_, ok, err = f.svc.AgentForToken(ctx, f.d, token)
	require.NoError(t, err)
	require.False(t, ok, "revoked")
	ok, err = f.svc.AuthenticateAgent(ctx, f.d, "code-web", token)
	require.NoError(t, err)
	require.False(t, ok, "revoked")

	p, err := f.svc.GetPerson(ctx, f.d, "val")
	require.NoError(t, err)
	require.Equal(t, "Val", p.Name)
	_, err = f.svc.GetPerson(ctx, f.d, "nobody")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
}

// seedAgent writes an agent of the default organization working in project
// and a token of it live for a day, as modules/people's registration does
// (this package only reads them), and returns the token.
func (f *fixture) seedAgent(t *testing.T, id, project string) string {
	t.Helper()
	token := identity.TokenPrefix + strings.Repeat("t", 43)
	_, err := f.d.ExecContext(context.Background(), `INSERT INTO agents (id, org_id, owner, client) VALUES (?, 'default', 'ana', 'code');
		INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES (?, ?, 'default');
		INSERT INTO agent_tokens (token_hash, agent_id, expires_at) VALUES (?, ?, now() + interval '1 day')`,
		id, id, project, identity.HashToken(token), id)
	require.NoError(t, err)
	return token
}
