package board_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/board"
)

// A push config, made with SendMessage or on its own, gets the task as it
// stands, then each change of it (a status, a message, the closing
// artifacts), as a StreamResponse posted with the authentication the
// config names (Authorization, or the token header) and a Standard
// Webhooks signature by the key of the agent's extended card; nothing more
// once it is delivered. The configs are listed, read and deleted by the
// agent alone.
func TestA2APushDeliversEachChangeAsTheConfigAuthenticates(t *testing.T) {
	r := newPushReceiver(t)
	w := newPushWorld(t, r)
	task := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Push me\n\nplease", nil),
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{
			"url": r.URL + "/auth", "authentication": map[string]any{"scheme": "Bearer", "credentials": "s3cr3t"}}}})["task"].(map[string]any)
	id := task["id"].(string)
	made := w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": r.URL + "/token",
		"token": "tok-1"})
	require.Equal(t, id, made["taskId"])
	require.Equal(t, "tok-1", made["token"])
	require.NotEmpty(t, made["id"], "the board names the config")
	key := w.signingKey("a2a-web")
	require.True(t, strings.HasPrefix(key, "whsec_"), key)

	check := func(p pushPost, auth, token string) {
		t.Helper()
		require.Equal(t, "application/a2a+json", p.header.Get("Content-Type"))
		require.Equal(t, auth, p.header.Get("Authorization"))
		require.Equal(t, token, p.header.Get("X-A2A-Notification-Token"))
		require.Equal(t, id, p.task(t)["id"])
		require.Equal(t, "web", p.task(t)["contextId"])
		verifySigned(t, key, p)
	}
	for _, path := range []string{"/auth", "/token"} {
		first := r.awaitState(t, path, "TASK_STATE_SUBMITTED")
		check(first, map[string]string{"/auth": "Bearer s3cr3t"}[path], map[string]string{"/token": "tok-1"}[path])
	}

	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	check(r.awaitState(t, "/auth", "TASK_STATE_WORKING"), "Bearer s3cr3t", "")
	w.OK("code-web", "pact_message", map[string]any{"task_id": id, "body": "Which browser?", "mandate_id": w.Root("code-web")})
	r.awaitBody(t, "/token", "Which browser?")
	w.OK("code-web", "pact_report", map[string]any{"task_id": id, "status": "completed", "mandate_id": w.Root("code-web"),
		"result": map[string]any{"text": "done", "handoff": "all of it"}})
	for _, path := range []string{"/auth", "/token"} {
		closed := r.awaitState(t, path, "TASK_STATE_COMPLETED")
		arts := closed.task(t)["artifacts"].([]any)
		require.Equal(t, "handoff", arts[1].(map[string]any)["artifactId"])
	}
	// Delivered: nothing more goes out until the task changes again.
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ? AND attempts = 0`, id) == 2
	}, 10*time.Second, 10*time.Millisecond)
	n := len(r.posts("/auth")) + len(r.posts("/token"))
	time.Sleep(1500 * time.Millisecond)
	require.Equal(t, n, len(r.posts("/auth"))+len(r.posts("/token")), "a delivered state is not posted again")
	for _, p := range append(r.posts("/auth"), r.posts("/token")...) {
		verifySigned(t, key, p)
	}

	// List, get and delete are the agent's own.
	list := w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})
	configs := list["configs"].([]any)
	require.Len(t, configs, 2)
	first := configs[0].(map[string]any)
	require.Equal(t, r.URL+"/auth", first["url"])
	require.Equal(t, map[string]any{"scheme": "Bearer", "credentials": "s3cr3t"}, first["authentication"])
	page := w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageSize": 1})
	require.Len(t, page["configs"].([]any), 1)
	require.Equal(t, "1", page["nextPageToken"])
	rest := w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id, "pageSize": 1, "pageToken": "1"})
	require.Equal(t, made["id"], rest["configs"].([]any)[0].(map[string]any)["id"])
	require.Empty(t, rest["nextPageToken"])
	got := w.a2aResult("a2a-web", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
	require.Equal(t, made, got)

	// Another A2A agent of the project sees the task, and none of the
	// agent's configs: reading one is TaskNotFound, deleting one does
	// nothing.
	w.agent("a2a-two", "a2a", nil, "web")
	other := w.a2aResult("a2a-two", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})
	require.Empty(t, other["configs"])
	_, out := w.a2a("a2a-two", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
	require.Equal(t, float64(-32001), out["error"].(map[string]any)["code"], "%v", out)
	w.a2aResult("a2a-two", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
	require.Equal(t, 2, w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ?`, id))
	require.NotEqual(t, key, w.signingKey("a2a-two"), "each agent signs with a key of its own")

	// Deleting is idempotent.
	for range 2 {
		w.a2aResult("a2a-web", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
	}
	_, out = w.a2a("a2a-web", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": made["id"]})
	require.Equal(t, float64(-32001), out["error"].(map[string]any)["code"], "%v", out)
	require.Len(t, w.a2aResult("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})["configs"], 1)

	// What is stored is sealed.
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM a2a_push_configs WHERE url LIKE '%/auth%' OR credentials LIKE '%s3cr3t%'`))
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM a2a_push_signing WHERE signing_key LIKE 'whsec_%'`))
	w.VerifyLog()
}

// A receiver that fails gets the same delivery again after each wait, with
// the same webhook-id, until it takes it.
func TestA2APushRetriesUntilTheReceiverTakesIt(t *testing.T) {
	r := newPushReceiver(t)
	r.failFirst.Store(2)
	w := newPushWorld(t, r, 50*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Retry me", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	w.a2aResult("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": r.URL + "/flaky"})
	posts := r.await(t, "/flaky", 3)
	for _, p := range posts[1:] {
		require.Equal(t, posts[0].header.Get("webhook-id"), p.header.Get("webhook-id"), "a retry is the same delivery")
		require.Equal(t, posts[0].body, p.body)
	}
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ? AND attempts = 0 AND last_error IS NULL
			AND dead_at IS NULL AND delivered_seq > 0`, id) == 1
	}, 10*time.Second, 10*time.Millisecond, "the third attempt is recorded delivered")
	time.Sleep(500 * time.Millisecond)
	require.Len(t, r.posts("/flaky"), 3, "a delivery taken is not posted again")
}

// A receiver that never takes a delivery ends its config dead, with the
// receiver's answer as the reason, once the retries are spent; a later
// change of the task is not posted.
func TestA2APushEndsDeadWithTheReason(t *testing.T) {
	r := newPushReceiver(t)
	r.failAll.Store(true)
	w := newPushWorld(t, r, 50*time.Millisecond, 50*time.Millisecond)
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Nobody listens", nil),
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": r.URL + "/down"}}})["task"].(map[string]any)["id"].(string)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_push_configs WHERE task_id = ? AND dead_at IS NOT NULL
			AND last_error LIKE '%receiver answered 500: the receiver is down%'`, id) == 1
	}, 45*time.Second, 10*time.Millisecond, "the config ends dead with the receiver's answer")
	require.Len(t, r.posts("/down"), 3, "the first attempt and one per retry")
	r.failAll.Store(false)
	w.OK("code-web", "pact_claim", map[string]any{"task_id": id, "mandate_id": w.Root("code-web")})
	time.Sleep(1500 * time.Millisecond)
	require.Len(t, r.posts("/down"), 3, "a dead config gets nothing more")
}

// A board that runs no webhook plugin says so in its cards and refuses
// the push methods with PushNotificationNotSupported, making nothing.
func TestA2APushIsRefusedWithoutTheWebhookPlugin(t *testing.T) {
	w := newA2AWorld(t)
	card := w.a2aResult("a2a-web", "GetExtendedAgentCard", map[string]any{})
	require.Equal(t, false, card["capabilities"].(map[string]any)["pushNotifications"])
	require.Nil(t, card["capabilities"].(map[string]any)["extensions"])
	resp, err := http.Get(w.URL + "/a2a/a/a2a-web/.well-known/agent-card.json")
	require.NoError(t, err)
	resp.Body.Close()
	tasks := w.Count(`SELECT count(*) FROM tasks`)
	_, out := w.a2a("a2a-web", "SendMessage", map[string]any{"message": userMessage("Push me", nil),
		"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{"url": "https://x.example/"}}})
	require.Equal(t, float64(-32003), out["error"].(map[string]any)["code"], "%v", out)
	require.Contains(t, out["error"].(map[string]any)["message"], "SubscribeToTask")
	require.Equal(t, tasks, w.Count(`SELECT count(*) FROM tasks`), "no task was posted")
	_, out = w.a2a("a2a-web", "ListTaskPushNotificationConfigs", map[string]any{"taskId": "00000000-0000-4000-8000-000000000000"})
	require.Equal(t, float64(-32003), out["error"].(map[string]any)["code"], "%v", out)
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM a2a_push_signing`))
}

// Where the operator does not allow private addresses, the webhook plugin
// refuses them (and plain http) when a config is made: the board never
// posts into its own network (docs/specs/a2a.md, "Push notifications":
// SSRF).
func TestA2APushRefusesPrivateAddresses(t *testing.T) {
	host := webhookPlugin(t, webhookPluginDir(t), nil)
	w := newWorldOf(t, newBoard(host))
	w.agent("a2a-web", "a2a", nil, "web")
	id := w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage("Private", nil),
		"configuration": map[string]any{"returnImmediately": true}})["task"].(map[string]any)["id"].(string)
	for url, says := range map[string]string{"https://127.0.0.1:8443/hook": "loopback", "https://10.1.2.3/hook": "private",
		"http://example.com/hook": "must use https"} {
		_, out := w.a2a("a2a-web", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": url})
		e := out["error"].(map[string]any)
		require.Equal(t, float64(-32602), e["code"], "%s: %v", url, e)
		require.Contains(t, e["message"], says, url)
	}
	require.Equal(t, 0, w.Count(`SELECT count(*) FROM a2a_push_configs`))
}

// Two board processes on one database share the deliveries: each config's
// state is claimed by one of them (FOR UPDATE SKIP LOCKED, then a lease)
// and posted once, not once per process.
func TestA2APushTwoBoardsPostEachDeliveryOnce(t *testing.T) {
	r := newPushReceiver(t)
	w, host := newPushWorldAndPlugin(t, r)
	runKernel(t, w.Twin(board.New(board.Options{Notifiers: host, PushTick: time.Second})).Kernel)
	const n = 8
	for i := range n {
		w.a2aResult("a2a-web", "SendMessage", map[string]any{"message": userMessage(fmt.Sprintf("Task %d", i), nil),
			"configuration": map[string]any{"returnImmediately": true, "taskPushNotificationConfig": map[string]any{
				"url": fmt.Sprintf("%s/two/%d", r.URL, i)}}})
	}
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_push_configs WHERE delivered_seq > 0 AND attempts = 0`) == n
	}, 45*time.Second, 10*time.Millisecond, "every config is delivered")
	time.Sleep(1500 * time.Millisecond) // both boards' ticks pass
	for i := range n {
		require.Len(t, r.posts(fmt.Sprintf("/two/%d", i)), 1, "task %d's state is posted once", i)
	}
}

// Push values and remote agents' credentials written in clear (as before
// sealing) are sealed under the board's active key when it starts, and
// still open to their clear values; a value under an older key is stale
// the same way (seal.Box.Stale, core/seal's tests).
func TestA2AValuesAreSealedAgainAtStart(t *testing.T) {
	r := newPushReceiver(t)
	host := webhookPlugin(t, webhookPluginDir(t), map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": r.caFile})
	w := newWorldOf(t, newBoard(host))
	w.agent("a2a-web", "a2a", nil, "web")
	task := w.post("code-web", "web", "Sealed later", nil)
	const config = "44444444-4444-4444-8444-444444444444"
	w.Exec(`INSERT INTO a2a_push_configs (id, org_id, agent_id, task_id, url, token, auth_scheme, credentials, dead_at)
		VALUES (?, 'default', 'a2a-web', ?, ?, 'clear-token', 'Bearer', 'clear-credentials', now())`, config, task, r.URL+"/clear")
	w.Exec(`INSERT INTO a2a_push_signing (agent_id, org_id, signing_key) VALUES ('a2a-web', 'default', ?)`,
		"whsec_"+strings.Repeat("QUJD", 8))
	w.agent("remote-web", "a2a-remote", nil, "web")
	w.Exec(`INSERT INTO a2a_remotes (agent_id, org_id, card_url, auth_header, set_by)
		VALUES ('remote-web', 'default', 'https://agent.example.com/card', 'Bearer clear-remote', 'ana')`)
	runKernel(t, w.Kernel)
	require.Eventually(t, func() bool {
		return w.Count(`SELECT count(*) FROM a2a_push_configs WHERE url LIKE 'sealed:v1:%' AND token LIKE 'sealed:v1:%'
			AND credentials LIKE 'sealed:v1:%'`) == 1 && w.Count(`SELECT count(*) FROM a2a_push_signing WHERE signing_key LIKE 'sealed:v1:%'`) == 1 &&
			w.Count(`SELECT count(*) FROM a2a_remotes WHERE auth_header LIKE 'sealed:v1:%'`) == 1
	}, 10*time.Second, 10*time.Millisecond, "every A2A value is sealed at start")
	auth, err := w.board.RemoteAuth(context.Background(), "remote-web")
	require.NoError(t, err)
	require.Equal(t, "Bearer clear-remote", auth)
	got := w.a2aResult("a2a-web", "GetTaskPushNotificationConfig", map[string]any{"taskId": task, "id": config})
	require.Equal(t, map[string]any{"id": config, "taskId": task, "url": r.URL + "/clear", "token": "clear-token",
		"authentication": map[string]any{"scheme": "Bearer", "credentials": "clear-credentials"}}, got)
	require.Equal(t, "whsec_"+strings.Repeat("QUJD", 8), w.signingKey("a2a-web"))
}
