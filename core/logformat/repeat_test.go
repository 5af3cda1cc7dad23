package logformat_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logformat"
)

// at is an entry of a bundle: the chain's index in the board and the
// entry's position in it (from 1).
type at struct{ chain, pos int }

// bundleOf writes a bundle of b: its header and key, then each of lines
// (a logformat.SavedCheckpoint as a checkpoint line, an at as an entry
// line), then its trailer. Unlike bundle, it may repeat checkpoints, split
// a chain's entries, or put checkpoints after entries.
func (b *board) bundleOf(t testing.TB, lines ...any) []byte {
	t.Helper()
	var out bytes.Buffer
	w := logformat.NewWriter(&out)
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindHeader, Format: logformat.Format, Scope: "org:default"}))
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindKey, VerifierKey: b.vkey}))
	entries := int64(0)
	for _, l := range lines {
		switch l := l.(type) {
		case logformat.SavedCheckpoint:
			require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: l.ChainKey, Note: l.Note}))
		case at:
			c := b.chains[l.chain]
			require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEntry, ChainKey: c.key, Entry: c.entries[l.pos-1]}))
			entries++
		default:
			t.Fatalf("bundleOf: a %T", l)
		}
	}
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEnd, Entries: entries, Chains: int64(len(b.chains))}))
	require.NoError(t, w.Flush())
	return out.Bytes()
}

// lines joins checkpoints and entries into bundleOf's lines.
func lines[C logformat.SavedCheckpoint | at](parts ...[]C) []any {
	var out []any
	for _, p := range parts {
		for _, x := range p {
			out = append(out, x)
		}
	}
	return out
}

// inOrder is every entry of b, chain by chain.
func (b *board) inOrder() []at {
	var out []at
	for i, c := range b.chains {
		for p := range c.entries {
			out = append(out, at{i, p + 1})
		}
	}
	return out
}

func repeated(cp logformat.SavedCheckpoint, k int) []logformat.SavedCheckpoint {
	out := make([]logformat.SavedCheckpoint, k)
	for i := range out {
		out[i] = cp
	}
	return out
}

// twoChains is a board with chains web (n entries) and org-default (n).
func twoChains(t testing.TB, n int) *board {
	b := newBoard(t, 7, "web", "org-default")
	for i := range n {
		b.chains[0].add(t, "pact_post", map[string]any{"title": fmt.Sprintf("task %d", i), "n": i})
		b.chains[1].add(t, "people.add", map[string]any{"id": fmt.Sprintf("p%d", i)})
	}
	return b
}

// SEC-021: a checkpoint repeated k times, in the bundle and among the saved
// ones, costs one signature check per distinct note and one comparison per
// checkpoint, whatever the number of entries: the work is linear in the
// bundle's lines. Repeats are accepted (a kept file may well repeat the
// bundle's own checkpoints) and each is held against the chain.
func TestRepeatedCheckpointsCostOneComparisonEach(t *testing.T) {
	const entries = 300
	b := twoChains(t, entries)
	one := b.checkpoint(t, 0, 100)
	last := b.checkpoint(t, 1, entries)
	for _, k := range []int{1, 500, 2000} {
		cps := append(repeated(one, k), last)
		saved := repeated(one, k)
		r, w, err := logformat.VerifyCounting(bytes.NewReader(b.bundleOf(t, append(lines(cps), lines(b.inOrder())...)...)),
			logformat.Options{Keys: []string{b.vkey}, Saved: saved})
		require.NoError(t, err)
		require.True(t, r.OK, "%+v", r.Problems)
		require.Equal(t, k+1, r.Checkpoints)
		require.Equal(t, k, r.Saved)
		require.EqualValues(t, 2, w.Signatures, "k=%d: one signature check per distinct note", k)
		require.EqualValues(t, 2*k+1, w.Comparisons, "k=%d: each checkpoint is held against its chain once, not at every entry", k)
	}
}

// SEC-021: a chain whose entries are split into many runs is reported, and
// its checkpoints are still compared once each, not once per run.
func TestASplitChainComparesEachCheckpointOnce(t *testing.T) {
	const entries, k = 200, 500
	b := twoChains(t, entries)
	var order []at
	for p := 1; p <= entries; p++ {
		order = append(order, at{0, p}, at{1, p})
	}
	cps := repeated(b.checkpoint(t, 0, entries), k)
	r, w, err := logformat.VerifyCounting(bytes.NewReader(b.bundleOf(t, append(lines(cps), lines(order)...)...)), logformat.Options{})
	require.NoError(t, err)
	require.False(t, r.OK)
	require.Contains(t, fmt.Sprint(r.Problems), "the chain's entries are not together")
	require.EqualValues(t, 1, w.Signatures)
	require.LessOrEqual(t, w.Comparisons, int64(k), "each checkpoint once, however many runs the chain is split into")
}

// SEC-021: checkpoints come before their chain's entries (as log-export
// writes them); one after them is reported, not silently left unchecked.
// One of a chain whose entries come later is checked as usual, and one of
// a chain the bundle holds no entry of says that entries are missing.
func TestACheckpointAfterItsChainsEntriesIsReported(t *testing.T) {
	b := twoChains(t, 10)
	all := b.inOrder()
	web, other := lines(all[:10]), lines(all[10:])
	early := b.checkpoint(t, 0, 10)
	verified := func(lines ...any) *logformat.Report {
		t.Helper()
		r, err := logformat.Verify(bytes.NewReader(b.bundleOf(t, lines...)), logformat.Options{})
		require.NoError(t, err)
		return r
	}
	r := verified(append(append(append([]any{early}, web...), b.checkpoint(t, 1, 5)), other...)...)
	require.True(t, r.OK, "a checkpoint before its own chain's entries: %+v", r.Problems)
	require.Equal(t, 2, r.Checkpoints)

	r = verified(append(append([]any{early}, append(web, other...)...), b.checkpoint(t, 0, 5))...)
	require.False(t, r.OK)
	require.Len(t, r.Problems, 1, "%+v", r.Problems)
	require.Equal(t, "web", r.Problems[0].ChainKey)
	require.Contains(t, r.Problems[0].Reason, "comes after the chain's entries")

	r = verified(append([]any{early, b.checkpoint(t, 1, 5)}, web...)...)
	require.False(t, r.OK)
	require.Len(t, r.Problems, 1, "%+v", r.Problems)
	require.Equal(t, "org-default", r.Problems[0].ChainKey)
	require.Contains(t, r.Problems[0].Reason, "the bundle holds none")
}
