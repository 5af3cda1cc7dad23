package pacts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
	"github.com/pactboard/pact/sdk/errs"
)

// webhookWorld is a board whose pacts module delivers through the real
// webhook plugin, which may reach r (a local TLS receiver), with retries
// after each wait of retries, and its workers running.
func webhookWorld(t *testing.T, r *receiver, retries ...time.Duration) *fixture {
	host := webhookPlugin(t, map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": r.caFile})
	f := setupWith(t, kerneltest.Options{Events: true}, pacts.Options{Notifiers: host, Retries: retries, Tick: time.Second})
	runWorkers(t, f)
	return f
}

func TestWebhookDeliveriesAreStandardWebhooksAndRetriesKeepTheirID(t *testing.T) {
	r := newReceiver(t)
	f := webhookWorld(t, r, 50*time.Millisecond, 50*time.Millisecond)
	id := f.pact(t)
	out, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": r.URL + "/pact?token=t0ken"})
	require.NoError(t, err)
	secret, _ := out["secret"].(string)
	require.True(t, strings.HasPrefix(secret, "whsec_"), "a secret is made and shown once: %v", out)

	r.status.Store(http.StatusServiceUnavailable)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Copy is ready."})
	require.NoError(t, err)
	failed := r.nextNoneLost(t, f)
	r.status.Store(http.StatusOK)
	retried := r.nextNoneLost(t, f)
	require.Equal(t, failed.header.Get("webhook-id"), retried.header.Get("webhook-id"), "a retry keeps its webhook-id")
	ev := eventOf(t, retried)
	require.Equal(t, "W-001", ev["ref"])
	require.Equal(t, "Copy is ready.", ev["excerpt"])
	require.Equal(t, "get_pact", ev["read_rest"].(map[string]any)["tool"])

	// bram's own message is not sent to bram; wanda's next one is.
	_, err = f.as("bram", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Thanks."})
	require.NoError(t, err)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Layout next."})
	require.NoError(t, err)
	next := r.next(t)
	require.Equal(t, "W-002", eventOf(t, next)["ref"], "B-001 is bram's own")

	// The official library verifies every delivery, and refuses a changed body.
	var cases []map[string]any
	for i, d := range []delivered{failed, retried, next} {
		h := map[string]string{"webhook-id": d.header.Get("webhook-id"), "webhook-timestamp": d.header.Get("webhook-timestamp"),
			"webhook-signature": d.header.Get("webhook-signature")}
		cases = append(cases, map[string]any{"name": "delivery " + string(rune('1'+i)), "headers": h, "body": string(d.body), "valid": true},
			map[string]any{"name": "changed " + string(rune('1'+i)), "headers": h, "body": strings.Replace(string(d.body), "W-0", "X-0", 1), "valid": false})
	}
	verifyWithStandardWebhooks(t, secret, cases)
}

// No change an agent makes is queued or sent to its webhook, whatever the
// change's kind and whether or not its feed row carries the agent's seat
// key (its pause or wake of another seat carries none), and every change
// of anyone else is, once (PACT-009): the population is every kind the
// pact feed allows, made by changeOfEveryFeedKind.
func TestWebhookNeverSendsAnAgentItsOwnChangeOfAnyKind(t *testing.T) {
	r := newReceiver(t)
	f := webhookWorld(t, r)
	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": r.URL + "/pact"})
	require.NoError(t, err)
	var from int64
	require.NoError(t, f.DB.NewRaw(`SELECT max(seq) FROM pact_feed WHERE pact_id = ?`, id).Scan(context.Background(), &from))

	var want []int64
	for _, seq := range f.changeOfEveryFeedKind(t, id) {
		if seq > from {
			want = append(want, seq)
		}
	}
	var queued []int64
	require.NoError(t, f.DB.NewRaw(`SELECT f.seq FROM pact_sends s JOIN pact_feed f ON f.id = s.feed_id
		WHERE s.agent_id = 'bram' AND f.pact_id = ? ORDER BY f.seq`, id).Scan(context.Background(), &queued))
	require.Equal(t, want, queued, "a send is queued for bram for every change of others and none of his")

	var sent []int64
	for range want {
		ev := eventOf(t, r.next(t))
		require.NotEqual(t, "agent:bram", ev["actor"], "bram is sent his own change: %v", ev)
		require.NotEqual(t, "@bram", ev["seat"], "bram is sent his own change: %v", ev)
		sent = append(sent, int64(ev["id"].(float64)))
	}
	slices.Sort(sent)
	require.Equal(t, want, sent, "bram is sent every change of others, once")
}

func TestWebhookSwitchesOffAfterFiveFailuresAndWakes(t *testing.T) {
	r := newReceiver(t)
	f := webhookWorld(t, r, 20*time.Millisecond)
	id := f.pact(t)
	set := map[string]any{"mode": "webhook", "url": r.URL + "/pact", "secret": "whsec_" + strings.Repeat("QUJD", 8)}
	_, err := f.as("bram", pacts.ToolSetDelivery, clone(set))
	require.NoError(t, err)

	switchOff := func() {
		t.Helper()
		r.status.Store(http.StatusInternalServerError)
		for i := range 5 {
			_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "ping " + string(rune('a'+i))})
			require.NoError(t, err)
		}
		eventually(t, "bram's webhook is switched off", func() bool { return len(stuck(t, f)) == 1 })
	}
	switchOff()
	sentence := stuck(t, f)["bram"]
	require.Contains(t, sentence, "“Launch”", "which job")
	require.Contains(t, sentence, r.URL+"/pact", "which address")
	require.Contains(t, sentence, "Wake it", "what to do")
	var detail string
	require.NoError(t, f.DB.NewRaw(`SELECT detail FROM notifications WHERE kind = 'pact_stuck' AND human_id = 'ana' AND agent_id = 'bram'`).
		Scan(context.Background(), &detail), "bram's person hears of it")
	require.Equal(t, sentence, detail)
	job := ok(t, f.adm("ana", "GET", "/pacts", nil))["pacts"].([]any)[0].(map[string]any)
	require.Equal(t, true, job["stuck"], "the job's row says it is stuck")
	require.Equal(t, sentence, job["stuck_sentence"])
	require.Equal(t, []any{"bram"}, job["stuck_agents"], "whom Wake it takes")

	// Switched off, nothing more is queued for bram.
	drain(r)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "while off"})
	require.NoError(t, err)
	var queued int
	require.NoError(t, f.DB.NewRaw(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND sent_at IS NULL AND dead_at IS NULL`).
		Scan(context.Background(), &queued))
	require.Zero(t, queued)

	// Wake it, through the Admin API: vic is neither bram's person nor an approver.
	require.Equal(t, http.StatusForbidden, f.Admin("vic", http.MethodPost, "/agents/bram/pact-delivery/wake", "").Status)
	reply := f.Admin("ana", http.MethodPost, "/agents/bram/pact-delivery/wake", "")
	require.Equal(t, http.StatusOK, reply.Status, reply.Raw)
	require.Equal(t, true, reply.Body["woken"])
	require.Empty(t, stuck(t, f))
	job = ok(t, f.adm("ana", "GET", "/pacts", nil))["pacts"].([]any)[0].(map[string]any)
	require.Equal(t, false, job["stuck"])
	r.status.Store(http.StatusOK)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "after the wake"})
	require.NoError(t, err)
	require.Equal(t, "after the wake", eventOf(t, r.next(t))["excerpt"])

	// Wake it, by calling set_pact_delivery again.
	switchOff()
	drain(r)
	out, err := f.as("bram", pacts.ToolSetDelivery, clone(set))
	require.NoError(t, err)
	require.Equal(t, true, out["woken"])
	require.Nil(t, out["secret"], "a given secret is not shown back")
	r.status.Store(http.StatusOK)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "after the second wake"})
	require.NoError(t, err)
	require.Equal(t, "after the second wake", eventOf(t, r.next(t))["excerpt"])
}

func TestSetPactDeliveryRefusesNonPublicAddresses(t *testing.T) {
	host := webhookPlugin(t, map[string]string{}) // production: public addresses only
	f := setupWith(t, kerneltest.Options{}, pacts.Options{Notifiers: host})
	for _, u := range []string{"https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://[::1]/hook", "https://169.254.169.254/latest",
		"http://example.com/hook"} {
		_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": u})
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "%s: %v", u, err)
	}
	var n int
	require.NoError(t, f.DB.NewRaw(`SELECT count(*) FROM pact_delivery`).Scan(context.Background(), &n))
	require.Zero(t, n, "nothing was stored")
}

// stuck is pacts.StuckSentences of the default organization.
func stuck(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	m, err := pacts.StuckSentences(context.Background(), f.DB, "default")
	require.NoError(t, err)
	return m
}

// drain forgets what r received so far.
func drain(r *receiver) {
	for {
		select {
		case <-r.got:
		default:
			return
		}
	}
}

func clone(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// verifyWithStandardWebhooks has the official standardwebhooks npm library
// (pinned in plugins/notifier-webhook/testdata/interop) check each case:
// valid ones must verify with secret, the others must not. Without node
// the test fails, saying what to install.
func verifyWithStandardWebhooks(t *testing.T, secret string, cases []map[string]any) {
	t.Helper()
	dir := filepath.Join("..", "..", "plugins", "notifier-webhook", "testdata", "interop")
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is needed to check webhook signatures with the official standardwebhooks library; install Node.js 18+")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "standardwebhooks", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		require.NoError(t, err, "npm is needed to install the standardwebhooks library for this test")
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci in %s: %s", dir, out)
	}
	raw, err := json.Marshal(map[string]any{"secret": secret, "cases": cases})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "cases.json")
	require.NoError(t, os.WriteFile(file, raw, 0o600))
	cmd := exec.CommandContext(ctx, node, "verify.mjs", file)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the standardwebhooks library disagrees:\n%s", out)
	require.Equal(t, len(cases), strings.Count(string(out), "ok "), "every case was checked:\n%s", out)
}

// Only failures in a row count: a delivered event resets the count, so
// four failures, a success and four more leave the webhook on (PACT-012).
func TestASuccessfulDeliveryResetsTheFailureCount(t *testing.T) {
	r := newReceiver(t)
	f := webhookWorld(t, r, 20*time.Millisecond)
	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": r.URL + "/pact",
		"secret": "whsec_" + strings.Repeat("QUJD", 8)})
	require.NoError(t, err)
	failures := func() int { return f.Count(`SELECT failures FROM pact_delivery WHERE agent_id = 'bram'`) }
	fail4 := func(round string) {
		t.Helper()
		r.status.Store(http.StatusInternalServerError)
		for i := range 4 {
			_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": round + " " + string(rune('a'+i))})
			require.NoError(t, err)
		}
		eventually(t, "four failures in a row", func() bool { return failures() == 4 })
	}
	fail4("first")
	r.status.Store(http.StatusOK)
	_, err = f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "this one arrives"})
	require.NoError(t, err)
	eventually(t, "a delivery resets the count", func() bool { return failures() == 0 })
	fail4("second")
	require.Empty(t, stuck(t, f), "eight failures, but never five in a row")
}
