package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/people"
)

// agentClient is a real MCP client connected to the running board as one agent.
type agentClient struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func connect(t *testing.T, base, agent, token string) *agentClient {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-" + agent, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/a/" + agent,
		HTTPClient: &http.Client{Transport: withToken{token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return &agentClient{t: t, cs: cs}
}

// call returns the tool's JSON answer and whether it was a refusal.
func (a *agentClient) call(name string, args map[string]any) (map[string]any, bool) {
	a.t.Helper()
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(a.t, err, name)
	require.Len(a.t, res.Content, 1)
	text := res.Content[0].(*mcp.TextContent).Text
	var out map[string]any
	require.NoError(a.t, json.Unmarshal([]byte(text), &out), text)
	return out, res.IsError
}

func (a *agentClient) ok(name string, args map[string]any) map[string]any {
	a.t.Helper()
	out, refused := a.call(name, args)
	require.False(a.t, refused, "%s refused: %v", name, out)
	return out
}

type e2eBoard struct {
	base   string
	d      *db.DB
	tokens map[string]string
	roots  map[string]string
}

func startE2E(t *testing.T, env ...map[string]string) *e2eBoard {
	dsn := pgtest.NewDSN(t)
	vars := map[string]string{"DATABASE_URL": dsn}
	for _, e := range env {
		for k, v := range e {
			vars[k] = v
		}
	}
	base, _, _ := startBoard(t, vars)
	return seedE2E(t, dsn, base)
}

// seedE2E adds to the database at dsn, which the board at base serves, the
// owner ana, the project web and the agents code-web and runner-web.
func seedE2E(t *testing.T, dsn, base string) *e2eBoard {
	ctx := context.Background()
	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	b := &e2eBoard{base: base, d: d, tokens: map[string]string{}, roots: map[string]string{}}
	for _, a := range []struct{ id, client string }{{"code-web", "code"}, {"runner-web", "runner"}} {
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: a.id, Client: a.client, Projects: []string{"web"},
			Scope: []string{"task.read@project:web", "task.post@project:web", "task.work@project:web", "context.write@project:web"}})
		require.NoError(t, err)
		b.tokens[a.id], b.roots[a.id] = r.Token, r.RootMandateID.String()
	}
	return b
}

func TestAgentsWorkTogetherOverMCP(t *testing.T) {
	b := startE2E(t)
	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	runner := connect(t, b.base, "runner-web", b.tokens["runner-web"])

	who := code.ok("pact_whoami", nil)
	require.Equal(t, "code-web", who["agent"].(map[string]any)["id"])

	post := code.ok("pact_post", map[string]any{"project_id": "web", "title": "Add a health page",
		"mandate_id": b.roots["code-web"], "delegate_to": "runner-web", "child_limits": map[string]any{"runs": 1}})
	task, delegated := post["task_id"].(string), post["delegated_mandate_id"].(string)

	work := runner.ok("pact_events", map[string]any{"mandate_id": b.roots["runner-web"], "seconds": 5})
	require.Equal(t, task, work["tasks"].([]any)[0].(map[string]any)["id"])
	claim := runner.ok("pact_claim", map[string]any{"task_id": task, "mandate_id": delegated, "exclusive": true, "reserve": map[string]any{"runs": 1}})
	require.Equal(t, map[string]any{"runs": 0.0}, claim["budget"])

	refusal, refused := code.call("pact_claim", map[string]any{"task_id": task, "mandate_id": b.roots["code-web"]})
	require.True(t, refused)
	require.Equal(t, "wrong_agent", refusal["error"])
	require.Len(t, refusal, 2, "a refusal is exactly {error, message} (mandate_id only when a link is at fault): %v", refusal)

	runner.ok("pact_message", map[string]any{"task_id": task, "mandate_id": delegated, "body": "Which port?"})
	got := code.ok("pact_wait", map[string]any{"mandate_id": b.roots["code-web"], "seconds": 5})
	require.Len(t, got["messages"], 1)
	runner.ok("pact_note", map[string]any{"project_id": "web", "mandate_id": b.roots["runner-web"], "key": "ports", "body": "health on 8787"})
	done := runner.ok("pact_report", map[string]any{"task_id": task, "status": "completed", "mandate_id": delegated,
		"result": "Added /healthz.\n\n## Handoff\n- Done: the page\n- Checks: go test"})
	require.Equal(t, delegated, done["revoked_mandate"])

	vs, err := ledger.New(nil).VerifyAll(context.Background(), b.d, nil)
	require.NoError(t, err)
	for _, chains := range vs {
		for _, v := range chains {
			require.True(t, v.OK, "%s: %s", v.ChainKey, v.Reason)
		}
	}
}

// The population is the server's own tools/list: every tool that takes a
// mandate must refuse a call whose mandate does not exist, so a new tool
// cannot skip verification.
func TestNoToolAnswersWithoutAValidMandate(t *testing.T) {
	b := startE2E(t)
	code := connect(t, b.base, "code-web", b.tokens["code-web"])
	task := code.ok("pact_post", map[string]any{"project_id": "web", "title": "Probe", "mandate_id": b.roots["code-web"]})["task_id"]

	tools, err := code.cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names, guarded []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Type any   `json:"type"`
				Enum []any `json:"enum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		require.NoError(t, json.Unmarshal(schema, &s))
		if _, takesMandate := s.Properties["mandate_id"]; !takesMandate {
			continue
		}
		guarded = append(guarded, tool.Name)
		args := map[string]any{"mandate_id": "00000000-0000-4000-8000-000000000000"}
		for _, r := range s.Required {
			switch r {
			case "mandate_id":
			case "task_id":
				args[r] = task
			case "project_id":
				args[r] = "web"
			case "status":
				args[r] = "working"
			default: // a value of the argument's type, so only the mandate is wrong
				switch prop := s.Properties[r]; fmt.Sprint(prop.Type) {
				case "string":
					args[r] = "x"
					if len(prop.Enum) > 0 {
						args[r] = prop.Enum[0]
					}
				case "array", "[null array]":
					args[r] = []any{"x"}
				case "boolean":
					args[r] = false
				case "integer", "number":
					args[r] = 1
				default:
					args[r] = "x"
				}
			}
		}
		out, refused := code.call(tool.Name, args)
		require.True(t, refused, "%s answered without a valid mandate: %v", tool.Name, out)
		require.Contains(t, []any{"chain_broken", "not_found"}, out["error"], "%s: %v", tool.Name, out)
	}
	sort.Strings(names)
	require.Contains(t, names, "pact_whoami")
	require.Equal(t, slices.DeleteFunc(names, func(n string) bool { return n == "pact_whoami" }), guarded,
		"every tool but pact_whoami takes a mandate")
}
