package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run as `go test -bench` prints it, with logs between the results and a
// second count of the floor.
const run = `goos: linux
goarch: amd64
pkg: github.com/pactboard/pact/cmd/pact-board
BenchmarkMCPFloor/clients=1-2         	    1087	   2309242 ns/op	       433.0 calls/s	         1.605 p50-ms	         8.826 p99-ms
BenchmarkMCPFloor/clients=16-2        	    1442	   1651516 ns/op	       605.5 calls/s	        22.90 p50-ms	        80.54 p99-ms
BenchmarkMCPFloor/clients=16-2        	    1442	   1651516 ns/op	       595.5 calls/s	        22.90 p50-ms	        80.54 p99-ms
--- BENCH: BenchmarkMCPFloor
    bench_floor_test.go:1: a log line
BenchmarkMCPCalls/pact_whoami/clients=1-2   	     300	   7000000 ns/op	       130.0 calls/s	         6.700 p50-ms	        16.00 p99-ms
BenchmarkMCPCalls/pact_whoami/clients=16-2  	     500	   4000000 ns/op	       400.0 calls/s	        56.00 p50-ms	       119.0 p99-ms
BenchmarkMCPCalls/pact_list/clients=1-2     	     300	   7000000 ns/op	       600.0 calls/s	         1.500 p50-ms	        16.00 p99-ms
BenchmarkMCPCalls/pact_post/clients=16-2    	     500	   4000000 ns/op	       180.0 calls/s	        80.00 p50-ms	       130.0 p99-ms
BenchmarkPgbenchPost/clients=16-2   	       1	        39.45 latency-avg-ms	       400.0 tx/s
PASS
ok  	github.com/pactboard/pact/cmd/pact-board	42.1s
`

func TestParseReadsEveryMetricAndTakesTheMedian(t *testing.T) {
	r, err := parse(strings.NewReader(run))
	require.NoError(t, err)
	v, ok := r.get("BenchmarkMCPFloor/clients=16", "calls/s")
	require.True(t, ok)
	require.InDelta(t, 600.5, v, 1e-9, "the median of two counts")
	v, ok = r.get("BenchmarkPgbenchPost/clients=16", "tx/s")
	require.True(t, ok)
	require.InDelta(t, 400.0, v, 1e-9)
	_, ok = r.get("BenchmarkPgbenchClaim/clients=16", "tx/s")
	require.False(t, ok)
	require.NotContains(t, r, "BenchmarkMCPFloor", "a name line without results is no result")
}

func TestReportShowsRatiosGoalsAndWhatWasNotRun(t *testing.T) {
	r, err := parse(strings.NewReader(run))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, report(&out, r))
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] += l + "\n" // the latency table repeats the tool names
		}
	}
	require.Regexp(t, `pact_whoami\s+400\s+go-sdk floor\s+600\s+0\.67\s+met`, lines["pact_whoami"])
	require.Regexp(t, `pact_post\s+180\s+pgbench post\s+400\s+0\.45\s+missed`, lines["pact_post"])
	require.Regexp(t, `pact_post\s+180\s+pgbench post, no lock\s+-\s+-\s+not run`, lines["pact_post"])
	require.Regexp(t, `pact_list\s+-\s+go-sdk floor\s+600\s+-\s+not run`, lines["pact_list"])
	require.Regexp(t, `pact_claim\s+-\s+pgbench claim\s+-\s+-\s+not run`, lines["pact_claim"])
	require.Regexp(t, `pact_whoami\s+6\.70\s+go-sdk floor\s+1\.60\s+missed`, lines["pact_whoami"])
	require.Regexp(t, `pact_list\s+1\.50\s+go-sdk floor\s+1\.60\s+met`, lines["pact_list"])
	require.Regexp(t, `pact_post\s+-\s+go-sdk floor\s+1\.60\s+not run`, lines["pact_post"])
}
