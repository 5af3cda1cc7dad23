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
		&pluginhost.Options{Dir: dir, BackoffMin: 50 * time.Millisecond, BackoffMax: 200 * time.Millisecond})
	require.NoError(t, err)
	host.Start()
	t.Cleanup(func() { _ = host.Close() })

	ctx := context.Background()
	w := newWorld(t)
	rcv := newWebhookReceiver(t)
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

	// Kill the plugin mid-delivery: only while rows are still unsent.
	killed := 0
	for killed < kills {
		time.Sleep(150 * time.Millisecond)
		if w.Count(`SELECT count(*) FROM notifications WHERE sent_at IS NULL`) == 0 {
			break
		}
		for _, s := range host.Status() {
			if s.Running && s.PID > 0 && syscall.Kill(s.PID, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	require.Positive(t, killed, "the plugin was killed while rows were unsent")

	eventually(t, 90*time.Second, func() bool {
		return w.Count(`SELECT count(*) FROM notifications WHERE sent_at IS NOT NULL`) == total
	}, "every notification is sent in the end")
	require.Zero(t, w.Count(`SELECT count(*) FROM notifications WHERE dead_at IS NOT NULL`), "none given up")
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
	t.Logf("scenario 4: %d notifications, %d plugin kills (%d starts), %d arrivals, %d duplicates (each with its notification's key)",
		total, killed, starts, received, duplicates)
}
