package notify_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/pactboard/pact/modules/notify"
)

// BenchmarkDelivery measures outbox deliveries per second, from due rows to
// a local HTTP receiver through a notifier that POSTs each one, with one and
// with four workers in one board process. Each row is a claim under a lease,
// a POST, and a mark.
func BenchmarkDelivery(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			w := newWorld(b)
			d := w.DB
			rcv := newReceiver(b)
			enqueueMany(b, d, b.N)

			b.ResetTimer()
			start := time.Now()
			p := startProcess(w, map[string]string{"PACT_SLACK_WEBHOOK_URL": rcv.URL + "/slack"},
				notify.Options{Notifiers: plugins{"slack": &poster{client: rcv.Client()}}, Workers: workers})
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
