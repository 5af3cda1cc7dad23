package events

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// BenchmarkWakeLatency measures commit → subscriber woken, through a real
// PostgreSQL: the clock starts just before COMMIT is sent.
func BenchmarkWakeLatency(b *testing.B) {
	d := pgtest.New(b)
	h := startHub(b, d, nil)
	s := h.Subscribe(forAgent("bench"))
	defer s.Close()
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		tx, err := d.BeginTx(ctx, nil)
		require.NoError(b, err)
		require.NoError(b, Publish(ctx, tx, Event{Kind: KindMessage, AgentID: "bench"}))
		start := time.Now()
		require.NoError(b, tx.Commit())
		select {
		case <-s.C():
			lat = append(lat, time.Since(start))
		case <-time.After(5 * time.Second):
			b.Fatal("no wake within 5 s")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 99).Microseconds()), "p99-µs")
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// BenchmarkIdleSubscribers reports the heap held by 1,000 idle subscribers.
func BenchmarkIdleSubscribers(b *testing.B) {
	const n = 1000
	h := NewHub(nil, nil)
	var per float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		subs := make([]*Subscription, n)
		for i := range subs {
			id := "agent"
			subs[i] = h.Subscribe(func(e Event) bool { return e.AgentID == id })
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = float64(after.HeapAlloc-before.HeapAlloc) / n
		for _, s := range subs {
			s.Close()
		}
	}
	b.ReportMetric(per, "bytes/subscriber")
}

// BenchmarkDispatch1000 is the cost of one event against 1,000 subscribers
// that do not want it: the listener's work per notification.
func BenchmarkDispatch1000(b *testing.B) {
	h := NewHub(nil, nil)
	for i := range 1000 {
		id := string(rune('a' + i%26))
		defer h.Subscribe(func(e Event) bool { return e.AgentID == id }).Close()
	}
	payload := `{"kind":"message","agent_id":"nobody"}`
	for b.Loop() {
		h.dispatch(payload)
	}
}
