package pacts_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/modules/pacts"
)

// A person may pause or wake any seat from the console, but only a seat
// that exists and was not removed: pausing or waking a removed seat, or a
// key the pact never had, is refused as not found, and the pact's feed
// records nothing.
func TestAPersonPausingOrWakingARemovedOrUnknownSeatIsRefusedAsNotFound(t *testing.T) {
	f := setup(t)
	id := f.pact(t)
	ok(t, f.adm("ana", http.MethodPost, "/pacts/"+id+"/seats/@bram/remove", nil))
	feed := f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, id)

	for _, key := range []string{"@bram", "@nobody"} {
		for _, verb := range []string{"pause", "wake"} {
			msg := refused(t, f.adm("ana", http.MethodPost, "/pacts/"+id+"/seats/"+key+"/"+verb, nil), http.StatusNotFound, "not_found")
			require.Contains(t, msg, "has no seat "+key, "%s %s", verb, key)
		}
	}
	require.Equal(t, feed, f.Count(`SELECT count(*) FROM pact_feed WHERE pact_id = ?`, id), "a refused pause or wake adds nothing to the feed")
	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pact_seats WHERE pact_id = ? AND paused_at IS NOT NULL`, id), "no seat is paused")
}

// The webhook worker, having nothing pending, looks for its next due send
// and goes to sleep: that look succeeding with no send to find is the
// ordinary idle state, not a failure, so the worker keeps running (it is
// never restarted by the kernel, which logs each restart as an error). The
// second look, after a pact event wakes it, shows the first look's outcome
// was handled.
func TestAnIdleWebhookWorkerWithNothingPendingSleepsWithoutFailing(t *testing.T) {
	logs := &logtest.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Error})
	f := setupWith(t, kerneltest.Options{Events: true, Logger: logger}, pacts.Options{Tick: time.Hour})

	looks, _ := watchLooks(t, f)
	runWorkers(t, f)
	eventually(t, "the worker looks for its next send", func() bool { return looks.Load() >= 1 })
	f.pact(t)
	eventually(t, "a pact event wakes the worker and it looks again", func() bool { return looks.Load() >= 2 })

	require.Equal(t, 0, f.Count(`SELECT count(*) FROM pact_sends`), "nothing was pending")
	require.NotContains(t, logs.String(), "pacts.webhooks", "the webhook worker never failed")
}
