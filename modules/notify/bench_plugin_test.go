package notify_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/modules/notify"
)

// BenchmarkDeliveryThroughWebhookPlugin is BenchmarkDelivery through the
// real notifier-webhook plugin: each delivery is a claim under a lease, a
// gRPC call to the plugin subprocess, a signed HTTPS-less POST to a local
// receiver (private addresses allowed for the benchmark), and a mark.
func BenchmarkDeliveryThroughWebhookPlugin(b *testing.B) {
	dir := b.TempDir()
	buildWebhookPlugin(b, dir)
	host, err := pluginhost.New([]pluginhost.Spec{{Name: "webhook", Kind: "notifier", Binary: "notifier-webhook",
		Env: map[string]string{"PACT_WEBHOOK_ALLOW_PRIVATE": "1"}}}, &pluginhost.Options{Dir: dir})
	require.NoError(b, err)
	host.Start()
	b.Cleanup(func() { _ = host.Close() })

	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			w := newWorld(b)
			d := w.DB
			rcv := newWebhookReceiver(b)
			key := make([]byte, 32)
			_, _ = rand.Read(key)
			svc := notify.NewService(d, nil, &notify.Options{Notifiers: host, Seal: seal.New(w.Mandates.Keys())})
			_, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: rcv.URL,
				Secret: "whsec_" + base64.StdEncoding.EncodeToString(key)})
			require.NoError(b, err)
			enqueueMany(b, d, b.N)

			b.ResetTimer()
			start := time.Now()
			p := startProcess(w, map[string]string{}, notify.Options{Notifiers: host, Workers: workers})
			for range b.N {
				<-rcv.arrive
			}
			elapsed := time.Since(start)
			b.StopTimer()
			p.Stop()
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
func newWebhookReceiver(b testing.TB) *webhookReceiver { return newSlowWebhookReceiver(b, 0) }

// newSlowWebhookReceiver is newWebhookReceiver taking delay to answer each
// delivery, so that a load lasts long enough to be interrupted.
func newSlowWebhookReceiver(b testing.TB, delay time.Duration) *webhookReceiver {
	r := &webhookReceiver{arrive: make(chan string, 100000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		time.Sleep(delay)
		r.arrive <- req.Header.Get("webhook-id")
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(r.Close)
	return r
}
