package pacts_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/pacts"
)

// heldWebhookWorld is webhookWorld with the module's options opts (its
// Notifiers set to the real webhook plugin, which may reach r) and no
// workers running: a test delivers with the module's DeliverDue itself.
func heldWebhookWorld(t *testing.T, r *receiver, opts pacts.Options) *fixture {
	opts.Notifiers = webhookPlugin(t, map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1", "SSL_CERT_FILE": r.caFile})
	return setupWith(t, kerneltest.Options{Events: true}, opts)
}

// hourTickWorld is webhookWorld with an idle worker that sleeps an hour
// unless woken: only a pact event or a due retry can make it deliver
// within a test.
func hourTickWorld(t *testing.T, r *receiver, retries ...time.Duration) *fixture {
	f := heldWebhookWorld(t, r, pacts.Options{Retries: retries, Tick: time.Hour})
	runWorkers(t, f)
	return f
}

// webhookOn starts a pact of wanda's with bram seated and bram's webhook
// pointing at r, and returns the pact's id.
func webhookOn(t *testing.T, f *fixture, r *receiver) string {
	t.Helper()
	id := f.pact(t)
	_, err := f.as("bram", pacts.ToolSetDelivery, map[string]any{"mode": "webhook", "url": r.URL + "/pact",
		"secret": "whsec_" + strings.Repeat("QUJD", 8)})
	require.NoError(t, err)
	return id
}

// The worker's safety tick is only a net: a post wakes it through its pact
// event, and a failed send is retried when its retry is due, not at the
// next tick. With the tick an hour long, both must still arrive.
func TestWebhookWorkerIsWokenByAPostAndByADueRetryNotByItsTick(t *testing.T) {
	r := newReceiver(t)
	f := hourTickWorld(t, r, 50*time.Millisecond)
	id := webhookOn(t, f, r)

	r.status.Store(http.StatusServiceUnavailable)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Woken by the post."})
	require.NoError(t, err)
	failed := r.nextNoneLost(t, f)
	require.Equal(t, "Woken by the post.", eventOf(t, failed)["excerpt"], "the post's pact event wakes the worker")
	r.status.Store(http.StatusOK)
	retried := r.nextNoneLost(t, f)
	require.Equal(t, failed.header.Get("webhook-id"), retried.header.Get("webhook-id"), "the retry, due after 50 ms, is sent")
	eventually(t, "the retry is settled as sent", func() bool {
		return f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND sent_at IS NOT NULL`) == 1
	})
}

// A worker whose only pending send is due in an hour sleeps until then (or
// until a pact event): it does not keep looking at the queue meanwhile. The
// count is of the worker's own query for its next due send, over the second
// after the failed attempt is settled: the look that follows the settle,
// and one for each wake still on its way (the setup's pact events, should
// the listener pass them on late; a reconnect of the listener, which wakes
// every waiter), are all it may make; a worker polling every 10 ms makes
// dozens. Slowness can only lower the count, never raise it.
func TestAnIdleWebhookWorkerDoesNotPollWhileItsOnlySendIsAnHourAway(t *testing.T) {
	r := newReceiver(t)
	f := hourTickWorld(t, r, time.Hour)
	id := webhookOn(t, f, r)

	r.status.Store(http.StatusInternalServerError)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Fails once."})
	require.NoError(t, err)
	r.nextNoneLost(t, f)
	eventually(t, "the failed attempt is put back for an hour", func() bool {
		return f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND attempts = 1 AND last_error IS NOT NULL
			AND lease_expires_at IS NULL AND next_attempt_at > now() + interval '50 minutes'`) == 1
	})

	looks, stop := watchLooks(t, f)
	<-time.After(time.Second) // a window to watch, not a wait for an outcome
	stop()
	require.LessOrEqual(t, looks.Load(), int64(5), "an idle worker looked for its next send %d times in a second", looks.Load())
	require.Zero(t, f.Count(`SELECT count(*) FROM pact_sends WHERE sent_at IS NOT NULL OR dead_at IS NOT NULL`), "the send still waits")
}

// DeliverDue is exported for callers that drive delivery themselves: one
// call sends every due send, one after another, and says how many it
// attempted; a second call then finds none.
func TestDeliverDueSendsEveryDueSendInOneCallAndCountsThem(t *testing.T) {
	r := newReceiver(t)
	f := heldWebhookWorld(t, r, pacts.Options{})
	id := webhookOn(t, f, r)
	bodies := []string{"one", "two", "three"}
	for _, b := range bodies {
		_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": b})
		require.NoError(t, err)
	}
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram'`), "a send is queued per post")

	n, err := f.mod.DeliverDue(context.Background())
	require.NoError(t, err)
	require.Equal(t, 3, n, "it attempted the three due sends")
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND sent_at IS NOT NULL`),
		"all three are sent by the one call")
	var got []string
	for range bodies {
		got = append(got, eventOf(t, r.next(t))["excerpt"].(string))
	}
	require.ElementsMatch(t, bodies, got)

	n, err = f.mod.DeliverDue(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "nothing is due any more")
}

// A send is tried once, then once more after each of Options.Retries: with
// two retries a receiver that always fails gets the same delivery three
// times before the send fails for good.
func TestAWebhookSendIsTriedOnceMoreThanItHasRetries(t *testing.T) {
	r := newReceiver(t)
	f := heldWebhookWorld(t, r, pacts.Options{Retries: []time.Duration{time.Millisecond, time.Millisecond}})
	id := webhookOn(t, f, r)
	r.status.Store(http.StatusInternalServerError)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Never accepted."})
	require.NoError(t, err)

	eventually(t, "the send fails for good", func() bool {
		_, err := f.mod.DeliverDue(context.Background())
		require.NoError(t, err)
		return f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND dead_at IS NOT NULL`) == 1
	})
	require.Equal(t, 3, f.Count(`SELECT attempts FROM pact_sends WHERE agent_id = 'bram'`), "the first try and two retries")
	ids := map[string]bool{}
	for range 3 {
		ids[r.next(t).header.Get("webhook-id")] = true
	}
	require.Len(t, ids, 1, "the same delivery three times")
	require.Empty(t, r.got, "and no fourth")
}

// A send queued for an agent whose seat is removed before it goes out is
// dropped, saying why, while the agent still hears other pacts: the feed
// row is no longer the agent's to hear, so nothing is posted.
func TestAWebhookSendForASeatRemovedMeanwhileIsDroppedSayingWhy(t *testing.T) {
	r := newReceiver(t)
	f := heldWebhookWorld(t, r, pacts.Options{})
	id := webhookOn(t, f, r)
	_, err := f.as("wanda", pacts.ToolPost, map[string]any{"pact_id": id, "body": "Before the removal."})
	require.NoError(t, err)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND sent_at IS NULL AND dead_at IS NULL`))
	ok(t, f.adm("ana", "POST", "/pacts/"+id+"/seats/@bram/remove", nil))

	_, err = f.mod.DeliverDue(context.Background())
	require.NoError(t, err)
	require.Zero(t, f.Count(`SELECT count(*) FROM pact_sends WHERE agent_id = 'bram' AND (sent_at IS NOT NULL OR dead_at IS NULL)`),
		"every send of bram's is dropped, none sent")
	var why string
	require.NoError(t, f.DB.NewRaw(`SELECT s.last_error FROM pact_sends s JOIN pact_feed p ON p.id = s.feed_id
		WHERE s.agent_id = 'bram' AND p.excerpt = 'Before the removal.'`).Scan(context.Background(), &why))
	require.Contains(t, why, "no longer sits in the pact")
	select {
	case d := <-r.got:
		t.Fatalf("a removed seat's webhook got %s", d.body)
	default:
	}
}
