package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// nulRefusal is the words of every refusal of text holding U+0000
// (docs/errors.md, "invalid_request").
var nulRefusal = regexp.MustCompile(`holds a NUL character \((\\u0000|%00)\), which the board cannot store: remove it$`)

// PostgreSQL cannot store U+0000, so text holding it is refused as the
// caller's mistake, invalid_request naming where it is, on every door the
// board has (SEC-017); none answers internal. The populations are the
// tool registry (each string argument of a call the tool accepts), the
// OpenAPI document (each operation's path parameters, its query and its
// JSON body), the router's plain routes (each one's path or query, and
// the body of each that reads one: bodyDoors) and the MCP resource
// templates. A door added later is sent NUL by construction, or fails
// saying it is unclassified.
func TestEveryDoorRefusesTextHoldingANULCharacter(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	a.Person("ana", "olga", identity.Owner)

	t.Run("tools", func(t *testing.T) {
		listed, err := cs.ListTools(t.Context(), nil)
		require.NoError(t, err)
		sent := 0
		for _, tool := range listed.Tools {
			var args map[string]any
			require.NoError(t, json.Unmarshal([]byte(strings.ReplaceAll(sampleArgs(tool), "$ROOT", roots["code-web"])), &args))
			for name, v := range args {
				text, ok := v.(string)
				if !ok {
					continue
				}
				before := boardState(t, a)
				held := maps.Clone(args)
				held[name] = "\x00" + text // at index 0, where a check for "> 0" would miss it
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.Name, Arguments: held})
				require.NoError(t, err, "%s.%s", tool.Name, name)
				answer := res.Content[0].(*mcp.TextContent).Text
				require.True(t, res.IsError, "%s.%s: %s", tool.Name, name, answer)
				var refusal struct{ Error, Message string }
				require.NoError(t, json.Unmarshal([]byte(answer), &refusal), answer)
				require.Equal(t, "invalid_request", refusal.Error, "%s.%s: %s", tool.Name, name, answer)
				require.Equal(t, before, boardState(t, a), "%s.%s: a refused call changed the board", tool.Name, name)
				sent++
			}
		}
		require.Greater(t, sent, len(listed.Tools), "every tool takes at least its mandate as text")
	})

	t.Run("admin operations", func(t *testing.T) {
		doc := parse(t, mustRead(t, openAPIFile))
		token := a.AdminToken("olga")
		for path, methods := range doc.Paths {
			for method, op := range methods {
				target, query := strings.TrimPrefix(path, "/admin/api"), "?nul=a%00b"
				for _, p := range op.Parameters {
					if p.In == "path" {
						target = strings.ReplaceAll(target, "{"+p.Name+"}", "a%00b")
						query = ""
					}
				}
				status, reply := adminCall(t, a.URL, token, strings.ToUpper(method), target+query, "")
				requireNULRefused(t, status, reply, op.OperationID+" "+target+query)
				if op.RequestBody == nil {
					continue
				}
				target = regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(strings.TrimPrefix(path, "/admin/api"), "none")
				body := `{"nul": "a\u0000b"}`
				status, reply = adminCall(t, a.URL, token, strings.ToUpper(method), target, body)
				requireNULRefused(t, status, reply, op.OperationID+" "+body)
			}
		}
	})

	t.Run("plain routes", func(t *testing.T) {
		for _, route := range a.k.Routes() {
			if strings.Contains(route, kernel.AdminPrefix+"/") || strings.HasSuffix(route, kernel.AdminPrefix) {
				continue // the document's, above
			}
			method, pattern, found := strings.Cut(route, " ")
			if !found {
				method, pattern = http.MethodGet, route
			}
			target := strings.ReplaceAll(pattern, "{$}", "")
			target = regexp.MustCompile(`\{[a-z]+\}`).ReplaceAllString(target, "a%00b")
			if target == pattern {
				target += "?nul=a%00b"
			}
			status, reply := jsonCall(t, method, a.URL+target, nil, "")
			requireNULRefused(t, status, reply, route+": "+target)

			door, reads := bodyDoors[route]
			why, readsNone := readsNoBody[route]
			require.True(t, reads || readsNone, "route %q is in neither bodyDoors nor readsNoBody: send it a body holding NUL, "+
				"or say why it reads none", route)
			require.False(t, reads && readsNone, "route %q is in bodyDoors and in readsNoBody (%s)", route, why)
			if reads {
				door(t, a, roots)
			}
		}
	})
}

// bodyDoors send, for each plain route that reads a body, a request the
// route accepts but for a NUL in its text, and check the refusal.
var bodyDoors = map[string]func(*testing.T, *adminBoard, map[string]string){
	"/hooks/a/{agent}/{event}": func(t *testing.T, a *adminBoard, _ map[string]string) {
		for _, event := range []string{"session-start", "stop", "user-prompt-submit", "post-tool-use"} {
			status, reply := jsonCall(t, http.MethodPost, a.URL+"/hooks/a/code-web/"+event,
				http.Header{"Authorization": {"Bearer " + a.Token("code-web")}},
				`{"session_id": "s\u0000", "prompt": "p", "tool_name": "Edit", "tool_input": {"file_path": "a"}}`)
			requireNULRefused(t, status, reply, "hook "+event)
		}
		status, reply := jsonCall(t, http.MethodPost, a.URL+"/hooks/a/code-web/post-tool-use",
			http.Header{"Authorization": {"Bearer " + a.Token("code-web")}},
			`{"session_id": "s", "tool_name": "Edit", "tool_input": {"file_path": "a", "old_string": "\u0000", "new_string": "b"}}`)
		require.Equal(t, http.StatusOK, status, "what a tool did is Claude Code's record, kept: %v", reply)
	},
	"POST /connect": func(t *testing.T, a *adminBoard, _ map[string]string) {
		status, reply := jsonCall(t, http.MethodPost, a.URL+"/connect", nil, `{"code": "pcs_a\u0000b"}`)
		requireNULRefused(t, status, reply, "connect")
	},
	"/a2a/a/{agent}": func(t *testing.T, a *adminBoard, _ map[string]string) {
		a.Agent("ana", kerneltest.AgentInput{ID: "a2a-web", Client: "a2a", Projects: []string{"web"}})
		for _, params := range []string{
			`{"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "a\u0000b"}]}}`,
			`{"id": "a\u0000b"}`,
		} {
			status, reply := jsonCall(t, http.MethodPost, a.URL+"/a2a/a/a2a-web",
				http.Header{"Authorization": {"Bearer " + a.Token("a2a-web")}, "A2A-Version": {"1.0"}},
				`{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": `+params+`}`)
			require.Equal(t, http.StatusOK, status, "%v", reply)
			failure, _ := reply["error"].(map[string]any)
			require.Equal(t, float64(jsonrpc.CodeInvalidParams), failure["code"], "%s: %v", params, reply)
			require.Regexp(t, nulRefusal, failure["message"], params)
		}
	},
	"/mcp/a/{agent}": func(t *testing.T, a *adminBoard, _ map[string]string) {
		cs := a.Session("code-web")
		for _, r := range a.k.Resources().List() {
			uri := regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllString(r.URITemplate, "a%00b")
			_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
			var rpc *jsonrpc.Error
			require.ErrorAs(t, err, &rpc, uri)
			require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code, "%s: %v", uri, err)
			var refusal struct{ Error, Message string }
			require.NoError(t, json.Unmarshal([]byte(rpc.Message), &refusal), rpc.Message)
			require.Equal(t, "invalid_request", refusal.Error, "%s: %v", uri, err)
			require.Regexp(t, nulRefusal, refusal.Message, uri)
		}
	},
}

// readsNoBody are the plain routes sent no body here, each with why: most
// read none; the MCP routes other than an agent's own are the same
// transport as /mcp/a/{agent}, whose tool arguments the registry's subtest
// covers and whose resource reads bodyDoors does.
var readsNoBody = map[string]string{
	"/": "the mux's fallback: a 404",
	"/.well-known/oauth-protected-resource/mcp/a/{agent}":     "public metadata, GET",
	"/.well-known/oauth-protected-resource/mcp/a/{agent}/{$}": "public metadata, GET",
	"/.well-known/pact-keys.json":                             "public keys, GET",
	"/a2a/a/{agent}/.well-known/agent-card.json":              "the public agent card, GET",
	"/console/":                      "static files, GET",
	"/console/auth/":                 "unknown sign-in paths: a 404",
	"/mcp":                           "the MCP transport, as /mcp/a/{agent}: tool arguments are the registry's, above",
	"/mcp/":                          "as /mcp",
	"/mcp/a/{agent}/{$}":             "as /mcp/a/{agent}",
	"GET /.well-known/pact-log/keys": "a GET: reads no body",
	"GET /.well-known/pact-log/{chain}/checkpoint": "a GET: reads no body",
	"GET /.well-known/pact-revocations/{format}":   "a GET: reads no body",
	"GET /console":               "a GET: reads no body",
	"GET /console/auth/callback": "a GET: reads no body",
	"GET /console/auth/local":    "a GET: reads no body",
	"GET /console/auth/login":    "a GET: reads no body",
	"GET /console/session":       "a GET: reads no body",
	"GET /healthz":               "a GET: reads no body",
	"GET /pacts/stream":          "a GET: reads no body",
	"GET /readyz":                "a GET: reads no body",
	"POST /console/auth/logout":  "ends the session; reads no body",
}

// requireNULRefused checks an HTTP answer is the refusal of text holding
// NUL: 400, invalid_request, words naming it.
func requireNULRefused(t *testing.T, status int, reply map[string]any, what string) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, status, "%s: %v", what, reply)
	require.Equal(t, "invalid_request", reply["error"], "%s: %v", what, reply)
	text := fmt.Sprint(reply["message"], reply["details"])
	require.True(t, nulRefusal.MatchString(fmt.Sprint(reply["message"])) || strings.Contains(text, "holds a NUL character"),
		"%s: %v", what, reply)
}

// jsonCall is httpCall with the answer decoded (nil when it is not JSON).
func jsonCall(t *testing.T, method, url string, header http.Header, body string) (int, map[string]any) {
	t.Helper()
	status, raw := httpCall(t, method, url, header, body)
	var out map[string]any
	_ = json.Unmarshal([]byte(raw), &out)
	return status, out
}
