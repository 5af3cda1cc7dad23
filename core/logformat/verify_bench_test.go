package logformat_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logformat"
)

// BenchmarkVerifyMillionEntries verifies a bundle of 1,000,000 entries in
// 10 chains with a checkpoint every 1,000 (issue #17: under 10 s on this
// machine, in constant memory). It reports the peak live heap seen while
// verifying, sampled every 10,000 entries, beside the bundle's size.
func BenchmarkVerifyMillionEntries(b *testing.B) {
	const chains, perChain = 10, 100_000
	brd := newBoard(b, 3)
	for i := range chains {
		brd.chains = append(brd.chains, &chainBuilder{key: fmt.Sprintf("project-%d", i), at: brd.chainsAt(), nextID: &brd.nextID})
	}
	for _, c := range brd.chains {
		for j := range perChain {
			c.add(b, "pact_post", map[string]any{"title": "a task of the benchmark", "body": "what to do, in a sentence or two", "n": j % 7})
		}
	}
	path := filepath.Join(b.TempDir(), "bundle.jsonl")
	require.NoError(b, os.WriteFile(path, brd.bundle(b, 1000, true), 0o600))
	brd = nil
	info, err := os.Stat(path)
	require.NoError(b, err)
	runtime.GC()
	var peak uint64
	sample := func(int64) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	// The reference, measured in the same run: reading the file and hashing
	// every byte of it once with SHA-256, the least any verifier must do.
	refStart := cpu()
	raw, err := os.ReadFile(path)
	require.NoError(b, err)
	_ = sha256.Sum256(raw)
	ref := cpu() - refStart
	raw = nil
	runtime.GC()
	b.ResetTimer()
	cpuStart := cpu()
	for b.Loop() {
		f, err := os.Open(path)
		require.NoError(b, err)
		r, err := logformat.Verify(f, logformat.Options{Progress: sample})
		f.Close()
		require.NoError(b, err)
		require.True(b, r.OK, "%+v", r.Problems)
		require.Equal(b, int64(chains*perChain), r.Entries)
	}
	// CPU seconds tell what wall time cannot on a shared machine: with two
	// cores free, the wall time is about half of them.
	b.ReportMetric((cpu()-cpuStart).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(ref.Seconds(), "ref-sha256-cpu-s")
	b.ReportMetric(float64(info.Size())/1e6, "bundle-MB")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
}

// BenchmarkVerifyRepeatedCheckpoints verifies a bundle of one chain of
// 10,000 entries whose one valid checkpoint is repeated 40,000 times
// (issue 29, finding 7: 9.6 s at K = 40,000 before the fix, which held
// every checkpoint against every entry). Each copy is now held once against
// the chain, and the note's signature checked once (SEC-021).
func BenchmarkVerifyRepeatedCheckpoints(b *testing.B) {
	const entries, k = 10_000, 40_000
	brd := newBoard(b, 3, "web")
	for j := range entries {
		brd.chains[0].add(b, "pact_post", map[string]any{"title": "a task of the benchmark", "n": j % 7})
	}
	cp := brd.checkpoint(b, 0, entries/2)
	var out bytes.Buffer
	w := logformat.NewWriter(&out)
	require.NoError(b, w.Write(logformat.Record{Kind: logformat.KindHeader, Format: logformat.Format, Scope: "org:default"}))
	require.NoError(b, w.Write(logformat.Record{Kind: logformat.KindKey, VerifierKey: brd.vkey}))
	for range k {
		require.NoError(b, w.Write(logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: cp.ChainKey, Note: cp.Note}))
	}
	for _, e := range brd.chains[0].entries {
		require.NoError(b, w.Write(logformat.Record{Kind: logformat.KindEntry, ChainKey: "web", Entry: e}))
	}
	require.NoError(b, w.Write(logformat.Record{Kind: logformat.KindEnd, Entries: entries, Chains: 1}))
	require.NoError(b, w.Flush())
	bundle := out.Bytes()
	b.ResetTimer()
	for b.Loop() {
		r, err := logformat.Verify(bytes.NewReader(bundle), logformat.Options{})
		require.NoError(b, err)
		require.True(b, r.OK, "%+v", r.Problems)
		require.Equal(b, k, r.Checkpoints)
	}
	b.ReportMetric(float64(len(bundle))/1e6, "bundle-MB")
}
