package identity_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/sdk/errs"
)

// AddProject returns the row it wrote, in the acting owner's organization;
// a name may be 200 characters, not 201.
func TestAddProjectReturnsTheRowAndBoundsTheName(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	long := strings.Repeat("é", 200)
	p, err := f.svc.AddProject(ctx, "ana", "docs", "  "+long+" ", true)
	require.NoError(t, err)
	require.Equal(t, identity.Project{ID: "docs", OrgID: "default", Name: long, Production: true, CreatedBy: "ana",
		CreatedAt: p.CreatedAt}, *p)
	require.False(t, p.CreatedAt.IsZero())
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM entries WHERE action = 'admin.project.add' AND project_id = 'docs' AND outcome = 'ok'`))

	cases := []struct {
		name, by, id, pname string
		code                errs.Code
	}{
		{"a name of 201 characters", "ana", "docs2", strings.Repeat("é", 201), errs.InvalidRequest},
		{"a blank name", "ana", "docs2", "   ", errs.InvalidRequest},
		{"a bad id", "ana", "Docs", "Docs", errs.InvalidRequest},
		{"an id taken", "ana", "rocket", "Rocket", errs.IDTaken},
		{"not an owner", "val", "docs2", "Docs", errs.Forbidden},
	}
	for _, tc := range cases {
		p, err := f.svc.AddProject(ctx, tc.by, tc.id, tc.pname, false)
		require.Nil(t, p, tc.name)
		require.Equal(t, tc.code, errs.CodeOf(err), "%s: %v", tc.name, err)
	}
	require.Equal(t, 4, f.count(t, `SELECT count(*) FROM projects`), "web, prod, rocket, docs")
}

// SetProjectFlags changes the flags given and leaves the other.
func TestSetProjectFlagsChangesOnlyTheFlagsGiven(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	p, err := f.svc.SetProjectFlags(ctx, f.d, "prod", nil, ptr(true))
	require.NoError(t, err)
	require.Equal(t, "prod", p.ID)
	require.True(t, p.Production)
	require.True(t, p.Frozen)
	p, err = f.svc.SetProjectFlags(ctx, f.d, "prod", ptr(false), nil)
	require.NoError(t, err)
	require.False(t, p.Production)
	require.True(t, p.Frozen)
	_, err = f.svc.SetProjectFlags(ctx, f.d, "nowhere", ptr(true), nil)
	require.ErrorIs(t, err, sql.ErrNoRows)
}

// ProjectInOrg finds a project only in its own organization, and says the
// same of another organization's as of a missing one; LoadProject finds
// any, or nil.
func TestProjectInOrgHidesOtherOrganizationsProjects(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	cases := []struct{ id, org, want string }{
		{"web", "default", "web"},
		{"rocket", "acme", "rocket"},
		{"rocket", "default", ""},
		{"web", "acme", ""},
		{"nowhere", "default", ""},
	}
	for _, tc := range cases {
		p, err := identity.ProjectInOrg(ctx, f.d, tc.id, tc.org)
		if tc.want == "" {
			require.Nil(t, p, "%s in %s", tc.id, tc.org)
			require.Equal(t, errs.NotFound, errs.CodeOf(err))
			require.Equal(t, "project "+tc.id+" does not exist", errs.Public(err).Message)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, p.ID)
		require.Equal(t, tc.org, p.OrgID)
	}

	p, err := identity.LoadProject(ctx, f.d, "rocket")
	require.NoError(t, err)
	require.Equal(t, "Rocket", p.Name)
	p, err = identity.LoadProject(ctx, f.d, "nowhere")
	require.NoError(t, err)
	require.Nil(t, p)
}

// GetAgent finds an agent in its organization or in any ("" ), else
// not_found.
func TestGetAgentFindsAnAgentOnlyInItsOrganization(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.agent(t, "code-web", "web", "prod")
	for _, org := range []string{"", "default"} {
		a, err := f.svc.GetAgent(ctx, f.d, "code-web", org)
		require.NoError(t, err)
		require.Equal(t, "code-web", a.ID)
		require.Equal(t, "ana", a.Owner)
		require.Equal(t, "active", a.Status)
		require.Equal(t, []string{"prod", "web"}, a.Projects)
	}
	for _, c := range [][2]string{{"code-web", "acme"}, {"ghost", ""}} {
		a, err := f.svc.GetAgent(ctx, f.d, c[0], c[1])
		require.Nil(t, a)
		require.Equal(t, errs.NotFound, errs.CodeOf(err))
	}
}

// A board scope must name one of the agent's projects; any other scope
// must merely be well formed.
func TestScopesWithinTheAgentsProjects(t *testing.T) {
	cases := []struct {
		name  string
		scope []string
		code  errs.Code
	}{
		{"its project", []string{"task.work@project:web"}, ""},
		{"an opaque scope", []string{"doc.read:customer_a"}, ""},
		{"another project", []string{"task.work@project:web", "task.work@project:prod"}, errs.ProjectMismatch},
		{"a malformed scope", []string{"task work"}, errs.InvalidRequest},
		{"an empty scope item", []string{""}, errs.InvalidRequest},
	}
	for _, tc := range cases {
		err := identity.ScopesWithin(tc.scope, []string{"web"})
		require.Equal(t, tc.code, errs.CodeOf(err), "%s: %v", tc.name, err)
	}
}

// RequireHumanInOrg accepts only an enabled person of that organization.
func TestRequireHumanInOrgAcceptsOnlyItsEnabledPeople(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	require.NoError(t, f.svc.RequireHumanInOrg(ctx, f.d, "val", "default"))
	f.exec(t, `UPDATE humans SET disabled_at = now() WHERE id = 'vic'`)
	for _, c := range [][2]string{{"bo", "default"}, {"vic", "default"}, {"ghost", "default"}} {
		err := f.svc.RequireHumanInOrg(ctx, f.d, c[0], c[1])
		require.Equal(t, errs.NotFound, errs.CodeOf(err), c[0])
		require.Equal(t, "human "+c[0]+" does not exist", errs.Public(err).Message)
	}
}

// ListenUntil records until when an agent listens; d <= 0 records that it
// stopped now; an agent that does not exist is the database's refusal.
func TestListenUntilRecordsTheAgentsListening(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	f.agent(t, "code-web", "web")
	listening := func() bool {
		var ok bool
		require.NoError(t, f.d.NewRaw(`SELECT listening_until > now() FROM agent_presence WHERE agent_id = 'code-web'`).Scan(ctx, &ok))
		return ok
	}
	require.NoError(t, f.svc.ListenUntil(ctx, f.d, "code-web", time.Minute))
	require.True(t, listening())
	require.NoError(t, f.svc.ListenUntil(ctx, f.d, "code-web", -time.Minute))
	require.False(t, listening())
	require.NoError(t, f.svc.ListenUntil(ctx, f.d, "code-web", time.Hour))
	require.True(t, listening())
	err := f.svc.ListenUntil(ctx, f.d, "ghost", time.Minute)
	require.ErrorContains(t, err, "agent ghost listening")
}
