package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// pact_whoami is assembled from the sections every module registers: the
// board's own parts, the notes module's context of each project and the
// people module's role, which the answer carries in agent.
func TestWhoamiIsAssembledFromEveryModulesSections(t *testing.T) {
	b := startE2E(t)
	code := connect(t, b.base, "code-web", b.tokens["code-web"])

	who := code.ok("pact_whoami", nil)
	require.Nil(t, who["agent"].(map[string]any)["role"], "registered by hand: no role")
	require.Equal(t, []any{}, who["projects"].([]any)[0].(map[string]any)["context"], "no notes: an empty list")

	code.ok("pact_note", map[string]any{"project_id": "web", "mandate_id": b.roots["code-web"], "key": "style",
		"title": "Code style", "body": "gofmt"})
	_, err := b.d.ExecContext(context.Background(), `UPDATE agents SET role_id = 'code' WHERE id = 'code-web'`)
	require.NoError(t, err)
	who = code.ok("pact_whoami", nil)
	role := who["agent"].(map[string]any)["role"].(map[string]any)
	require.Equal(t, "code", role["id"])
	require.NotEmpty(t, role["description"])
	require.ElementsMatch(t, []string{"id", "name", "description", "instructions"}, keys(role))
	require.Equal(t, []any{map[string]any{"key": "style", "title": "Code style"}},
		who["projects"].([]any)[0].(map[string]any)["context"])
	require.ElementsMatch(t, []string{"agent", "projects", "mandates", "delegates", "unread_messages"}, keys(who))
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// pact_whoami reads the role of the agent's own organization: role ids
// repeat in every organization (docs/specs/behavior.md §16).
func TestWhoamiRoleIsTheAgentsOrganizations(t *testing.T) {
	b := startE2E(t)
	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	_, err := b.d.ExecContext(context.Background(), `INSERT INTO orgs (id, name, system_chain) VALUES ('acme', 'Acme', '_system:acme');
		INSERT INTO agent_roles (org_id, id, name, client, actions) VALUES ('acme', 'code', 'Acme coder', 'code', '{task.read}');
		UPDATE agent_roles SET instructions = 'Default instructions' WHERE org_id = 'default' AND id = 'code';
		UPDATE agents SET role_id = 'code' WHERE id = 'code-web'`)
	require.NoError(t, err)
	role := code.ok("pact_whoami", nil)["agent"].(map[string]any)["role"].(map[string]any)
	require.Equal(t, "Code", role["name"])
	require.Equal(t, "Default instructions", role["instructions"])
}
