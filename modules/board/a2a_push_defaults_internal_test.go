package board

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Options left zero take the push timings docs/a2a.md ("Push
// notifications") states: a failed post tried again after 5 seconds, 30
// seconds, 2 minutes and 10 minutes, a config leased for a minute while it
// is posted, the worker awake at least every 30 s, the "webhook"
// notifier, and an idle A2A stream's keepalive every 25 s ("Streams"). The retries are minutes long, so they are checked here rather
// than waited for; a value set in the options is kept.
func TestPushOptionsLeftZeroTakeTheDocumentedTimings(t *testing.T) {
	var o Options
	o.defaults()
	require.Equal(t, []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}, o.PushRetries)
	require.Equal(t, time.Minute, o.PushLease, "a config being posted is leased for a minute")
	require.Equal(t, 30*time.Second, o.PushTick, "the worker sleeps at most 30 s without a wake")
	require.Equal(t, "webhook", o.WebhookNotifier)
	require.Equal(t, 25*time.Second, o.StreamBeat, "an idle stream sends a keepalive every 25 s")

	set := Options{PushRetries: []time.Duration{time.Millisecond}, PushTick: time.Second, PushLease: 2 * time.Second, WebhookNotifier: "other", StreamBeat: time.Second}
	set.defaults()
	require.Equal(t, Options{PushRetries: []time.Duration{time.Millisecond}, PushTick: time.Second, PushLease: 2 * time.Second, WebhookNotifier: "other", StreamBeat: time.Second}, set)
}

// The push worker sleeps until the next config is due, at least 10 ms
// (never a tight loop over a config another board is claiming) and at
// most its tick; with none due, the tick.
func TestThePushWorkerSleepsUntilTheNextConfigWithinItsBounds(t *testing.T) {
	in := func(d time.Duration) *time.Duration { return &d }
	require.Equal(t, time.Minute, pushWait(time.Minute, nil))
	require.Equal(t, 10*time.Millisecond, pushWait(time.Minute, in(0)))
	require.Equal(t, 3*time.Second, pushWait(time.Minute, in(3*time.Second)))
	require.Equal(t, time.Minute, pushWait(time.Minute, in(time.Hour)))
}
