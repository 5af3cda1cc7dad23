package people_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// registry is the people module's board (newBoard) on a clock the test
// moves, with the production project prod in the default organization.
type registry struct {
	*board
	now time.Time
}

func withPeople(t *testing.T) *registry {
	t.Helper()
	f := &registry{now: time.Now()}
	f.board = newBoardWith(t, kerneltest.Options{NoMCP: true, Now: func() time.Time { return f.now }})
	f.Project("ana", "prod", true)
	return f
}

func (f *registry) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	return f.Count(q, args...)
}

func TestRegisterAgentHandsBackATokenOnceAndStoresOnlyItsHash(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"},
		Limits: map[string]float64{"runs": 5}})
	require.NoError(t, err)
	require.Regexp(t, `^pact_[A-Za-z0-9_-]{43}$`, r.Token)
	require.Equal(t, "/mcp/a/code-web", r.ConnectorPath)

	a, err := f.Identity.GetAgent(ctx, f.DB, "code-web", "default")
	require.NoError(t, err)
	require.Equal(t, []string{"web"}, a.Projects)
	require.Equal(t, r.RootMandateID, *a.RootMandateID)
	require.Equal(t, "val", a.Owner)

	ok, err := f.Identity.AuthenticateAgent(ctx, f.DB, "code-web", r.Token)
	require.NoError(t, err)
	require.True(t, ok)

	// Population: every text-like column of every table in the catalog.
	var cols []struct {
		Table  string `bun:"table_name"`
		Column string `bun:"column_name"`
	}
	require.NoError(t, f.DB.NewRaw(`SELECT table_name, column_name FROM information_schema.columns
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
		in   people.AgentInput
		want errs.Code
	}{
		{"viewer", "vic", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}}, errs.Forbidden},
		{"no project", "val", people.AgentInput{ID: "a1", Client: "code"}, errs.ProjectRequired},
		{"bad id", "val", people.AgentInput{ID: "A_1", Client: "code", Projects: []string{"web"}}, errs.InvalidRequest},
		{"bad client", "val", people.AgentInput{ID: "a1", Client: "robot", Projects: []string{"web"}}, errs.InvalidRequest},
		{"code in two projects", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web", "prod"}}, errs.InvalidRequest},
		{"other org's project", "val", people.AgentInput{ID: "a1", Client: "chat", Projects: []string{"rocket"}}, errs.NotFound},
		{"runner on production", "val", people.AgentInput{ID: "a1", Client: "runner", Projects: []string{"prod"}}, errs.ProjectMismatch},
		{"scope outside projects", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Scope: []string{"task.work@project:prod"}}, errs.ProjectMismatch},
		{"malformed scope", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Scope: []string{"task work"}}, errs.InvalidRequest},
		{"negative limit", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Limits: map[string]float64{"runs": -1}}, errs.InvalidRequest},
		{"too many delegations", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Delegations: ptr(6)}, errs.InvalidRequest},
		{"term too long", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, MandateDays: 400}, errs.InvalidRequest},
		{"unknown owner", "val", people.AgentInput{ID: "a1", Client: "code", Projects: []string{"web"}, Owner: "bo"}, errs.NotFound},
		{"id taken", "val", people.AgentInput{ID: "web", Client: "code", Projects: []string{"web"}}, errs.IDTaken},
	}
	// "web" is a project id, not an agent's: register one agent so id_taken has something to hit.
	_, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	tables := []string{"agents", "agent_projects", "agent_tokens", "mandates", "limit_usage", "payloads"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]int{}
			for _, tb := range tables {
				before[tb] = f.count(t, `SELECT count(*) FROM `+tb)
			}
			entries := f.count(t, `SELECT count(*) FROM entries`)
			_, err := f.mod.Service().RegisterAgent(ctx, tc.by, tc.in)
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
	_, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "chat-web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = f.DB.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('chat-web', 'rocket', 'default')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err))
	_, err = f.DB.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES ('chat-web', 'rocket', 'acme')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err))
	_, err = f.DB.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES ('x', 'acme', 'ana', 'code')`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "an agent's owner belongs to its organization")
}

func TestTokensExpireAndRevoke(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}, TokenDays: 1})
	require.NoError(t, err)
	_, err = f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "chat-web", Client: "chat", Projects: []string{"web"}})
	require.NoError(t, err)
	auth := func(agent, token string) bool {
		ok, err := f.Identity.AuthenticateAgent(ctx, f.DB, agent, token)
		require.NoError(t, err)
		return ok
	}
	require.True(t, auth("code-web", r.Token))
	require.False(t, auth("chat-web", r.Token), "a token works only for its own agent")
	require.False(t, auth("code-web", "pact_"+strings.Repeat("A", 43)))
	f.now = f.now.Add(25 * time.Hour)
	require.False(t, auth("code-web", r.Token), "expired")
	f.now = f.now.Add(-25 * time.Hour)
	n, err := f.mod.Service().RevokeTokens(ctx, "val", "code-web")
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.False(t, auth("code-web", r.Token), "revoked")
}

// A registration's token and root mandate last 30 days unless told
// otherwise (docs/specs/behavior.md §16); a role's token_days (90) applies
// only to hired agents.
func TestRegistrationsDefaultToThirtyDays(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	r, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
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
		_, err := f.DB.ExecContext(ctx, q)
		require.Equal(t, "23502", db.PgCode(err), "not_null_violation: %s", q)
	}
	_, err := f.DB.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions) VALUES ('acme', 'rocketeer', 'R', 'code', '{task.read}')`)
	require.NoError(t, err)
	_, err = f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = f.DB.ExecContext(ctx, `UPDATE agents SET role_id = 'rocketeer' WHERE id = 'code-web'`)
	require.Equal(t, db.ForeignKeyViolation, db.PgCode(err), "a role of another organization")
}

// A registration's log entry names the agent's project when it has exactly
// one, so it is in that project's chain of the log; an agent over several
// projects names none, and its entry is in the organization's own chain.
func TestARegistrationIsLoggedInItsOneProject(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	_, err := f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	_, err = f.mod.Service().RegisterAgent(ctx, "val", people.AgentInput{ID: "chat-two", Client: "chat", Projects: []string{"web", "prod"}})
	require.NoError(t, err)
	registered := `SELECT count(*) FROM entries WHERE action = 'admin.agent.register' AND outcome = 'ok' AND agent_id = ?`
	require.Equal(t, 1, f.count(t, registered+` AND project_id = 'web' AND chain_key = 'web'`, "code-web"), "one project: the entry is web's")
	require.Equal(t, 1, f.count(t, registered+` AND project_id IS NULL
		AND chain_key = (SELECT system_chain FROM orgs WHERE id = 'default')`, "chat-two"), "two projects: the entry names neither")
}
