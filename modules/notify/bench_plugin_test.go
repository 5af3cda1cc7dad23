package notify_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/modules/notify"
)

// BenchmarkDeliveryThroughWebhookPlugin is BenchmarkDelivery through the
// real notifier-webhook plugin: each delivery is a claim under a lease, a
// gRPC call to the plugin subprocess, a signed HTTPS-less POST to a local
// receiver (private addresses allowed for the benchmark), and a mark.
func BenchmarkDeliveryThroughWebhookPlugin(b *testing.B) {
	dir := b.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "notifier-webhook"), "./plugins/notifier-webhook")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(b, err, "%s", out)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook",
		Env: map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1"}}}, &pluginhost.Options{Dir: dir})
	require.NoError(b, err)
	host.Start()
	b.Cleanup(func() { _ = host.Close() })

	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			dsn := pgtest.NewDSN(b)
			d, err := db.Open(ctx, dsn)
			require.NoError(b, err)
			b.Cleanup(d.Close)
			seed(b, d)
			rcv := newWebhookReceiver(b)
			key := make([]byte, 32)
			_, _ = rand.Read(key)
			_, err = d.ExecContext(ctx, `INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by)
				VALUES ('default', 'webhook', ?, ?, 'ana')`, rcv.URL, "whsec_"+base64.StdEncoding.EncodeToString(key))
			require.NoError(b, err)
			_, err = d.ExecContext(ctx, `INSERT INTO notifications (org_id, kind, project_id, title)
				SELECT 'default', 'message', 'web', 'message ' || g FROM generate_series(1, ?) g`, b.N)
			require.NoError(b, err)

			b.ResetTimer()
			start := time.Now()
			p := startProcess(b, dsn, map[string]string{}, notify.Options{Notifiers: host, Workers: workers})
			for range b.N {
				<-rcv.arrive
			}
			elapsed := time.Since(start)
			b.StopTimer()
			p.stop()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
		})
	}
}

type webhookReceiver struct {
	*httptest.Server
	arrive chan string
}

// newWebhookReceiver answers every delivery 204 and reports its webhook-id
// (the notification's idempotency key).
func newWebhookReceiver(b *testing.B) *webhookReceiver {
	r := &webhookReceiver{arrive: make(chan string, 100000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.arrive <- req.Header.Get("webhook-id")
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(r.Close)
	return r
}
