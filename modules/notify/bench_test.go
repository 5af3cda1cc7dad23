package notify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/modules/notify"
)

// BenchmarkDelivery measures outbox deliveries per second, from due rows to
// a local HTTP receiver through a notifier that POSTs each one, with one and
// with four workers in one board process. Each row is a claim under a lease,
// a POST, and a mark.
func BenchmarkDelivery(b *testing.B) {
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			dsn := pgtest.NewDSN(b)
			d, err := db.Open(ctx, dsn)
			require.NoError(b, err)
			b.Cleanup(d.Close)
			seed(b, d)
			rcv := newReceiver(b)
			_, err = d.ExecContext(ctx, `INSERT INTO notifications (org_id, kind, project_id, title)
				SELECT 'default', 'message', 'web', 'message ' || g FROM generate_series(1, ?) g`, b.N)
			require.NoError(b, err)

			b.ResetTimer()
			start := time.Now()
			p := startProcess(b, dsn, map[string]string{"PACT_SLACK_WEBHOOK_URL": rcv.URL + "/slack"},
				notify.Options{Notifiers: plugins{"slack": &poster{client: rcv.Client()}}, Workers: workers})
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
