package people_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/errs"
)

// cliLists are pact-admin's list commands (agent-list, human-list,
// project-list, role-list) through the module's terminal adapter, each
// answering the ids it lists.
func cliLists(cli people.CLI) map[string]func(ctx context.Context, by string) ([]string, error) {
	return map[string]func(ctx context.Context, by string) ([]string, error){
		"Agents": func(ctx context.Context, by string) ([]string, error) {
			as, err := cli.Agents(ctx, by)
			return listed(as, func(a people.Agent) string { return a.ID }), err
		},
		"Humans": func(ctx context.Context, by string) ([]string, error) {
			hs, err := cli.Humans(ctx, by)
			return listed(hs, func(h people.Human) string { return h.ID }), err
		},
		"Projects": func(ctx context.Context, by string) ([]string, error) {
			ps, err := cli.Projects(ctx, by)
			return listed(ps, func(p people.Project) string { return p.ID }), err
		},
		"Roles": func(ctx context.Context, by string) ([]string, error) {
			rs, err := cli.Roles(ctx, by, false)
			return listed(rs, func(r people.AgentRole) string { return r.ID }), err
		},
	}
}

// listed is the ids of xs, or nil when there are none (a nil list too).
func listed[T any](xs []T, id func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

// pact-admin's lists answer what the Admin API lists for the person --by
// names, any role of them: their organization's agents, people, projects
// and roles, never another organization's, and never an empty answer
// without an error.
func TestTheCLIListsTheNamedPersonsOrganization(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	mod := b.mod
	b.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	b.Agent("bo", kerneltest.AgentInput{ID: "rocket-bot", Client: "code", Projects: []string{"rocket"}})
	want := map[string][]string{
		"Agents":   {"code-web"},
		"Humans":   {"ana", "val", "vic"},
		"Projects": {"web"},
		"Roles":    {"chat", "code", "gemini", "runner", "worker", "secretary", "design", "cowork"},
	}
	for name, list := range cliLists(mod.CLI()) {
		got, err := list(ctx, "vic")
		require.NoError(t, err, name)
		require.ElementsMatch(t, want[name], got, "%s as vic, a viewer", name)
	}

	// role-list --archived adds the archived roles; without it they are left out.
	_, err := mod.Service().ArchiveRole(ctx, "val", "design")
	require.NoError(t, err)
	rs, err := mod.CLI().Roles(ctx, "vic", false)
	require.NoError(t, err)
	require.NotContains(t, listed(rs, func(r people.AgentRole) string { return r.ID }), "design")
	rs, err = mod.CLI().Roles(ctx, "vic", true)
	require.NoError(t, err)
	require.Contains(t, listed(rs, func(r people.AgentRole) string { return r.ID }), "design")
}

// pact-admin lists nothing for a --by that is no active person: naming
// nobody, someone unknown, or a disabled person is forbidden, and the
// answer holds none of the organization's rows (a disabled person's
// organization is found, and must not be listed for them).
func TestTheCLIListsNothingForWhoIsNoActivePerson(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	mod := b.mod
	b.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	_, err := mod.Service().UpdateHuman(ctx, "ana", "vic", people.HumanUpdate{Disabled: ptr(true)})
	require.NoError(t, err)
	for _, who := range []string{"vic", "zed", ""} {
		t.Run("by="+who, func(t *testing.T) {
			for name, list := range cliLists(mod.CLI()) {
				got, err := list(ctx, who)
				require.Equal(t, errs.Forbidden, errs.CodeOf(err), "%s: %v", name, err)
				require.Empty(t, got, name)
				if who == "" {
					require.EqualError(t, err, "forbidden: name the person acting (--by <human-id>)", name)
				}
			}
		})
	}
}
