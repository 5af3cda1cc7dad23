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
	"github.com/pactboard/pact/core/mandate"
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
	keys, err := mandate.ParseKeyring("", strings.Repeat("s", 32))
	require.NoError(t, err)
	f.svc = identity.NewService(f.d, f.log, mandate.NewService(keys, nil), &identity.Options{Now: func() time.Time { return f.now }})
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

func TestRegisterAgentHandsBackATokenOnceAndStoresOnlyItsHash(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"},
		Limits: map[string]float64{"runs": 5}})
	require.NoError(t, err)
	require.Regexp(t, `^pact_[A-Za-z0-9_-]{43}$`, r.Token)
	require.Equal(t, "/mcp/a/code-web", r.ConnectorPath)

	a, err := f.svc.GetAgent(ctx, f.d, "code-web", "default")
	require.NoError(t, err)
	require.Equal(t, []string{"web"}, a.Projects)
	require.Equal(t, r.RootMandateID, *a.RootMandateID)
	require.Equal(t, "val", a.Owner)

	ok, err := f.svc.AuthenticateAgent(ctx, f.d, "code-web", r.Token)
	require.NoError(t, err)
	require.True(t, ok)

	// Population: every text-like column of every table in the catalog.
	var cols []struct {
		Table  string `bun:"table_name"`
		Column string `bun:"column_name"`
	}
	require.NoError(t, f.d.NewRaw(`SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND data_type IN ('text', 'jsonb', 'character varying', 'ARRAY', 'bytea')`).Scan(ctx, &cols))
	require.NotEmpty(t, cols)
	secret := strings.TrimPrefix(r.Token, "pact_")
	for _, c := range cols {
		n := f.count(t, `SELECT count(*) FROM `+c.Table+` WHERE `+c.Column+`::text LIKE ?`, "%"+secret+"%")
		require.Zero(t, n, "the token appears in %s.%s", c.Table, c.Column)
	}
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM agent_tokens WHERE token_hash = ?`, identity.HashToken(r.Token)))
}

func TestRegisterAgentRefusalsWriteOnlyTheirAuditEntry(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	cases := []struct {
		name string
		by   string
		in   identity.AgentInput
		want errs.Code
	}{
		{"viewer", "vic", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}}, errs.Forbidden},
		{"no project", "val", identity.AgentInput{ID: "a1", Client: "code"}, errs.ProjectRequired},
		{"bad id", "val", identity.AgentInput{ID: "A_1", Client: "code", Projects: []string{"web"}}, errs.InvalidRequest},
		{"bad client", "val", identity.AgentInput{ID: "a1", Client: "robot", Projects: []string{"web"}}, errs.InvalidRequest},
		{"code in two projects", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web", "prod"}}, errs.InvalidRequest},
		{"other org's project", "val", identity.AgentInput{ID: "a1", Client: "chat", Projects: []string{"rocket"}}, errs.NotFound},
		{"runner on production", "val", identity.AgentInput{ID: "a1", Client: "runner", Projects: []string{"prod"}}, errs.ProjectMismatch},
		{"scope outside projects", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Scope: []string{"task.work@project:prod"}}, errs.ProjectMismatch},
		{"malformed scope", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Scope: []string{"task work"}}, errs.InvalidRequest},
		{"negative limit", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Limits: map[string]float64{"runs": -1}}, errs.InvalidRequest},
		{"too many delegations", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Delegations: ptr(6)}, errs.InvalidRequest},
		{"term too long", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, MandateDays: 400}, errs.InvalidRequest},
		{"unknown owner", "val", identity.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Owner: "bo"}, errs.NotFound},
		{"id taken", "val", identity.AgentInput{ID: "web", Client: "code", Projects: []string{"web"}}, errs.IDTaken},
	}
	// "web" is a project id, not an agent's: register one agent so id_taken has something to hit.
	_, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	tables := []string{"agents", "agent_projects", "agent_tokens", "mandates", "limit_usage", "payloads"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]int{}
			for _, tb := range tables {
				before[tb] = f.count(t, `SELECT count(*) FROM `+tb)
			}
			entries := f.count(t, `SELECT count(*) FROM entries`)
			_, err := f.svc.RegisterAgent(ctx, tc.by, tc.in)
			require.Equal(t, tc.want, errs.CodeOf(err), "%v", err)
			e, ok := errs.As(err)
			require.True(t, ok)
			require.NotEmpty(t, e.Message)
			for _, tb := range tables {
				if tb == "payloads" {
					continue
				}
				require.Equal(t, before[tb], f.count(t, `SELECT count(*) FROM `+tb), "%s changed", tb)
			}
			require.Equal(t, entries+1, f.count(t, `SELECT count(*) FROM entries`))
			require.Equal(t, 1, f.count(t, `SELECT count(*) FROM entries WHERE id = (SELECT max(id) FROM entries) AND outcome = ?`, string(tc.want)))
		})
	}
}

func TestDatabaseRefusesCrossOrganizationLinks(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "chat-web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = f.d.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('chat-web', 'rocket', 'default')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err))
	_, err = f.d.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('chat-web', 'rocket', 'acme')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err))
	_, err = f.d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES ('x', 'acme', 'ana', 'code')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "an agent's owner belongs to its organization")
}

func TestTokensExpireAndRevoke(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}, TokenDays: 1})
	require.NoError(t, err)
	_, err = f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "chat-web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	auth := func(agent, token string) bool {
		ok, err := f.svc.AuthenticateAgent(ctx, f.d, agent, token)
		require.NoError(t, err)
		return ok
	}
	require.True(t, auth("code-web", r.Token))
	require.False(t, auth("chat-web", r.Token), "a token works only for its own agent")
	require.False(t, auth("code-web", "pact_"+strings.Repeat("A", 43)))
	f.now = f.now.Add(25 * time.Hour)
	require.False(t, auth("code-web", r.Token), "expired")
	f.now = f.now.Add(-25 * time.Hour)
	n, err := f.svc.RevokeAgentTokens(ctx, f.d, "code-web")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.False(t, auth("code-web", r.Token), "revoked")
}

func ptr[T any](v T) *T { return &v }

// A registration's token and root mandate last 30 days unless told
// otherwise (docs/specs/behavior.md §16); a role's token_days (90) applies
// only to hired agents.
func TestRegistrationsDefaultToThirtyDays(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM agent_tokens WHERE token_hash = ?
		AND expires_at BETWEEN now() + interval '29 days 23 hours' AND now() + interval '30 days 1 hour'`, identity.HashToken(r.Token)))
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM mandates WHERE id = ?
		AND expires_at BETWEEN now() + interval '29 days 23 hours' AND now() + interval '30 days 1 hour'`, r.RootMandateID))
}

// The database refuses a person, project or agent that names no
// organization, and an agent holding another organization's role
// (docs/specs/behavior.md §13, test_platform and test_migration_019).
func TestRowsNeedTheirOwnOrganization(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	for _, q := range []string{
		`INSERT INTO humans (id, name, role) VALUES ('x', 'X', 'viewer')`,
		`INSERT INTO projects (id, name, created_by) VALUES ('x', 'X', 'ana')`,
		`INSERT INTO agents (id, owner, client) VALUES ('x', 'ana', 'code')`,
	} {
		_, err := f.d.ExecContext(ctx, q)
		require.Equal(t, "23502", db.PgCode(err), "not_null_violation: %s", q)
	}
	_, err := f.d.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions) VALUES ('acme', 'rocketeer', 'R', 'code', '{task.read}')`)
	require.NoError(t, err)
	_, err = f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = f.d.ExecContext(ctx, `UPDATE agents SET role_id = 'rocketeer' WHERE id = 'code-web'`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "a role of another organization")
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
	r, err := f.svc.RegisterAgent(ctx, "val", identity.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}, TokenDays: 1})
	require.NoError(t, err)
	agent, ok, err := f.svc.AgentForToken(ctx, f.d, r.Token)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "code-web", agent)
	_, ok, err = f.svc.AgentForToken(ctx, f.d, "pact_"+strings.Repeat("A", 43))
	require.NoError(t, err)
	require.False(t, ok)
	_, err = f.svc.RevokeAgentTokens(ctx, f.d, "code-web")
	require.NoError(t, err)
	_, ok, err = f.svc.AgentForToken(ctx, f.d, r.Token)
	require.NoError(t, err)
	require.False(t, ok, "revoked")

	p, err := f.svc.GetPerson(ctx, f.d, "val")
	require.NoError(t, err)
	require.Equal(t, "Val", p.Name)
	_, err = f.svc.GetPerson(ctx, f.d, "nobody")
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
}
