package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/sdk/errs"
)

// FuzzToolArgs drives arbitrary arguments through the whole pipeline of
// every tool in the registry (tools/list as a real MCP client receives
// it): a real board, PostgreSQL and MCP session. Whatever the arguments:
//   - the call is answered, as a result, as a JSON-RPC "invalid params"
//     error or as the SDK transport's 400, never otherwise (only pact_wait
//     and pact_events may still be waiting when the call's 3 s are up);
//   - a refusal carries a code of the documented vocabulary (errs.All,
//     docs/errors.md), never internal, and a message;
//   - a refused call changes nothing the board keeps (only its log entry);
//   - the log verifies when fuzzing ends.
//
// In arguments, $ROOT stands for a live root mandate of the calling agent
// (issued afresh for each input, so a revocation the fuzzer finds does not
// end every later call at the gate), $OTHER for another agent's and $TASK
// for a task of the project, so inputs reach past the gate.
// docs/security.md, "Fuzzing".
func FuzzToolArgs(f *testing.F) {
	a := newAdminBoard(f)
	cs, roots := a.toolAgents(f)
	ctx := context.Background()
	listed, err := cs.ListTools(ctx, nil)
	require.NoError(f, err)
	tools := listed.Tools
	require.NotEmpty(f, tools)
	posted := callText(f, cs, "pact_post", map[string]any{"mandate_id": roots["code-web"], "project_id": "web",
		"title": "fuzzed", "body": "a task for the fuzzer"})
	var task struct {
		TaskID string `json:"task_id"`
	}
	require.NoError(f, json.Unmarshal([]byte(posted), &task), posted)
	f.Cleanup(a.VerifyLog)

	for i, t := range tools {
		f.Add(uint8(i), sampleArgs(t))
		f.Add(uint8(i), `{"mandate_id": "$OTHER", "task_id": "$TASK", "project_id": "web"}`)
	}
	for _, seed := range []string{`{}`, `[]`, `null`, `"x"`, `{"mandate_id": 1e400}`,
		`{"mandate_id": "$ROOT", "seconds": -1, "limit": 99999999999999999999}`,
		`{"mandate_id": "$ROOT", "project_id": "web", "title": "\u0000", "body": "# Handoff\n"}`,
		`{"mandate_id": "$ROOT", "task_id": "$TASK", "status": "completed", "result": {"handoff": "# Handoff\ndone"}}`,
		`{"mandate_id": "$ROOT", "project_id": "web", "title": "t", "delegate_to": "code-api", "child_scope": ["task.*"]}`,
	} {
		f.Add(uint8(0), seed)
	}

	f.Fuzz(func(t *testing.T, which uint8, args string) {
		tool := tools[int(which)%len(tools)]
		args = strings.NewReplacer("$ROOT", freshRoot(t, a), "$OTHER", roots["code-api"], "$TASK", task.TaskID).Replace(args)
		if !json.Valid([]byte(args)) {
			t.Skip("arguments must be JSON to travel in a tools/call")
		}
		before := boardState(t, a)
		callCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(args)})
		var rpc *jsonrpc.Error
		switch {
		case err == nil:
		case errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams,
			// The SDK's transport answers 400 to a call whose name it cannot
			// read beside arguments it cannot decode (a number beyond a
			// double, 1e400): the call never reaches the board.
			strings.Contains(err.Error(), "rejected by transport: Bad Request"):
			require.Equal(t, before, boardState(t, a), "%s %s: an invalid request changed the board", tool.Name, args)
			return
		case errors.Is(err, context.DeadlineExceeded) && (tool.Name == "pact_wait" || tool.Name == "pact_events"):
			return
		default:
			t.Fatalf("%s %s: %v", tool.Name, args, err)
		}
		require.NotEmpty(t, res.Content, "%s %s", tool.Name, args)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			return
		}
		var refusal struct {
			Error   errs.Code `json:"error"`
			Message string    `json:"message"`
		}
		require.NoError(t, json.Unmarshal([]byte(text), &refusal), text)
		require.Contains(t, errs.All(), refusal.Error, "%s %s: %s", tool.Name, args, text)
		require.NotEqual(t, errs.Internal, refusal.Error, "%s %s: %s", tool.Name, args, text)
		require.NotEmpty(t, refusal.Message, text)
		require.Equal(t, before, boardState(t, a), "%s %s refused (%s) yet changed the board", tool.Name, args, text)
	})
}

// freshRoot issues code-web a root mandate as toolAgents' are, from ana.
func freshRoot(t *testing.T, a *adminBoard) string {
	t.Helper()
	var m *mandate.Mandate
	require.NoError(t, a.d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) (err error) {
		m, err = a.Mandates.IssueRoot(ctx, tx, mandate.RootInput{Issuer: "ana", Holder: "code-web",
			Scope:       []string{"task.read@project:web", "task.post@project:web", "task.work@project:web", "context.write@project:web"},
			Delegations: 3, ExpiresAt: time.Now().Add(24 * time.Hour)})
		return err
	}))
	return m.ID.String()
}

// sampleArgs is arguments tool's input schema requires, with values that
// name the fixture's mandate, task and project.
func sampleArgs(tool *mcp.Tool) string {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	raw, _ := json.Marshal(tool.InputSchema)
	_ = json.Unmarshal(raw, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		switch {
		case name == "mandate_id":
			args[name] = "$ROOT"
		case name == "task_id":
			args[name] = "$TASK"
		case name == "project_id":
			args[name] = "web"
		case name == "status":
			args[name] = "working"
		case slices.Contains([]any{"integer", "number"}, s.Properties[name].Type):
			args[name] = 1
		default:
			args[name] = "x"
		}
	}
	if _, ok := s.Properties["seconds"]; ok {
		args["seconds"] = 1 // a waiting tool answers within the call's time
	}
	out, _ := json.Marshal(args)
	return string(out)
}

// boardState fingerprints what a refused call must leave as it was: the
// tasks and their messages, notes, mandates' revocations and budgets'
// usage, agents and the people's notifications.
func boardState(t *testing.T, a *adminBoard) string {
	t.Helper()
	var s string
	require.NoError(t, a.d.NewRaw(`SELECT concat_ws('|',
		(SELECT md5(string_agg(t::text, ',' ORDER BY id)) FROM tasks t),
		(SELECT md5(string_agg(m::text, ',' ORDER BY id)) FROM task_messages m),
		(SELECT md5(string_agg(n::text, ',' ORDER BY project_id, key)) FROM context_notes n),
		(SELECT md5(string_agg(u::text, ',' ORDER BY u::text)) FROM limit_usage u),
		(SELECT md5(string_agg(g::text, ',' ORDER BY id)) FROM agents g),
		(SELECT count(*) || '/' || count(revoked_at) FROM mandates),
		(SELECT count(*) FROM notifications))`).Scan(context.Background(), &s))
	return s
}

// callText calls tool and returns its text, failing on a refusal.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	text := res.Content[0].(*mcp.TextContent).Text
	require.False(t, res.IsError, text)
	return text
}

// TestEveryToolRefusesUnknownArguments: an argument a tool does not list is
// refused, with the same answer shape on every tool of the registry, and
// every description says so (docs/specs/divergences.md, audit item 5).
func TestEveryToolRefusesUnknownArguments(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	listed, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, listed.Tools)
	for _, tool := range listed.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			require.True(t, strings.HasSuffix(tool.Description, kernel.UnknownArgumentsRule), tool.Description)
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.ReplaceAll(sampleArgs(tool), "$ROOT", roots["code-web"])), &args))
			args["delegate"] = "code-api"
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			require.NoError(t, err)
			text := res.Content[0].(*mcp.TextContent).Text
			require.True(t, res.IsError, text)
			var refusal struct{ Error, Message string }
			require.NoError(t, json.Unmarshal([]byte(text), &refusal))
			require.Equal(t, "invalid_request", refusal.Error)
			require.True(t, strings.HasPrefix(refusal.Message, `unknown argument "delegate"; this tool takes `), refusal.Message)
		})
	}
}
