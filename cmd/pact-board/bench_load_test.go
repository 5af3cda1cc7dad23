package main

// The client side of the MCP benchmarks: one go-sdk session per agent and
// the loader that drives them. BenchmarkMCPCalls and its reference,
// BenchmarkMCPFloor, both go through loadCalls, so a difference between
// their figures is the server's and never the client's (docs/benchmarks.md,
// "References").

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentTransport is one agent's own HTTP client state (as each agent
// process would have), adding its bearer token to every request.
type agentTransport struct {
	token string
	base  *http.Transport
}

func (t agentTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// session connects a real go-sdk client as agent a, with its own transport.
func (bb *benchBoard) session(b testing.TB, a benchAgent) *mcp.ClientSession {
	b.Helper()
	return benchSession(b, bb.base, a)
}

// benchSession opens agent a's session at base/mcp/a/<id>, the board's URL
// shape, which the floor server serves too.
func benchSession(b testing.TB, base string, a benchAgent) *mcp.ClientSession {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-" + a.id, Version: "1"}, nil)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/a/" + a.id,
		HTTPClient: &http.Client{Transport: agentTransport{token: a.token, base: tr}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close(); tr.CloseIdleConnections() })
	return cs
}

// callTool makes one call and returns its JSON text; a refusal is an error.
func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%s: %d contents", name, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return text, &refusedError{tool: name, text: text}
	}
	return text, nil
}

type refusedError struct{ tool, text string }

func (e *refusedError) Error() string { return e.tool + " refused: " + e.text }

// loadCalls makes b.N calls from clients goroutines, each making its calls
// one after another as fast as answers come back; call(ctx, c, k) makes call
// number k (1 … b.N) as client c. Each call is timed at the client. It
// reports calls/s and the p50 and p99 latency; the first error stops its
// client and fails b.
func loadCalls(b *testing.B, clients int, call func(ctx context.Context, c, k int) error) {
	var next atomic.Int64
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			ctx := context.Background()
			for {
				k := int(next.Add(1))
				if k > b.N {
					return
				}
				t0 := time.Now()
				err := call(ctx, c, k)
				lat[c] = append(lat[c], time.Since(t0))
				if err != nil {
					errs[c] = err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	reportLatency(b, slices.Concat(lat...), "")
}

func latencyAt(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func inMS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// reportLatency reports p50 and p99 of lat (sorted in place) in ms.
func reportLatency(b *testing.B, lat []time.Duration, prefix string) {
	slices.Sort(lat)
	b.ReportMetric(inMS(latencyAt(lat, 50)), prefix+"p50-ms")
	b.ReportMetric(inMS(latencyAt(lat, 99)), prefix+"p99-ms")
}
