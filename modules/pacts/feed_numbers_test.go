package pacts_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/pacts"
)

// Feed numbers (SEC-024, docs/pacts.md "Feed numbers"): every number a
// pact hands an agent or a person is the change's number in its
// organization's feed. Each test runs beside a second organization, beta,
// whose agents write between every step: the numbers of the first one
// (alpha: ana's) must go up by exactly one per alpha change and by nothing
// per beta change.

// withBeta adds the organization beta (owner bob, project bweb, agents bea
// and ben seated in a pact of their own) and returns noise, which has bea
// and ben each post there once.
func (f *fixture) withBeta(t *testing.T) (noise func()) {
	_, noise = f.betaPact(t)
	return noise
}

// betaPact is withBeta, with beta's pact.
func (f *fixture) betaPact(t *testing.T) (pact string, noise func()) {
	t.Helper()
	f.Org("beta", "bob")
	f.Project("bob", "bweb", false)
	for _, id := range []string{"bea", "ben"} {
		f.Agent("bob", kerneltest.AgentInput{ID: id, Client: "code", Projects: []string{"bweb"}, Owner: "bob"})
		f.roots[id] = f.Root(id)
	}
	out, err := f.as("bea", pacts.ToolCreate, map[string]any{"project_id": "bweb", "name": "Beta", "purpose": "Beta's own job",
		"prefix": "E", "invite": []any{map[string]any{"key": "@ben", "prefix": "N"}}})
	require.NoError(t, err)
	id := out["pact_id"].(string)
	_, err = f.as("ben", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	return id, func() {
		t.Helper()
		for _, who := range []string{"bea", "ben"} {
			_, err := f.as(who, pacts.ToolPost, map[string]any{"pact_id": id, "body": "beta's own work"})
			require.NoError(t, err)
		}
	}
}

// An organization's numbers commit in their order, with no gaps, while
// writers of two organizations post at once: in every snapshot a reader
// takes, an organization's highest number equals how many it has, so a
// stream that starts at the head (or resumes after a number) can miss
// nothing; and ids rise with numbers within an organization.
func TestFeedNumbersCommitInOrderPerOrganization(t *testing.T) {
	f := setup(t)
	beta, _ := f.betaPact(t)
	alpha := f.pact(t)
	const writers, each = 4, 3
	var wg sync.WaitGroup
	failures := make(chan error, 4*writers*each)
	for _, w := range []struct{ agent, pact string }{{"wanda", alpha}, {"bram", alpha}, {"bea", beta}, {"ben", beta}} {
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					if _, err := f.as(w.agent, pacts.ToolPost, map[string]any{"pact_id": w.pact, "body": fmt.Sprintf("%d.%d", i, j)}); err != nil {
						failures <- err
					}
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	snapshots := 0
	check := func() {
		t.Helper()
		var rows []struct {
			Org   string `bun:"org_id"`
			Head  int64  `bun:"head"`
			Count int64  `bun:"n"`
		}
		require.NoError(t, f.DB.NewRaw(`SELECT org_id, max(seq) AS head, count(*) AS n FROM pact_feed GROUP BY org_id`).Scan(context.Background(), &rows))
		for _, r := range rows {
			require.Equal(t, r.Count, r.Head, "organization %s: number %d is visible while a smaller one is not", r.Org, r.Head)
		}
		snapshots++
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			check()
		}
	}
	check()
	close(failures)
	for err := range failures {
		t.Fatalf("a concurrent post failed: %v", err)
	}
	require.Greater(t, snapshots, 1)
	var ordered bool
	require.NoError(t, f.DB.NewRaw(`SELECT bool_and(ordered) FROM (SELECT id > lag(id, 1, 0::bigint) OVER (PARTITION BY org_id ORDER BY seq) AS ordered
		FROM pact_feed) o`).Scan(context.Background(), &ordered))
	require.True(t, ordered, "within an organization, ids rise with numbers")
	require.Equal(t, 2*writers*each+2, f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, alpha))
}

// num is a JSON number (or a decimal string) as an int64.
func num(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return int64(x)
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		require.NoError(t, err, "%q", x)
		return n
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

// openingHead connects agent to the pact stream without Last-Event-ID and
// returns the number its opening line says it starts from.
func openingHead(t *testing.T, f *fixture, agent string) int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL+"/pacts/stream", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+f.Token(agent))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	require.NoError(t, err)
	prefix := ": pact stream of " + agent + " from "
	require.True(t, strings.HasPrefix(line, prefix), "opening line %q", line)
	return num(t, strings.TrimSpace(strings.TrimPrefix(line, prefix)))
}

// The stream's opening line prints alpha's head, and its event ids (with
// read_rest's since and a resumed Last-Event-ID) count alpha's changes
// only.
func TestStreamNumbersCountOnlyTheAgentsOrganization(t *testing.T) {
	f := streamWorld(t)
	noise := f.withBeta(t)
	id := f.pact(t)
	noise()
	got, err := f.as("wanda", pacts.ToolGet, map[string]any{"pact_id": id})
	require.NoError(t, err)
	head := openingHead(t, f, "bram")
	require.Equal(t, num(t, got["cursor"]), head, "the opening line prints the head of bram's organization (its one pact's), not the board's")

	s := f.stream(t, "bram", "", "")
	var ids []int64
	for i := range 3 {
		noise()
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("step %d", i)})
		require.NoError(t, err)
		ev := s.next(t)
		n := num(t, ev.ID)
		require.Equal(t, n, num(t, ev.Data["id"]))
		require.Equal(t, float64(n-1), ev.Data["read_rest"].(map[string]any)["arguments"].(map[string]any)["since"])
		ids = append(ids, n)
	}
	require.Equal(t, []int64{head + 1, head + 2, head + 3}, ids, "one number per alpha change, none for beta's")

	// Resumed with the last id, after more of beta's changes: the next one.
	s.cancel()
	noise()
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "after the drop"})
	require.NoError(t, err)
	s = f.stream(t, "bram", "", strconv.FormatInt(ids[2], 10))
	ev := s.next(t)
	require.Equal(t, "after the drop", ev.Data["excerpt"])
	require.Equal(t, head+4, num(t, ev.ID))
}

// A webhook delivery's webhook-id, idempotency key and event id are the
// change's number in alpha's feed: the cursor its writer was answered.
func TestWebhookNumbersCountOnlyTheAgentsOrganization(t *testing.T) {
	r := newReceiver(t)
	f := webhookWorld(t, r)
	noise := f.withBeta(t)
	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": r.URL + "/pact"})
	require.NoError(t, err)
	var cursors, ids []int64
	for i := range 3 {
		noise()
		out, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": fmt.Sprintf("step %d", i)})
		require.NoError(t, err)
		cursors = append(cursors, num(t, out["cursor"]))
		d := r.next(t)
		ev := eventOf(t, d)
		n := num(t, ev["id"])
		key := "pact_bram_" + strconv.FormatInt(n, 10)
		require.Equal(t, key, d.header.Get("webhook-id"))
		var body struct {
			Data struct {
				Key string `json:"idempotency_key"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(d.body, &body))
		require.Equal(t, key, body.Data.Key)
		require.Equal(t, float64(n-1), ev["read_rest"].(map[string]any)["arguments"].(map[string]any)["since"])
		ids = append(ids, n)
	}
	require.Equal(t, cursors, ids, "a delivery carries the number its writer was answered")
	require.Equal(t, []int64{ids[0], ids[0] + 1, ids[0] + 2}, ids, "one number per alpha change, none for beta's")
}

// numbers follows alpha's feed through a test: last is alpha's newest
// number, seen the numbers handed out so far.
type numbers struct {
	t    *testing.T
	last int64
	seen map[int64]bool
}

// wrote checks a write's answer: its cursor is the next number, and each
// item of since_your_last_write is a number handed out before.
func (n *numbers) wrote(what string, out map[string]any) int64 {
	n.t.Helper()
	c := num(n.t, out["cursor"])
	require.Equal(n.t, n.last+1, c, "%s: the next number of the organization's feed", what)
	n.last = c
	if news, ok := out["since_your_last_write"]; ok {
		for _, it := range news.([]any) {
			id := num(n.t, it.(map[string]any)["id"])
			require.True(n.t, n.seen[id], "%s: news item %d is a number of the organization's feed", what, id)
		}
	}
	n.seen[c] = true
	return c
}

// outputProperties is every property name in schema, at any depth.
func outputProperties(schema any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ps, ok := x["properties"].(map[string]any); ok {
				for k, p := range ps {
					out = append(out, k)
					walk(p)
				}
			}
			for k, sub := range x {
				if k != "properties" {
					walk(sub)
				}
			}
		case []any:
			for _, sub := range x {
				walk(sub)
			}
		}
	}
	raw, _ := json.Marshal(schema)
	var v any
	_ = json.Unmarshal(raw, &v)
	walk(v)
	return out
}

// Every pact tool that answers with a cursor (derived from the tools'
// output schemas), and get_pact's since, count alpha's changes only.
func TestToolNumbersCountOnlyTheAgentsOrganization(t *testing.T) {
	f := setup(t)
	noise := f.withBeta(t)
	called := map[string]bool{}
	call := func(agent, tool string, args map[string]any) map[string]any {
		t.Helper()
		noise()
		called[tool] = true
		out, err := f.as(agent, tool, args)
		require.NoError(t, err, tool)
		return out
	}
	n := &numbers{t: t, seen: map[int64]bool{}}
	out := call("wanda", pacts.ToolCreate, map[string]any{"project_id": "web", "name": "Launch", "purpose": "Ship it", "prefix": "W",
		"invite": []any{map[string]any{"key": "@bram", "prefix": "B"}}})
	id := out["pact_id"].(string)
	require.EqualValues(t, 1, out["cursor"], "alpha's first change is its number 1, whatever beta wrote before")
	n.last, n.seen[1] = 1, true
	n.wrote(pacts.ToolJoin, call("bram", pacts.ToolJoin, map[string]any{"pact_id": id}))
	n.wrote(pacts.ToolInvite, call("wanda", pacts.ToolInvite, map[string]any{"pact_id": id, "key": "@vera", "prefix": "V"}))
	posts := map[string]int64{}
	for range 2 {
		out := call("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "news"})
		posts[out["number"].(string)] = n.wrote(pacts.ToolPost, out)
	}
	n.wrote(pacts.ToolUpdateSection, call("bram", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "my zone"}))
	n.wrote(pacts.ToolRaise, call("bram", pacts.ToolRaise, map[string]any{"pact_id": id, "question": "Go?", "options": []any{"Yes"}}))
	n.wrote(pacts.ToolHandshake, call("wanda", pacts.ToolHandshake, map[string]any{"pact_id": id, "handshake": "mornings"}))
	for _, paused := range []bool{true, false} {
		n.wrote(pacts.ToolSetPaused, call("wanda", pacts.ToolSetPaused, map[string]any{"pact_id": id, "key": "@bram", "paused": paused}))
	}

	// get_pact: its cursor is alpha's head, each message's cursor the one
	// its post was answered, and since takes those numbers back.
	got := call("bram", pacts.ToolGet, map[string]any{"pact_id": id})
	require.Equal(t, n.last, num(t, got["cursor"]))
	for _, m := range got["messages"].([]any) {
		m := m.(map[string]any)
		require.Equal(t, posts[m["number"].(string)], num(t, m["cursor"]), "message %s", m["number"])
	}
	got = call("bram", pacts.ToolGet, map[string]any{"pact_id": id, "since": posts["W-001"]})
	msgs := got["messages"].([]any)
	require.Len(t, msgs, 1, "since W-001's cursor: only what came after it")
	require.Equal(t, "W-002", msgs[0].(map[string]any)["number"])
	got = call("bram", pacts.ToolGet, map[string]any{"pact_id": id, "since": posts["W-001"] - 1})
	require.Len(t, got["messages"].([]any), 2, "since one below W-001's cursor: W-001 and W-002")

	// The pact resource is get_pact: the same numbers.
	noise()
	res, err := f.Session("bram").ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "pact://pacts/" + id})
	require.NoError(t, err)
	var view map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Contents[0].Text), &view))
	require.Equal(t, n.last, num(t, view["cursor"]), "pact://pacts/{id}")

	// The population: every tool whose answer holds a cursor.
	tools, err := f.Session("wanda").ListTools(context.Background(), &mcp.ListToolsParams{})
	require.NoError(t, err)
	var want []string
	for _, tool := range tools.Tools {
		if slices.Contains(outputProperties(tool.OutputSchema), "cursor") {
			want = append(want, tool.Name)
			require.True(t, called[tool.Name], "%s answers with a cursor: this test must call it", tool.Name)
		}
	}
	require.Contains(t, want, pacts.ToolGet)
	require.GreaterOrEqual(t, len(want), 9)
}

// Every pact operation of the Admin API whose answer holds a cursor
// (derived from docs/openapi.json) counts alpha's changes only, and
// next_before and before page by those numbers.
func TestAdminNumbersCountOnlyThePersonsOrganization(t *testing.T) {
	f := setup(t)
	noise := f.withBeta(t)
	called := map[string]bool{}
	adm := func(op, as, method, path string, body any) map[string]any {
		t.Helper()
		noise()
		called[op] = true
		return ok(t, f.adm(as, method, path, body))
	}
	n := &numbers{t: t, seen: map[int64]bool{}}
	out := adm("pacts-create", "ana", "POST", "/pacts", map[string]any{"project_id": "web", "name": "Copy", "purpose": "Write it",
		"prefix": "A", "invite": []any{map[string]any{"agent_id": "wanda", "prefix": "W"}}})
	id := out["pact_id"].(string)
	require.EqualValues(t, 1, out["cursor"], "alpha's first change is its number 1, whatever beta wrote before")
	n.last, n.seen[1] = 1, true
	noise()
	w, err := f.as("wanda", pacts.ToolJoin, map[string]any{"pact_id": id})
	require.NoError(t, err)
	n.wrote("join_pact", w)
	n.wrote("pacts-invite", adm("pacts-invite", "ana", "POST", "/pacts/"+id+"/seats", map[string]any{"agent_id": "bram", "prefix": "B"}))
	n.wrote("pacts-invite", adm("pacts-invite", "ana", "POST", "/pacts/"+id+"/seats", map[string]any{"human_id": "vic", "prefix": "V"}))
	n.wrote("pacts-join", adm("pacts-join", "vic", "POST", "/pacts/"+id+"/join", nil))
	posts := map[string]int64{}
	out = adm("pacts-post", "ana", "POST", "/pacts/"+id+"/messages", map[string]any{"body": "first"})
	posts[out["number"].(string)] = n.wrote("pacts-post", out)
	n.wrote("pacts-write-section", adm("pacts-write-section", "ana", "PUT", "/pacts/"+id+"/sections/@ana", map[string]any{"body": "zone"}))
	n.wrote("pacts-write-handshake", adm("pacts-write-handshake", "ana", "PUT", "/pacts/"+id+"/handshake", map[string]any{"handshake": "hi"}))
	noise()
	d := f.raise(t, "wanda", id, "Go?", "Yes", "No")
	n.last++
	n.seen[n.last] = true
	n.wrote("pacts-answer", adm("pacts-answer", "ana", "PUT", "/pact-decisions/"+d+"/answer", map[string]any{"choice": "Yes"}))
	for _, verb := range []string{"pause", "wake"} {
		n.wrote("pacts-"+verb+"-seat", adm("pacts-"+verb+"-seat", "ana", "POST", "/pacts/"+id+"/seats/@wanda/"+verb, nil))
	}
	// An agent's zone write, and a person's Undo of it.
	zone, err := f.as("wanda", pacts.ToolUpdateSection, map[string]any{"pact_id": id, "body": "wanda's zone"})
	require.NoError(t, err)
	n.wrote(pacts.ToolUpdateSection, zone)
	n.wrote("pacts-undo-change", adm("pacts-undo-change", "ana", "POST", f.undo(f.change(t, pacts.ToolUpdateSection)), nil))
	// More than a page of thread, so that next_before is set.
	// Three seats take turns: each stays under a seat's 30 writes a minute.
	for i := range 51 {
		body := fmt.Sprintf("note %d", i)
		var out map[string]any
		if i%3 == 2 {
			out, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": body})
			require.NoError(t, err)
		} else {
			out = ok(t, f.adm([]string{"ana", "vic"}[i%3], "POST", "/pacts/"+id+"/messages", map[string]any{"body": body}))
		}
		posts[out["number"].(string)] = n.wrote("a post", out)
	}

	got := adm("pacts-get", "vic", "GET", "/pacts/"+id, nil)
	pact := got["pact"].(map[string]any)
	require.Equal(t, n.last, num(t, pact["cursor"]))
	msgs := pact["messages"].([]any)
	for _, m := range msgs {
		m := m.(map[string]any)
		require.Equal(t, posts[m["number"].(string)], num(t, m["cursor"]), "message %s", m["number"])
	}
	before := num(t, got["next_before"])
	require.Equal(t, num(t, msgs[0].(map[string]any)["cursor"]), before, "next_before is the oldest message's cursor")

	// Two messages are older than the page: one at a time, back to the first.
	page := adm("pacts-thread", "vic", "GET", fmt.Sprintf("/pacts/%s/messages?limit=1&before=%d", id, before), nil)
	older := page["messages"].([]any)
	require.Len(t, older, 1)
	for _, m := range older {
		m := m.(map[string]any)
		require.Equal(t, posts[m["number"].(string)], num(t, m["cursor"]), "message %s", m["number"])
		require.Less(t, num(t, m["cursor"]), before)
	}
	require.Equal(t, num(t, older[0].(map[string]any)["cursor"]), num(t, page["next_before"]))
	last := page
	for num(t, last["next_before"]) > 0 { // page back to the oldest: nothing skipped
		b := num(t, last["next_before"])
		last = ok(t, f.adm("vic", "GET", fmt.Sprintf("/pacts/%s/messages?limit=1&before=%d", id, b), nil))
		for _, m := range last["messages"].([]any) {
			require.Less(t, num(t, m.(map[string]any)["cursor"]), b)
		}
	}
	require.Equal(t, "A-001", last["messages"].([]any)[0].(map[string]any)["number"])

	removed := adm("pacts-remove-seat", "ana", "POST", "/pacts/"+id+"/seats/@vic/remove", nil)
	n.wrote("pacts-remove-seat", removed)
	n.wrote("pacts-close", adm("pacts-close", "ana", "POST", "/pacts/"+id+"/close", nil))

	// The population: every pact operation whose answer holds a cursor.
	for _, op := range cursorOperations(t) {
		require.True(t, called[op], "%s answers with a cursor: this test must call it", op)
	}
}

// cursorOperations are the Admin API's pact operations (docs/openapi.json)
// whose 2xx answer holds a property named cursor, at any depth.
func cursorOperations(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	require.NoError(t, err)
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	// resolve inlines $refs (each schema once per path, against cycles).
	var resolve func(v any, seen map[string]bool) any
	resolve = func(v any, seen map[string]bool) any {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name := ref[strings.LastIndex(ref, "/")+1:]
				if seen[name] {
					return nil
				}
				next := map[string]bool{name: true}
				for k := range seen {
					next[k] = true
				}
				return resolve(doc.Components.Schemas[name], next)
			}
			out := map[string]any{}
			for k, sub := range x {
				out[k] = resolve(sub, seen)
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, sub := range x {
				out[i] = resolve(sub, seen)
			}
			return out
		}
		return v
	}
	var ops []string
	for _, methods := range doc.Paths {
		for _, rawOp := range methods {
			var op struct {
				ID        string `json:"operationId"`
				Responses map[string]struct {
					Content map[string]struct{ Schema any }
				} `json:"responses"`
			}
			if json.Unmarshal(rawOp, &op) != nil || !strings.HasPrefix(op.ID, "pacts-") {
				continue
			}
			for code, r := range op.Responses {
				for _, c := range r.Content {
					if strings.HasPrefix(code, "2") && slices.Contains(outputProperties(resolve(c.Schema, map[string]bool{})), "cursor") {
						ops = append(ops, op.ID)
					}
				}
			}
		}
	}
	slices.Sort(ops)
	ops = slices.Compact(ops)
	require.GreaterOrEqual(t, len(ops), 13, "%v", ops)
	return ops
}
