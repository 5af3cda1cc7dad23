package board_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/a2a"
)

// Every way an A2A request can be wrong gets the specification's error
// (docs/a2a.md, "Errors") with words a person can act on, and changes
// nothing: no task, no message.
func TestA2ARefusalsChangeNothing(t *testing.T) {
	recv := newPushReceiver(t)
	w := newPushWorld(t, recv)
	w.agent("a2a-two", "a2a", nil, "web", "api")
	open := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Open one", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	// A task of a2a-two's with as many push configs as the board allows.
	full := w.a2aResult("a2a-two", "SendMessage", map[string]any{"message": userMessage("Full one", map[string]any{"contextId": "web"}),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	for i := range 5 {
		w.a2aResult("a2a-two", "CreateTaskPushNotificationConfig", map[string]any{"taskId": full, "url": fmt.Sprintf("%s/full/%d", recv.URL, i)})
	}
	hook := recv.URL + "/hook"
	push := func(cfg map[string]any) map[string]any {
		return map[string]any{"returnImmediately": true, "taskPushNotificationConfig": cfg}
	}
	closed := w.post("code-web", "web", "Closed one", nil)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": closed, "mandate_id": w.Root("code-web")})
	w.OK("code-web", "pact_report", map[string]any{"task_id": closed, "status": "failed", "mandate_id": w.Root("code-web"),
		"result": map[string]any{"handoff": "gave up"}})
	others := w.post("code-web", "web", "Not the A2A agent's", nil)
	rpc := func(method string, params any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		return string(b)
	}
	send := func(msg map[string]any, extra map[string]any) string {
		p := map[string]any{"message": msg}
		for k, v := range extra {
			p[k] = v
		}
		return rpc("SendMessage", p)
	}
	v1 := map[string]string{"A2A-Version": "1.0"}
	token := w.Token("a2a-web")
	for _, tc := range []struct {
		name, agent, token, body string
		headers                  map[string]string
		status, code             int
		says                     string
	}{
		{"NoToken", "a2a-web", "", rpc("GetTask", map[string]any{"id": open}), v1, 401, -32000, "live token"},
		{"AnotherAgentsToken", "a2a-two", token, rpc("GetTask", map[string]any{"id": open}), v1, 401, -32000, "live token"},
		{"NotAnA2AAgent", "code-web", "", rpc("GetTask", map[string]any{"id": open}), v1, 404, -32000, "connects over MCP at /mcp/a/code-web"},
		{"NoVersion", "a2a-web", token, rpc("GetTask", map[string]any{"id": open}), nil, 200, -32009, "send the header A2A-Version: 1.0"},
		{"OldVersion", "a2a-web", token, rpc("GetTask", map[string]any{"id": open}), map[string]string{"A2A-Version": "0.3"}, 200, -32009, "not 0.3"},
		{"NotJSON", "a2a-web", token, `{"jsonrpc":`, v1, 200, -32700, "not JSON"},
		{"Batch", "a2a-web", token, "[" + rpc("GetTask", map[string]any{"id": open}) + "]", v1, 200, -32600, "one request per HTTP request"},
		{"Notification", "a2a-web", token, `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}`, v1, 200, -32600, "notifications"},
		{"NotVersion2", "a2a-web", token, `{"jsonrpc":"1.0","id":1,"method":"GetTask"}`, v1, 200, -32600, `"2.0"`},
		{"UnknownMethod", "a2a-web", token, rpc("message/send", map[string]any{}), v1, 200, -32601, "SendMessage"},
		{"NoParams", "a2a-web", token, `{"jsonrpc":"2.0","id":1,"method":"GetTask"}`, v1, 200, -32602, "params"},
		{"UnknownParam", "a2a-web", token, rpc("GetTask", map[string]any{"id": open, "historyLen": 1}), v1, 200, -32602, "historyLen"},
		{"NoMessage", "a2a-web", token, rpc("SendMessage", map[string]any{}), v1, 200, -32602, "message is missing"},
		{"AgentRole", "a2a-web", token, send(map[string]any{"messageId": "x", "role": "ROLE_AGENT",
			"parts": []any{map[string]any{"text": "hi"}}}, nil), v1, 200, -32602, "ROLE_USER"},
		{"NoMessageID", "a2a-web", token, send(map[string]any{"role": "ROLE_USER", "parts": []any{map[string]any{"text": "hi"}}}, nil),
			v1, 200, -32602, "messageId"},
		{"NoText", "a2a-web", token, send(map[string]any{"messageId": "x", "role": "ROLE_USER", "parts": []any{}}, nil),
			v1, 200, -32602, "needs a text part"},
		{"InlineFile", "a2a-web", token, send(map[string]any{"messageId": "x", "role": "ROLE_USER",
			"parts": []any{map[string]any{"raw": "aGk=", "mediaType": "image/png"}}}, nil), v1, 200, -32005, "a url part"},
		{"UnknownMetadata", "a2a-web", token, send(userMessage("Post it", nil),
			map[string]any{"metadata": map[string]any{"delegate_to": "code-web"}}), v1, 200, -32602, "delegateTo"},
		{"ContextNotAProject", "a2a-web", token, send(userMessage("Post it", map[string]any{"contextId": "prod"}), nil),
			v1, 200, -32602, "not one of agent a2a-web's projects"},
		{"NoContextWithTwoProjects", "a2a-two", w.Token("a2a-two"), send(userMessage("Post it", nil), nil),
			v1, 200, -32602, "name one as the message's contextId"},
		{"TooLongForATask", "a2a-web", token, send(userMessage(strings.Repeat("a", 100_001), nil), nil), v1, 200, -32602, "at most 100000"},
		{"TooLarge", "a2a-web", token, send(userMessage(strings.Repeat("a", 1<<20), nil), nil), v1, 413, -32600, "limit of 1048576 bytes"},
		{"NULInATaskID", "a2a-web", token, rpc("GetTask", map[string]any{"id": "\x00" + open}), v1, 200, -32602,
			`params.id holds a NUL character (\u0000), which the board cannot store: remove it`},
		{"NULInAMessage", "a2a-web", token, send(userMessage("Post it, \x00 please", nil), nil), v1, 200, -32602, "params.message.parts[].text holds a NUL"},
		{"NoSuchTask", "a2a-web", token, rpc("GetTask", map[string]any{"id": "00000000-0000-4000-8000-000000000000"}), v1, 200, -32001, "does not exist"},
		{"MessageOnAClosedTask", "a2a-web", token, send(userMessage("More", map[string]any{"taskId": closed}), nil),
			v1, 200, -32004, "takes no more messages"},
		{"ContextOfAnotherTask", "a2a-web", token, send(userMessage("More", map[string]any{"taskId": open, "contextId": "api"}), nil),
			v1, 200, -32602, "is in context web"},
		{"CancelAClosedTask", "a2a-web", token, rpc("CancelTask", map[string]any{"id": closed}), v1, 200, -32002, "failed already"},
		{"CancelAnothersTask", "a2a-web", token, rpc("CancelTask", map[string]any{"id": others}), v1, 200, -32000, "only its poster may cancel it"},
		{"SubscribeToAClosedTask", "a2a-web", token, rpc("SubscribeToTask", map[string]any{"id": closed}), v1, 200, -32004, "nothing to follow"},
		{"PushNoTask", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"url": hook}), v1, 200, -32602, "taskId is missing"},
		{"PushNoURL", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": ""}),
			v1, 200, -32602, "has no url"},
		{"PushNotAbsolute", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": "/hook"}),
			v1, 200, -32602, "absolute https:// URL"},
		{"PushNotHTTPS", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": "ftp://x.example/"}),
			v1, 200, -32602, "must use https"},
		{"PushUserInfo", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open,
			"url": "https://u:p@x.example/"}), v1, 200, -32602, "user name or password"},
		{"PushOwnID", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": hook, "id": "mine"}),
			v1, 200, -32602, "leave id out"},
		{"PushTokenNewline", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": hook,
			"token": "a\r\nb"}), v1, 200, -32602, "X-A2A-Notification-Token"},
		{"PushNoScheme", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": hook,
			"authentication": map[string]any{"scheme": "", "credentials": "x"}}), v1, 200, -32602, "such as Bearer"},
		{"PushNoCredentials", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": hook,
			"authentication": map[string]any{"scheme": "Bearer"}}), v1, 200, -32602, "Authorization: Bearer <credentials>"},
		{"PushUnknownField", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": open, "url": hook,
			"headers": map[string]any{}}), v1, 200, -32602, "headers"},
		{"PushUnseenTask", "a2a-web", token, rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": "00000000-0000-4000-8000-000000000000",
			"url": hook}), v1, 200, -32001, "does not exist"},
		{"PushOverTheCap", "a2a-two", w.Token("a2a-two"), rpc("CreateTaskPushNotificationConfig", map[string]any{"taskId": full, "url": hook}),
			v1, 200, -32000, "has 5 push configs of yours"},
		{"PushGetOfAnother", "a2a-web", token, rpc("GetTaskPushNotificationConfig", map[string]any{"taskId": full,
			"id": "00000000-0000-4000-8000-000000000001"}), v1, 200, -32001, "no push config"},
		{"PushGetNoID", "a2a-web", token, rpc("GetTaskPushNotificationConfig", map[string]any{"taskId": open}), v1, 200, -32602, "id is missing"},
		{"PushListWithID", "a2a-web", token, rpc("ListTaskPushNotificationConfigs", map[string]any{"taskId": open, "id": "x"}),
			v1, 200, -32602, "takes no id"},
		{"PushListBadPage", "a2a-web", token, rpc("ListTaskPushNotificationConfigs", map[string]any{"taskId": open, "pageToken": "zz"}),
			v1, 200, -32602, "nextPageToken"},
		{"PushDeleteUnseenTask", "a2a-web", token, rpc("DeleteTaskPushNotificationConfig", map[string]any{"taskId": "00000000-0000-4000-8000-000000000000",
			"id": "00000000-0000-4000-8000-000000000001"}), v1, 200, -32001, "does not exist"},
		{"SendWithABadPushConfig", "a2a-web", token, send(userMessage("Post it", nil), map[string]any{"configuration": push(map[string]any{
			"url": "http:/nohost"})}), v1, 200, -32602, "absolute https:// URL"},
		{"SendWithThePushOfAnotherTask", "a2a-web", token, send(userMessage("More", map[string]any{"taskId": open}),
			map[string]any{"configuration": push(map[string]any{"url": hook, "taskId": full})}), v1, 200, -32602, "not the message's task"},
		{"SendOverThePushCap", "a2a-two", w.Token("a2a-two"), send(userMessage("More", map[string]any{"taskId": full}),
			map[string]any{"configuration": push(map[string]any{"url": hook})}), v1, 200, -32000, "has 5 push configs of yours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tasks := w.Count(`SELECT count(*) FROM tasks`)
			msgs := w.Count(`SELECT count(*) FROM task_messages`)
			pushes := w.Count(`SELECT count(*) FROM a2a_push_configs`)
			tok := tc.token
			if tc.name == "NotAnA2AAgent" {
				tok = w.Token("code-web")
			}
			status, out := w.a2aRaw(tc.agent, tok, tc.body, tc.headers)
			require.Equal(t, tc.status, status, "%v", out)
			e, ok := out["error"].(map[string]any)
			require.True(t, ok, "an error: %v", out)
			require.Equal(t, float64(tc.code), e["code"], "%v", e)
			require.Contains(t, e["message"], tc.says)
			require.Equal(t, tasks, w.Count(`SELECT count(*) FROM tasks`), "no task was made")
			require.Equal(t, msgs, w.Count(`SELECT count(*) FROM task_messages`), "no message was sent")
			require.Equal(t, pushes, w.Count(`SELECT count(*) FROM a2a_push_configs`), "no push config was made")
			require.Equal(t, 1, w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, open))
		})
	}
}

// The well-known card is public, the same for any id, and says how to
// call; the extended card names what the agent's mandate allows.
func TestTheA2ACardsSayHowToCallAndWhatTheMandateAllows(t *testing.T) {
	w := newA2AWorld(t)
	for _, id := range []string{"a2a-web", "nobody-at-all"} {
		resp, err := http.Get(w.URL + "/a2a/a/" + id + "/.well-known/agent-card.json")
		require.NoError(t, err)
		var card map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		iface := card["supportedInterfaces"].([]any)[0].(map[string]any)
		require.Equal(t, w.Config.PublicURL+"/a2a/a/"+id, iface["url"])
		require.Equal(t, "JSONRPC", iface["protocolBinding"])
		require.Equal(t, "1.0", iface["protocolVersion"])
		require.Contains(t, card["securitySchemes"], "agentToken")
		require.Len(t, card["skills"], 1, "the public card names no project")
	}
	ext := w.a2aResult("a2a-web", "GetExtendedAgentCard", map[string]any{})
	require.Equal(t, "a2a-web", ext["name"])
	skills := ext["skills"].([]any)
	require.Len(t, skills, 1)
	require.Equal(t, "project-web", skills[0].(map[string]any)["id"])
}

// Every method of the A2A binding (a2a.Methods) is served through the
// board's own tools, each call a tool call of the agent's in the log, or
// refused with the specification's error and no call made. A method added
// to the binding fails here until it is placed.
func TestEveryA2AMethodIsAToolCallOrARefusal(t *testing.T) {
	recv := newPushReceiver(t)
	w := newPushWorld(t, recv)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Seed", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	config := w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": recv.URL + "/seed"})["id"]
	// The push config methods read the task through pact_message first:
	// a task the agent cannot see is TaskNotFound, and the read is logged.
	served := map[string]any{
		"SendMessage":                      map[string]any{"message": userMessage("Another", nil), "configuration": map[string]any{"returnImmediately": true}},
		"GetTask":                          map[string]any{"id": id},
		"CancelTask":                       map[string]any{"id": id},
		"CreateTaskPushNotificationConfig": map[string]any{"taskId": id, "url": recv.URL + "/more"},
		"GetTaskPushNotificationConfig":    map[string]any{"taskId": id, "id": config},
		"ListTaskPushNotificationConfigs":  map[string]any{"taskId": id},
		"DeleteTaskPushNotificationConfig": map[string]any{"taskId": id, "id": config},
	}
	streams := map[string]bool{"SendStreamingMessage": true, "SubscribeToTask": true}
	refused := map[string]int{"ListTasks": -32004}
	// GetExtendedAgentCard reads the agent's mandate, no tool: it is
	// authenticated as every call is, and hands only the agent its own card.
	unlogged := map[string]bool{"GetExtendedAgentCard": true}
	calls := func() int {
		return w.Count(`SELECT count(*) FROM entries WHERE agent_id = 'a2a-web' AND action LIKE 'pact\_%'`)
	}
	for _, method := range a2a.Methods() {
		before := calls()
		switch {
		case served[method] != nil:
			w.a2aResult("a2a-web", method, served[method])
			require.Greater(t, calls(), before, "%s makes tool calls as the agent", method)
		case streams[method]:
			other := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Followed", nil),
				"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
			w.OK("code-web", "pact_claim", map[string]any{"task_id": other, "mandate_id": w.Root("code-web")})
			w.OK("code-web", "pact_report", map[string]any{"task_id": other, "status": "input_required", "mandate_id": w.Root("code-web"),
				"result": "Which one?"})
			// A task waiting for input ends its stream: the subscription at
			// once; the stream of the answer when the task asks again.
			before = calls()
			var events []map[string]any
			if method == "SubscribeToTask" {
				events = w.a2aEvents("a2a-web", method, map[string]any{"id": other})
			} else {
				done := make(chan []map[string]any, 1)
				go func() {
					done <- w.a2aEvents("a2a-web", method, map[string]any{"message": userMessage("Blue", map[string]any{"taskId": other})})
				}()
				require.Eventually(t, func() bool {
					return w.Count(`SELECT count(*) FROM tasks WHERE id = ? AND status = 'submitted'`, other) == 1
				}, 10*time.Second, 10*time.Millisecond, "the answer puts the task back on the board")
				w.OK("code-web", "pact_claim", map[string]any{"task_id": other, "mandate_id": w.Root("code-web")})
				w.OK("code-web", "pact_report", map[string]any{"task_id": other, "status": "input_required",
					"mandate_id": w.Root("code-web"), "result": "And which shade?"})
				select {
				case events = <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("%s did not end when the task asked again", method)
				}
			}
			require.NotEmpty(t, events, method)
			for _, ev := range events {
				require.Nil(t, ev["error"], "%s: %v", method, ev)
			}
			require.Greater(t, calls(), before, "%s makes tool calls as the agent", method)
		case refused[method] != 0:
			_, out := w.a2a("a2a-web", method, map[string]any{"taskId": id})
			require.Equal(t, float64(refused[method]), out["error"].(map[string]any)["code"], "%s: %v", method, out)
			require.Equal(t, before, calls(), "%s is refused before any call", method)
		case unlogged[method]:
			w.a2aResult("a2a-web", method, map[string]any{})
		default:
			t.Fatalf("A2A method %s is neither served, streamed nor refused here: place it", method)
		}
	}
}
