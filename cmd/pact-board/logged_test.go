package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
)

// Every unsafe Admin operation writes exactly one log entry, or is listed in
// unlogged with the reason it writes none (ADMIN-011). The population is
// docs/openapi.json: every POST, PUT, PATCH and DELETE. For each, logSteps
// sets up what the operation needs and names one successful call of it;
// the test makes the call and reads the log. An operation without a step
// fails, so a new one is checked by construction.

// logCall is one successful call of an operation, as its step names it.
type logCall struct {
	// as signs in: a person's id, or the id of an account that is no person
	// yet (kerneltest.World.AdminToken: the subject sub-<as>, the email
	// <as>@example.com). The entry's actor must be human:<as>.
	as string
	// params fills the path's parameters.
	params map[string]string
	// body is the request's JSON ("" for none).
	body string
	// action is the entry's action; "" for an operation of unlogged.
	action string
	// then undoes, after the check, what later steps need undone (the kill
	// switch); what it writes is not counted.
	then func()
}

// unlogged are the unsafe operations that write no log entry, each with the
// reason. Each still has a step, which must write nothing.
var unlogged = map[string]string{
	"notify-mark-notification-read": "marking read is the person's own inbox state, not a change to the " +
		"organization (docs/notifications.md, \"The inbox\")",
	"notify-mark-all-notifications-read": "marking read is the person's own inbox state, not a change to the " +
		"organization (docs/notifications.md, \"The inbox\")",
	"notify-set-email-settings": "which notices are emailed to a person is their own choice, like marking " +
		"read (docs/notifications.md, \"Email\")",
}

// unsafeOp is an operation of the document that changes something.
type unsafeOp struct{ method, path string }

// unsafeOperations are docs/openapi.json's POST, PUT, PATCH and DELETE
// operations by id, their paths under /admin/api.
func unsafeOperations(t *testing.T) map[string]unsafeOp {
	t.Helper()
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, openAPIFile), &d))
	ops := map[string]unsafeOp{}
	for path, methods := range d.Paths {
		for method, op := range methods {
			if m := strings.ToUpper(method); slices.Contains([]string{"POST", "PUT", "PATCH", "DELETE"}, m) {
				ops[op.OperationID] = unsafeOp{m, strings.TrimPrefix(path, "/admin/api")}
			}
		}
	}
	return ops
}

func TestEveryUnsafeOperationWritesOneLogEntry(t *testing.T) {
	b := newLogBoard(t)
	ops := unsafeOperations(t)
	require.Greater(t, len(ops), 60, "docs/openapi.json has its unsafe operations")
	for _, id := range slices.Sorted(maps.Keys(unlogged)) {
		_, ok := ops[id]
		require.True(t, ok, "unlogged names %s, which is no unsafe operation of docs/openapi.json", id)
	}
	for _, id := range slices.Sorted(maps.Keys(logSteps)) {
		_, ok := ops[id]
		require.True(t, ok, "logSteps has a step for %s, which is no unsafe operation of docs/openapi.json", id)
	}
	for _, id := range slices.Sorted(maps.Keys(ops)) {
		op := ops[id]
		t.Run(id, func(t *testing.T) {
			step, ok := logSteps[id]
			require.True(t, ok, "%s (%s %s) is unhandled: add a step to logSteps", id, op.method, op.path)
			// The World's helpers fail the step they run in. An agent's MCP
			// session closes with the step that opened it: each step makes
			// its own agents.
			b.T = t
			c := step(b)
			_, exempt := unlogged[id]
			require.Equal(t, exempt, c.action == "", "%s: a step names its action unless the operation is in unlogged", id)
			path := op.path
			for name, v := range c.params {
				path = strings.ReplaceAll(path, "{"+name+"}", v)
			}
			require.NotContains(t, path, "{", "%s: the step fills every path parameter", id)

			last := b.lastEntry()
			r := b.Admin(c.as, op.method, path, c.body)
			require.True(t, r.Status >= 200 && r.Status < 300, "%s %s: %d %s", op.method, path, r.Status, r.Raw)
			got := b.entriesAfter(last)
			if exempt {
				require.Empty(t, got, "%s is listed as writing no entry (%s), yet wrote these", id, unlogged[id])
			} else {
				require.Equal(t, []string{"human:" + c.as + " " + c.action + " ok"}, got,
					"%s %s writes exactly one entry, its own", op.method, path)
			}
			if c.then != nil {
				c.then()
			}
		})
	}
	b.T = t
	b.VerifyLog()
}

// logBoard is the board pact-board builds (boardModules) with the real
// webhook notifier plugin, a credential plugin at its boundary and sign-up
// open: in organization default ana (owner), val (approver) and vic
// (viewer), the projects web, api and prod.
//
// No worker runs (the kernel's Run is never called, and there is no events
// hub), so every entry appended while a call is made is that call's: the
// test counts them all, whatever their actor, which is stricter than
// counting the caller's alone.
type logBoard struct {
	*kerneltest.World
	// hook is a loopback address that accepts webhooks.
	hook string
	// card is a remote A2A agent's card on loopback.
	card string
	// n numbers fresh ids; lastAgent is the agent agent made last.
	n         int
	lastAgent string
}

func newLogBoard(t *testing.T) *logBoard {
	host := stopWebhookPlugin(t, map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1"})
	w := kerneltest.New(t, kerneltest.Options{Env: map[string]string{"PACT_SIGNUP_ENABLED": "on", "PACT_A2A_ALLOW_PRIVATE": "on"},
		Modules: func(w *kerneltest.World) []kernel.Module {
			return boardModules(w.Mandates.Keys(), nil, host, stubCredentials{}, 0)
		}})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/card" { // a remote A2A agent's card (board-set-a2a-remote)
			_, _ = io.WriteString(w, `{"name":"R","supportedInterfaces":[{"url":"`+"http://"+r.Host+`/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{}}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	w.Office()
	b := &logBoard{World: w, hook: recv.URL + "/hook", card: recv.URL + "/card"}
	w.Agent("ana", kerneltest.AgentInput{ID: "remote-web", Client: "a2a-remote", Projects: []string{"web"}})
	// Every pacts step starts a pact of its own in web.
	b.ok("ana", "PUT", "/pact-settings", `{"open_limit": 1000}`)
	return b
}

// id is a fresh id: prefix and a number.
func (b *logBoard) id(prefix string) string {
	b.n++
	return fmt.Sprintf("%s-%d", prefix, b.n)
}

// lastEntry is the id of the log's newest entry (0 when empty).
func (b *logBoard) lastEntry() int64 {
	b.T.Helper()
	var id int64
	require.NoError(b.T, b.DB.NewRaw(`SELECT coalesce(max(id), 0) FROM entries`).Scan(context.Background(), &id))
	return id
}

// entriesAfter are the entries after id, oldest first, each as
// "<actor> <action> <outcome>".
func (b *logBoard) entriesAfter(id int64) []string {
	b.T.Helper()
	got := []string{}
	require.NoError(b.T, b.DB.NewRaw(`SELECT actor || ' ' || action || ' ' || outcome FROM entries WHERE id > ? ORDER BY id`, id).
		Scan(context.Background(), &got))
	return got
}

// ok calls the Admin API as person as and requires a 2xx reply.
func (b *logBoard) ok(as, method, path, body string) kerneltest.Reply {
	b.T.Helper()
	r := b.Admin(as, method, path, body)
	require.True(b.T, r.Status >= 200 && r.Status < 300, "%s %s: %d %s", method, path, r.Status, r.Raw)
	return r
}

// agent registers a fresh agent of ana's in project web with the default
// scope and returns its id.
func (b *logBoard) agent(prefix string) string {
	b.T.Helper()
	id := b.id(prefix)
	b.Agent("ana", kerneltest.AgentInput{ID: id, Client: "code", Projects: []string{"web"}, Delegations: ptr(2)})
	b.lastAgent = id
	return id
}

// number is the first row of a query returning one integer.
func (b *logBoard) number(q string, args ...any) string {
	b.T.Helper()
	var n int64
	require.NoError(b.T, b.DB.NewRaw(q, args...).Scan(context.Background(), &n))
	return fmt.Sprint(n)
}

// jsonOf is v as JSON text.
func jsonOf(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(raw)
}
