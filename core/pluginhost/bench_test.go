package pluginhost_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/notifier"
)

// BenchmarkPluginCall measures one Deliver through the host to a plugin
// subprocess and back: the deadline, gRPC over AutoMTLS on a Unix socket,
// protobuf both ways, and the plugin's (empty) work. It reports the median
// and the 99th percentile.
func BenchmarkPluginCall(b *testing.B) {
	h, err := pluginhost.New([]pluginhost.Spec{{Name: "test", Kind: pluginhost.KindNotifier, Binary: testBin}},
		&pluginhost.Options{Dir: binDir})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = h.Close() }()
	h.Start()
	n, err := h.Notifier("test")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	d := notifier.Destination{URL: "https://example.test/hook", Options: map[string]string{"channel": "#ops"}}
	note := notifier.Notification{
		ID: "n1", IdempotencyKey: "n1-key", Kind: "approval_needed", Title: "Approval needed: deploy web",
		Detail: "Agent a1 asks to run the deploy", OrgID: "default", ProjectID: "web", TaskID: "t1", AgentID: "a1",
		Links: []notifier.Link{{Label: "Open task", URL: "https://ui.example.test/tasks/t1"}}, CreatedAt: time.Now(),
	}
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := n.Deliver(ctx, d, note); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
