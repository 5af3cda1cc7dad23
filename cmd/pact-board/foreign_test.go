package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/mandate"
)

// TestEveryToolAnswersForeignMandatesLikeMissingOnes calls every tool
// that takes a mandate_id (the population is the tool registry's input
// schemas) with a mandate of another organization — live, revoked and
// expired — and with a mandate id that does not exist, all other arguments
// the same: the refusals must be the same code, the same words and the
// same mandate_id field, so no tool tells an agent anything about another
// organization's mandates (docs/security.md, finding 8; SEC-008).
func TestEveryToolAnswersForeignMandatesLikeMissingOnes(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	a.Org("acme", "bo")
	a.Project("bo", "rocket", false)
	a.Agent("bo", kerneltest.AgentInput{ID: "code-rocket", Client: "code", Projects: []string{"rocket"}})
	revoked := a.Mandate("bo", "code-rocket", "task.read@project:rocket")
	_, err := a.d.ExecContext(ctx, `UPDATE mandates SET revoked_at = now() WHERE id = ?`, revoked)
	require.NoError(t, err)
	var expired *mandate.Mandate
	require.NoError(t, a.d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		expired, err = a.Mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: "bo", Holder: "code-rocket",
			Scope: []string{"task.read@project:rocket"}, ExpiresAt: time.Now().Add(-time.Hour)})
		return err
	}))
	foreign := map[string]string{"live": a.Root("code-rocket"), "revoked": revoked, "expired": expired.ID.String()}

	refusal := func(name string, args map[string]any, id string) map[string]any {
		t.Helper()
		with := map[string]any{}
		for k, v := range args {
			with[k] = v
		}
		with["mandate_id"] = id
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: with})
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.True(t, res.IsError, "%s with mandate %s answered: %s", name, id, text)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &out))
		for k, v := range out { // the id itself is the one difference allowed
			if s, ok := v.(string); ok {
				out[k] = strings.ReplaceAll(s, id, "<mandate>")
			}
		}
		return out
	}
	checked := map[string]bool{}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		if _, ok := args["mandate_id"]; ok && !checked[name] {
			want := refusal(name, args, uuid.NewString())
			for state, id := range foreign {
				require.Equal(t, want, refusal(name, args, id), "%s with another organization's %s mandate", name, state)
			}
			checked[name] = true
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		text := res.Content[0].(*mcp.TextContent).Text
		require.False(t, res.IsError, "%s: %s", name, text)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v))
		return v
	}
	callEveryTool(roots, call)
	for _, tool := range a.k.Tools().List() {
		if _, takes := tool.Input.Properties["mandate_id"]; takes {
			require.True(t, checked[tool.Name], "%s takes a mandate_id and was not checked: add it to callEveryTool", tool.Name)
		}
	}
}
