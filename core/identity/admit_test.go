package identity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// agent writes an active code agent of the default organization, owned by
// ana, working in projects, as modules/people's registration does.
func (f *fixture) agent(t *testing.T, id string, projects ...string) {
	t.Helper()
	ctx := context.Background()
	_, err := f.d.ExecContext(ctx, `INSERT INTO agents (id, org_id, owner, client) VALUES (?, 'default', 'ana', 'code')`, id)
	require.NoError(t, err)
	for _, p := range projects {
		_, err = f.d.ExecContext(ctx, `INSERT INTO agent_projects (agent_id, project_id, org_id) VALUES (?, ?, 'default')`, id, p)
		require.NoError(t, err)
	}
}

func (f *fixture) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	_, err := f.d.ExecContext(context.Background(), q, args...)
	require.NoError(t, err)
}

// Admit lets an active agent in and returns it as a Caller carrying the
// rows of its projects, as the gate read them.
func TestAdmitReturnsAnActiveAgentWithItsProjectRows(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.agent(t, "chat-both", "web", "prod")
	c, err := identity.Admit(ctx, f.d, f.d, "chat-both")
	require.NoError(t, err)
	require.Equal(t, "chat-both", c.ID)
	require.Equal(t, "default", c.OrgID)
	require.Equal(t, "code", c.Client)
	require.Equal(t, []string{"prod", "web"}, c.Projects)
	require.True(t, c.In("web"))
	require.False(t, c.In("rocket"))

	web := c.Project("web")
	require.NotNil(t, web)
	require.Equal(t, "Web", web.Name)
	require.False(t, web.Production)
	prod := c.Project("prod")
	require.NotNil(t, prod)
	require.Equal(t, "Production site", prod.Name)
	require.True(t, prod.Production)
	require.Nil(t, c.Project("rocket"), "another organization's project is none of the caller's")
	require.Nil(t, (&identity.Caller{}).Project("web"), "a caller the gate did not read has no rows")
}

// Admit refuses every agent that may not call, each with its own code and
// words, and still returns the caller of a known agent so the refusal is
// logged in its organization.
func TestAdmitRefusesEachAgentThatMayNotCall(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		prepare func(t *testing.T, f *fixture)
		agent   string
		code    errs.Code
		message string
	}{
		{"unknown", func(*testing.T, *fixture) {}, "ghost", errs.AgentUnknown, "agent ghost is not registered on this board"},
		{"paused", func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE agents SET status = 'paused' WHERE id = 'code-web'`)
		}, "code-web", errs.AgentPaused, "agent code-web is paused"},
		{"banned", func(t *testing.T, f *fixture) {
			f.exec(t, `UPDATE agents SET status = 'banned' WHERE id = 'code-web'`)
		}, "code-web", errs.AgentPaused, "agent code-web is banned"},
		{"replaced", func(t *testing.T, f *fixture) {
			f.agent(t, "code-new", "web")
			f.exec(t, `UPDATE agents SET status = 'paused', replaced_by = 'code-new' WHERE id = 'code-web'`)
		}, "code-web", errs.AgentPaused, "agent code-web was replaced by code-new: connect to /mcp/a/code-new and use that agent from now on"},
		{"its organization halted", func(t *testing.T, f *fixture) {
			require.NoError(t, f.svc.SetOrgHalted(ctx, f.d, "default", true))
		}, "code-web", errs.SystemHalted, "the kill switch is on; the board takes no calls until a person turns it off"},
		{"the platform halted", func(t *testing.T, f *fixture) {
			require.NoError(t, f.svc.SetPlatformHalted(ctx, f.d, true))
		}, "code-web", errs.SystemHalted, "the kill switch is on; the board takes no calls until a person turns it off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := withPeople(t)
			f.agent(t, "code-web", "web")
			tc.prepare(t, f)
			c, err := identity.Admit(ctx, f.d, f.d, tc.agent)
			require.Equal(t, tc.code, errs.CodeOf(err), "%v", err)
			require.Equal(t, tc.message, errs.Public(err).Message)
			if tc.code == errs.AgentUnknown {
				require.Nil(t, c)
				return
			}
			require.NotNil(t, c)
			require.Equal(t, "default", c.OrgID)
			require.Equal(t, "Web", c.Project("web").Name)
		})
	}
}

// A statement that fails is an error, not a refusal.
func TestAdmitOnACanceledContextIsAnError(t *testing.T) {
	f := withPeople(t)
	f.agent(t, "code-web", "web")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := identity.Admit(ctx, f.d, f.d, "code-web")
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, errs.Internal, errs.CodeOf(err))
	require.Nil(t, c)
}
