package main

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/people"
	"github.com/pactboard/pact/sdk/npmtest"
)

// An A2A client nobody here wrote works a board agent end to end
// (docs/a2a.md): the official JavaScript SDK, @a2a-js/sdk pinned in
// testdata/a2aclient, is given the agent's URL and its token, reads the
// card there, and through its own ClientFactory and JSON-RPC transport
// posts a task, has the board push it to a receiver of its own (through
// the real webhook plugin), follows another by stream while a worker agent (over MCP)
// claims it and asks a question, answers it, follows it again while the
// worker completes it, reads it with its artifacts, and cancels a third
// task twice. Every answer is checked as the SDK parsed it: its own
// toJSON writes it back, so a state or role it could not read shows.
func TestA2AJSSDKWorksABoardAgent(t *testing.T) {
	ctx := context.Background()
	// The card names the agent's URL from PACT_PUBLIC_URL: the board
	// listens there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	public := fmt.Sprintf("http://127.0.0.1:%d", port)
	dsn := pgtest.NewDSN(t)
	// The board pushes through the real webhook plugin, which may reach
	// the client's receiver on loopback.
	pluginDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(pluginDir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	built, err := build.CombinedOutput()
	require.NoError(t, err, "%s", built)
	base, logs, _ := startBoard(t, map[string]string{"DATABASE_URL": dsn, "PORT": fmt.Sprint(port), "PACT_PUBLIC_URL": public,
		"PACT_PLUGIN_DIR": pluginDir,
		"PACT_PLUGINS":    `[{"name":"webhook","kind":"notifier","binary":"notifier-webhook","env":{"PACT_WEBHOOK_ALLOW_PRIVATE":"1"}}]`})
	require.Equal(t, public, base)

	d, err := db.Open(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	ident := identity.NewService(d, ledger.New(nil), nil)
	_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner})
	require.NoError(t, err)
	_, err = ident.AddProject(ctx, "ana", "web", "Web", false)
	require.NoError(t, err)
	tokens, roots := map[string]string{}, map[string]string{}
	for _, a := range []struct{ id, client string }{{"a2a-web", "a2a"}, {"code-web", "code"}} {
		r, err := registerAgent(ctx, d, ident, "ana", people.AgentInput{ID: a.id, Client: a.client, Projects: []string{"web"}})
		require.NoError(t, err)
		tokens[a.id], roots[a.id] = r.Token, r.RootMandateID.String()
	}
	worker := connect(t, base, "code-web", tokens["code-web"])
	work := func(tool, task string, args map[string]any) map[string]any {
		t.Helper()
		all := map[string]any{"task_id": task, "mandate_id": roots["code-web"]}
		for k, v := range args {
			all[k] = v
		}
		return worker.ok(tool, all)
	}

	agentURL := public + "/a2a/a/a2a-web"
	started := time.Now()
	js := startA2AClient(t, logs, map[string]string{"url": agentURL, "token": tokens["a2a-web"], "project": "web"})

	// The card: the SDK read the JSON-RPC interface at A2A 1.0, and the
	// extended card it asked for names the agent's project.
	out := js.next("card")
	require.Equal(t, "1.0", out["protocolVersion"])
	// The SDK resolves .well-known/agent-card.json against the URL it is
	// given: without the trailing slash it looks beside the agent's URL.
	require.Contains(t, out["beside"], public+"/a2a/a/.well-known/agent-card.json: 404")
	card := out["card"].(map[string]any)
	require.Equal(t, []any{map[string]any{"url": agentURL, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		card["supportedInterfaces"])
	require.Equal(t, true, dig(card, "capabilities", "streaming"))
	require.Equal(t, true, dig(card, "capabilities", "extendedAgentCard"))
	require.Equal(t, true, dig(card, "capabilities", "pushNotifications"))
	require.Equal(t, "Bearer", dig(card, "securitySchemes", "agentToken", "httpAuthSecurityScheme", "scheme"))
	extended := out["extended"].(map[string]any)
	require.Equal(t, "a2a-web", extended["name"])
	require.Equal(t, "project-web", dig(extended, "skills", 0, "id"))

	// 1. A task posted, returned at once: submitted, in its project.
	posted := js.next("posted")["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_SUBMITTED", dig(posted, "status", "state"))
	require.Equal(t, "web", posted["contextId"])
	require.Equal(t, "ROLE_USER", dig(posted, "history", 0, "role"))
	require.Equal(t, "Check the SDK posts", dig(posted, "metadata", "title"))

	// 1b. A push config on it: the SDK reads what the board answers, and
	// the board's first post to the SDK's receiver is the task, as the
	// SDK's StreamResponse reads it, with the token header it asked for and
	// a Standard Webhooks signature by the key of the extended card.
	out = js.next("push")
	made := out["made"].(map[string]any)
	require.Equal(t, posted["id"], made["taskId"])
	require.Equal(t, out["hook"], made["url"])
	require.Equal(t, "tok-js", made["token"])
	require.NotEmpty(t, made["id"])
	require.Equal(t, made, out["read"])
	require.Equal(t, []any{made}, dig(out, "listed", "configs"))
	require.Empty(t, dig(out, "after", "configs"), "deleted")
	require.Equal(t, posted["id"], dig(out, "event", "task", "id"))
	require.Equal(t, "TASK_STATE_SUBMITTED", dig(out, "event", "task", "status", "state"))
	headers := out["push"].(map[string]any)["headers"].(map[string]any)
	require.Equal(t, "application/a2a+json", headers["content-type"])
	require.Equal(t, "tok-js", headers["x-a2a-notification-token"])
	require.Equal(t, "https://pactboard.dev/a2a/push-signatures/v1", dig(extended, "capabilities", "extensions", 0, "uri"))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(dig(extended, "capabilities", "extensions", 0, "params", "secret").(string), "whsec_"))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(fmt.Sprintf("%s.%s.%s", headers["webhook-id"], headers["webhook-timestamp"], out["push"].(map[string]any)["body"])))
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), headers["webhook-signature"])

	// 2. A task followed by stream: the worker claims it, then asks.
	out = js.next("streaming")
	asked := out["taskId"].(string)
	require.Equal(t, "TASK_STATE_SUBMITTED", dig(out, "event", "task", "status", "state"))
	work("pact_claim", asked, nil)
	require.Equal(t, "TASK_STATE_WORKING", dig(js.next("event"), "event", "statusUpdate", "status", "state"))
	work("pact_report", asked, map[string]any{"status": "input_required", "result": "Blue or green?"})
	status := dig(js.next("event"), "event", "statusUpdate", "status").(map[string]any)
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", status["state"])
	require.Equal(t, "ROLE_AGENT", dig(status, "message", "role"))
	require.Equal(t, "Blue or green?", dig(status, "message", "parts", 0, "text"))
	js.next("stream-ended")

	// 3. The answer puts the task back on the board (pact_reply); the
	// worker gets it, claims the task again and completes it while the
	// SDK follows it by SubscribeToTask.
	require.Equal(t, "TASK_STATE_SUBMITTED", dig(js.next("answered"), "task", "status", "state"))
	require.Contains(t, mustMarshal(t, work("pact_message", asked, nil)), "Blue, please.", "the worker gets the answer")
	require.Equal(t, "TASK_STATE_SUBMITTED", dig(js.next("subscribed"), "event", "task", "status", "state"))
	work("pact_claim", asked, nil)
	require.Equal(t, "TASK_STATE_WORKING", dig(js.next("event"), "event", "statusUpdate", "status", "state"))
	work("pact_report", asked, map[string]any{"status": "completed",
		"result": "Painted it blue.\n\n## Handoff\n- Done: the colour\n- Left / next: nothing"})
	require.Equal(t, "result", dig(js.next("event"), "event", "artifactUpdate", "artifact", "artifactId"))
	require.Equal(t, "handoff", dig(js.next("event"), "event", "artifactUpdate", "artifact", "artifactId"))
	require.Equal(t, "TASK_STATE_COMPLETED", dig(js.next("event"), "event", "statusUpdate", "status", "state"))
	js.next("stream-ended")
	got := js.next("got")["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_COMPLETED", dig(got, "status", "state"))
	require.Len(t, got["artifacts"], 2)
	require.Equal(t, "result", dig(got, "artifacts", 0, "artifactId"))
	require.Contains(t, dig(got, "artifacts", 0, "parts", 0, "text"), "Painted it blue.")
	require.Equal(t, "handoff", dig(got, "artifacts", 1, "artifactId"))
	require.Contains(t, dig(got, "artifacts", 1, "parts", 0, "text"), "- Done: the colour")

	// 4. Cancel: the task is canceled; again, TaskNotCancelable.
	require.Equal(t, "TASK_STATE_CANCELED", dig(js.next("canceled"), "task", "status", "state"))
	refusal := js.next("cancel-again")["error"].(map[string]any)
	require.Equal(t, float64(-32002), refusal["code"], "%v", refusal)
	require.Equal(t, "TaskNotCancelableError", refusal["name"])

	// Every request carried the token, and A2A-Version 1.0 as the SDK sends it.
	requests := js.next("requests")["requests"].([]any)
	require.Equal(t, "GET "+agentURL+"/.well-known/agent-card.json 200", requestLine(requests[0]))
	for _, r := range requests {
		m := r.(map[string]any)
		require.True(t, m["bearer"].(bool), "%v", m)
		require.Equal(t, "1.0", m["a2aVersion"], "%v", m)
		require.Equal(t, float64(200), m["status"], "%v", m)
		if m["method"] == "POST" {
			require.Equal(t, agentURL, m["url"])
		}
	}
	require.NoError(t, js.wait(), js.stderr.String())
	t.Logf("the SDK's journey took %s", time.Since(started).Round(time.Millisecond))
}

// a2aJSClient is testdata/a2aclient/client.mjs running: one JSON line out
// per step.
type a2aJSClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	logs   *logtest.Buffer
	lines  chan string
	stderr *logtest.Buffer
}

func startA2AClient(t *testing.T, logs *logtest.Buffer, conf map[string]string) *a2aJSClient {
	t.Helper()
	dir := installNodePackage(t, filepath.Join("testdata", "a2aclient"), "pact-a2a-client",
		filepath.Join("@a2a-js", "sdk", "package.json"))
	body, err := os.ReadFile(filepath.Join("testdata", "a2aclient", "client.mjs"))
	require.NoError(t, err)
	script := npmtest.WriteScript(t, dir, "client", body)
	raw, err := json.Marshal(conf)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "client.json")
	require.NoError(t, os.WriteFile(file, raw, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	c := &a2aJSClient{t: t, cmd: exec.CommandContext(ctx, "node", script, file), logs: logs,
		lines: make(chan string, 16), stderr: &logtest.Buffer{}}
	c.cmd.Dir, c.cmd.Stderr = dir, c.stderr
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, c.cmd.Start())
	go sendLines(stdout, c.lines)
	t.Cleanup(func() { cancel(); _ = c.cmd.Wait() })
	return c
}

// next is the client's next line, which must be step; it fails the test,
// with the client's stderr and the board's log, when the client ends, says
// another step, or says nothing for 30 seconds.
func (c *a2aJSClient) next(step string) map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("the A2A client ended before %q:\n%s\nboard log:\n%s", step, c.stderr, c.logs)
		}
		var out map[string]any
		require.NoError(c.t, json.Unmarshal([]byte(line), &out), line)
		require.Equal(c.t, step, out["step"], "%s", line)
		return out
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the A2A client said nothing for 30 s, waiting for %q:\n%s\nboard log:\n%s", step, c.stderr, c.logs)
	}
	return nil
}

func (c *a2aJSClient) wait() error {
	for range c.lines { // drain, so the reader ends and Wait may close the pipe
	}
	return c.cmd.Wait()
}

// dig is the value at path in decoded JSON: object keys and array indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func requestLine(r any) string {
	m := r.(map[string]any)
	return fmt.Sprintf("%s %s %v", m["method"], m["url"], m["status"])
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// sendLines sends each line a Node script writes on stdout (up to 8 MiB a
// line) to lines, and closes it when the script's output ends.
func sendLines(stdout io.Reader, lines chan<- string) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		lines <- sc.Text()
	}
	close(lines)
}
