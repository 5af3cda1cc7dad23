package notify_test

import (
	"context"
	"encoding/base64"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/modules/notify"
)

// buildWebhookPlugin builds the real notifier-webhook plugin into dir.
func buildWebhookPlugin(tb testing.TB, dir string) {
	tb.Helper()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(tb, err, "%s", out)
}

// TestAKilledNotifierPluginLosesNoNotification is issue #16's scenario 4:
// the real notifier-webhook plugin is killed with SIGKILL again and again
// while four workers deliver a load through it. Every notification still
// reaches the receiver, and a notification delivered more than once always
// arrives with the same idempotency key (webhook-id), so the receiver can
// drop the repeats: at-least-once with stable ids (REL-030).
func TestAKilledNotifierPluginLosesNoNotification(t *testing.T) {
	const total, kills = 200, 5
	dir := t.TempDir()
	buildWebhookPlugin(t, dir)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook",
		Env: map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1"}}},
		&pluginhost.Options{Dir: dir, BackoffMin: 200 * time.Millisecond, BackoffMax: 400 * time.Millisecond})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })

	ctx := context.Background()
	w := newWorld(t)
	// Each delivery takes 20 ms at the receiver, so the load (200 / 4
	// workers) lasts over a second and every kill lands mid-delivery.
	rcv := newSlowWebhookReceiver(t, 20*time.Millisecond)
	svc := notify.NewService(w.DB, nil, &notify.Options{Notifiers: host, Seal: seal.New(w.Mandates.Keys())})
	_, err = svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: rcv.URL,
		Secret: "whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 32))})
	require.NoError(t, err)
	enqueueMany(t, w.DB, total)

	// The receiver counts every arrival by its webhook-id.
	var mu sync.Mutex
	arrivals := map[string]int{}
	received := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for received < total*3 {
			select {
			case id := <-rcv.arrive:
				mu.Lock()
				arrivals[id]++
				received++
				mu.Unlock()
			case <-time.After(5 * time.Second):
				return // quiet: everything that will arrive has
			}
		}
	}()

	p := startProcess(w, map[string]string{}, notify.Options{Notifiers: host, Workers: 4,
		RetryBase: 50 * time.Millisecond, MaxAttempts: 100, Lease: 2 * time.Second})
	defer p.Stop()

	// Kill the plugin mid-delivery: only while rows are still unsent. The
	// backoff (200 ms at least) leaves the plugin down after each kill, so
	// workers meet both failures: calls cut off in flight, and calls
	// refused unavailable while the plugin waits to restart.
	killed := 0
	for killed < kills {
		time.Sleep(100 * time.Millisecond)
		if w.Count(`SELECT count(*) FROM notifications WHERE sent_at IS NULL`) == 0 {
			break
		}
		for _, s := range host.Status() {
			if s.Running && s.PID > 0 && syscall.Kill(s.PID, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	require.Equal(t, kills, killed, "the plugin was killed %d times while rows were unsent", kills)

	// A row's longest wait, after the kills, is a lease (2 s) or a backoff
	// of a few attempts: 15 s in which none settles is a delivery that
	// never concludes.
	fallsToZero(t, 90*time.Second, 15*time.Second, func() int {
		return w.Count(`SELECT count(*) FROM notifications WHERE sent_at IS NULL AND dead_at IS NULL`)
	}, "every notification is settled in the end")
	require.Zero(t, w.Count(`SELECT count(*) FROM notifications WHERE dead_at IS NOT NULL`), "none given up")
	require.Equal(t, total, w.Count(`SELECT count(*) FROM notifications WHERE sent_at IS NOT NULL`), "every notification is sent")
	retried := w.Count(`SELECT count(*) FROM notifications WHERE attempts > 1`)
	require.Positive(t, retried, "some deliveries failed on a killed or restarting plugin and were tried again")
	<-done

	var keys []string
	require.NoError(t, w.DB.NewRaw(`SELECT idempotency_key FROM notifications`).Scan(ctx, &keys))
	mu.Lock()
	defer mu.Unlock()
	duplicates := received - len(arrivals)
	for _, k := range keys {
		require.Positive(t, arrivals[k], "notification %s reached the receiver", k)
	}
	require.Len(t, arrivals, total, "every arrival carries the key of a notification, and no other key")
	starts := host.Status()[0].Starts
	t.Logf("scenario 4: %d notifications, %d plugin kills (%d starts), %d retried, %d arrivals, %d duplicates (each with its notification's key)",
		total, killed, starts, retried, received, duplicates)
}
