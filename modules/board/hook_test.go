package board_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hook posts body to /hooks/a/<agent>/<event> with token and headers and
// returns the status and the answer.
func (w *world) hook(method, agent, event, token, body string, headers map[string]string) (int, map[string]any) {
	w.T.Helper()
	req, err := http.NewRequest(method, w.URL+"/hooks/a/"+agent+"/"+event, strings.NewReader(body))
	require.NoError(w.T, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.T, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(w.T, err)
	var out map[string]any
	require.NoError(w.T, json.Unmarshal(raw, &out), string(raw))
	return resp.StatusCode, out
}

// ok is a hook answered 200.
func (w *world) hookOK(agent, event, body string, headers map[string]string) map[string]any {
	w.T.Helper()
	status, out := w.hook(http.MethodPost, agent, event, w.Token(agent), body, headers)
	require.Equal(w.T, 200, status, "%v", out)
	return out
}

func TestHookRefusals(t *testing.T) {
	w := newWorld(t)
	token := w.Token("code-web")
	for _, tc := range []struct {
		name, method, agent, event, token, body string
		status                                  int
		code, says                              string
	}{
		{"Method", "GET", "code-web", "stop", token, "", 405, "method_not_allowed", "POST"},
		{"Event", "POST", "code-web", "pre-tool-use", token, "{}", 404, "not_found",
			`there is no hook event "pre-tool-use"; the events are post-tool-use, stop, session-start, user-prompt-submit`},
		{"NoToken", "POST", "code-web", "stop", "", `{"session_id": "s"}`, 401, "unauthorized", "hooks need a live agent token for this agent"},
		{"AnotherAgentsToken", "POST", "gemini-web", "stop", token, `{"session_id": "s"}`, 401, "unauthorized", "hooks need a live agent token"},
		{"NotAToken", "POST", "code-web", "stop", "eyJhbGciOi.x.y", `{"session_id": "s"}`, 401, "unauthorized", "hooks need a live agent token"},
		{"TooLarge", "POST", "code-web", "post-tool-use", token, `{"x": "` + strings.Repeat("a", 1_000_000) + `"}`, 413, "too_large", "1000000 bytes"},
		{"NotAnObject", "POST", "code-web", "stop", token, `[1]`, 400, "invalid_request", "JSON object"},
		{"NotJSON", "POST", "code-web", "stop", token, `{`, 400, "invalid_request", "JSON object"},
		{"NoSession", "POST", "code-web", "stop", token, `{}`, 400, "invalid_request", "session_id"},
		{"LongSession", "POST", "code-web", "session-start", token, `{"session_id": "` + strings.Repeat("s", 201) + `"}`, 400, "invalid_request", "session_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, out := w.hook(tc.method, tc.agent, tc.event, tc.token, tc.body, nil)
			require.Equal(t, tc.status, status, "%v", out)
			require.Equal(t, tc.code, out["error"])
			require.Contains(t, out["message"], tc.says)
		})
	}
	require.Zero(t, w.Count(`SELECT count(*) FROM entries WHERE action LIKE 'hook.%' OR action = 'pact_list'`), "refused hooks log nothing")
	// post-tool-use needs no session.
	require.Equal(t, map[string]any{"logged": false, "reason": "no task held"}, w.hookOK("code-web", "post-tool-use", `{}`, nil))
}

func TestPostToolUseIsAHeartbeatOfTheOneTaskHeld(t *testing.T) {
	w := newWorld(t)
	use := `{"session_id": "s1", "cwd": "/src/web", "tool_name": "Bash",
		"tool_input": {"command": "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 make deploy", "description": "Deploy"},
		"tool_response": {"stdout": "THE TOOL'S OUTPUT"}}`
	first := w.post("chat-web", "web", "First", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": first, "mandate_id": w.Root("code-web")})
	w.Exec(`UPDATE task_activity SET at = now() - interval '29 minutes' WHERE task_id = ?`, first)
	require.Equal(t, map[string]any{"logged": true, "task_id": first}, w.hookOK("code-web", "post-tool-use", use, nil))
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM task_activity WHERE task_id = ? AND at > now() - interval '1 minute'`, first),
		"the entry is a heartbeat")
	var payload string
	require.NoError(t, w.DB.NewRaw(`SELECT p.content::text FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'hook.post_tool_use' AND e.task_id = ? AND e.outcome = 'ok' AND e.agent_id = 'code-web'
		AND cardinality(e.mandate_chain) = 1`, first).Scan(t.Context(), &payload))
	require.Contains(t, payload, `"tool": "Bash"`)
	require.Contains(t, payload, "make deploy")
	require.NotContains(t, payload, "ghp_abcdefghij", "redacted")
	require.NotContains(t, payload, "THE TOOL'S OUTPUT", "the output is never kept")

	// Edits keep what they change, clipped; other tools only their input names.
	edit := `{"tool_name": "Edit", "tool_input": {"file_path": "a.go", "old_string": "` + strings.Repeat("x", 2500) + `", "new_string": "y"}}`
	w.hookOK("code-web", "post-tool-use", edit, nil)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'hook.post_tool_use' AND p.content->>'old_string' LIKE '%… [500 more characters]'`))
	w.hookOK("code-web", "post-tool-use", `{"tool_name": "Read", "tool_input": {"path": "x", "limit": 3}}`, nil)
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'hook.post_tool_use' AND p.content->'input_keys' = '["limit", "path"]'::jsonb`))

	second := w.post("chat-web", "web", "Second", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": second, "mandate_id": w.Root("code-web")})
	require.Equal(t, map[string]any{"logged": false, "reason": "several tasks held"}, w.hookOK("code-web", "post-tool-use", use, nil))
	w.OK("code-web", "pact_report", map[string]any{"task_id": second, "status": "canceled", "mandate_id": w.Root("code-web"),
		"result": "## Handoff\n- Done: nothing, a duplicate"})

	w.Exec(`UPDATE projects SET frozen = true WHERE id = 'web'`)
	out := w.hookOK("code-web", "post-tool-use", use, nil)
	require.Equal(t, false, out["logged"])
	require.Equal(t, "project_frozen", out["error"])
	require.Equal(t, 1, w.Count(`SELECT count(*) FROM entries WHERE action = 'hook.post_tool_use' AND outcome = 'project_frozen'`),
		"a refusal is logged")
	w.VerifyLog()
}
