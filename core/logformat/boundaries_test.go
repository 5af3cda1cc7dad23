package logformat_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/logformat"
)

// failingWriter refuses every write.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// A bundle line that the destination refuses is the Writer's error, not
// lost: a line longer than the Writer's buffer goes straight through, and
// every line after a failed one fails the same way.
func TestABundleLineTheDestinationRefusesIsWritesError(t *testing.T) {
	refused := errors.New("disk full")
	w := logformat.NewWriter(failingWriter{refused})
	long := logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: "web", Note: strings.Repeat("n", 70_000)}
	require.ErrorIs(t, w.Write(long), refused)
	require.ErrorIs(t, w.Write(logformat.Record{Kind: logformat.KindEnd}), refused)
	require.ErrorIs(t, w.Flush(), refused)
}

// C2SP tlog-checkpoint (docs/log-checkpoints.md, "The format"): the
// origin, the size and the root hash, then optional extension lines. A
// checkpoint of exactly those three lines, with no time line, is read (its
// time is zero); one of two lines is refused.
func TestACheckpointOfThreeLinesIsReadAndOfTwoIsRefused(t *testing.T) {
	head := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32))
	c, err := logformat.ParseCheckpoint("board.example/pact-log/web\n5\n" + head + "\n")
	require.NoError(t, err)
	require.Equal(t, logformat.Checkpoint{Origin: "board.example/pact-log/web", Size: 5, Head: strings.Repeat("ab", 32)}, c)
	require.True(t, c.Time.IsZero())

	_, err = logformat.ParseCheckpoint("board.example/pact-log/web\n5\n")
	require.ErrorContains(t, err, "at least three lines")
}

// BoardKeys (docs/log-checkpoints.md, "The format"): each key is named
// "<host of the public URL>/pact-log/<kid>", the origin is the host and
// "/pact-log/", the signer is the first kid's and the verifier keys are
// every kid's, in order. A URL with no host, an empty keyring and a seed of
// the wrong size are refused.
func TestBoardKeysNameEachKeyAfterThePublicURLsHost(t *testing.T) {
	seeds := map[string][]byte{"k2": bytes.Repeat([]byte{2}, 32), "k1": bytes.Repeat([]byte{1}, 32), "short": {1, 2, 3}}
	seed := func(kid string) []byte { return seeds[kid] }

	s, origin, vkeys, err := logformat.BoardKeys("https://board.example:8443/app", []string{"k2", "k1"}, seed)
	require.NoError(t, err)
	require.Equal(t, "board.example:8443/pact-log/", origin)
	require.Equal(t, "board.example:8443/pact-log/k2", s.Name(), "the first kid signs")
	require.Len(t, vkeys, 2)
	require.True(t, strings.HasPrefix(vkeys[0], "board.example:8443/pact-log/k2+"), vkeys[0])
	require.True(t, strings.HasPrefix(vkeys[1], "board.example:8443/pact-log/k1+"), vkeys[1])

	// What the signer signs opens with the verifier keys alone.
	trusted, err := logformat.Verifiers(vkeys...)
	require.NoError(t, err)
	want := logformat.Checkpoint{Origin: origin + "web", Size: 3, Head: strings.Repeat("cd", 32), Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	signed, err := logformat.Sign(want, s)
	require.NoError(t, err)
	got, err := logformat.Open(signed, trusted)
	require.NoError(t, err)
	require.True(t, got.Time.Equal(want.Time))
	got.Time = want.Time
	require.Equal(t, want, got)

	for name, url := range map[string]string{"no host": "/just/a/path", "unparsable": "http://[::1"} {
		_, _, _, err = logformat.BoardKeys(url, []string{"k1"}, seed)
		require.ErrorContains(t, err, "has no host", name)
	}
	_, _, _, err = logformat.BoardKeys("https://board.example", nil, seed)
	require.ErrorContains(t, err, "holds no key")
	_, _, _, err = logformat.BoardKeys("https://board.example", []string{"k1", "short"}, seed)
	require.ErrorContains(t, err, "32-byte Ed25519 seed")
}

// An entry's hash covers the canonical JSON of its fields
// (docs/canonical-json.md): Hashed writes by hand the bytes canon.Hash
// writes for the same fields as a map, a nil id as null and an empty one
// as "", the mandate chain's ids apart by commas, whatever their number.
func TestAnEntrysHashIsTheCanonicalJSONOfItsFields(t *testing.T) {
	opt := func(b []byte) any {
		if b == nil {
			return nil
		}
		return string(b)
	}
	when := time.Date(2026, 11, 30, 9, 0, 0, 123456000, time.UTC)
	for _, ids := range [][]byte{nil, {}, []byte("web")} {
		for _, chain := range [][][]byte{{}, {[]byte("m1")}, {[]byte("m1"), []byte("m2"), []byte("m3")}} {
			h := logformat.Hashed{ChainKey: []byte("web"), ProjectID: ids, TaskID: ids, AgentID: ids, Actor: []byte("agent:code-web"),
				MandateChain: chain, Action: []byte("pact_post"), PayloadHash: []byte(strings.Repeat("1", 64)), Outcome: []byte("ok"),
				At: when, PrevHash: []byte(logformat.Genesis)}
			mandates := []string{}
			for _, m := range chain {
				mandates = append(mandates, string(m))
			}
			want, err := canon.Hash(map[string]any{
				"chain_key": "web", "project_id": opt(ids), "task_id": opt(ids), "agent_id": opt(ids), "actor": "agent:code-web",
				"mandate_chain": mandates, "action": "pact_post", "payload_hash": strings.Repeat("1", 64), "outcome": "ok",
				"at": canon.ISO(when), "prev_hash": logformat.Genesis,
			})
			require.NoError(t, err)
			require.Equal(t, want, h.Sum(), "ids %q, mandate chain %q", ids, chain)
		}
	}
}

// headerAndKey is a bundle's first two lines.
func headerAndKey(t *testing.T, b *board) string {
	t.Helper()
	var out bytes.Buffer
	w := logformat.NewWriter(&out)
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindHeader, Format: logformat.Format, Scope: "org:default"}))
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindKey, VerifierKey: b.vkey}))
	require.NoError(t, w.Flush())
	return out.String()
}

// A bundle that cannot be read is an error naming the line where it
// cannot (pact-verify exits 2, docs/log-checkpoints.md): a line that is
// not JSON, a kind no bundle has, a reader that fails. Lines are counted
// across the batches the workers decode (512 lines each), so a line in
// the second batch or a later one is named by its number in the bundle.
func TestAnUnreadableBundleNamesTheLine(t *testing.T) {
	b := sample(t)
	start := headerAndKey(t, b)
	cp := b.checkpoint(t, 0, 5)
	var cpLine bytes.Buffer
	w := logformat.NewWriter(&cpLine)
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: cp.ChainKey, Note: cp.Note}))
	require.NoError(t, w.Flush())
	// upTo is the header, the key and checkpoints up to line n-1.
	upTo := func(n int) string { return start + strings.Repeat(cpLine.String(), n-3) }

	for _, n := range []int{3, 4, 512, 513, 1100} {
		_, err := logformat.Verify(strings.NewReader(upTo(n)+"{not json\n"+cpLine.String()), logformat.Options{})
		require.ErrorContains(t, err, fmt.Sprintf("bundle line %d: ", n), "not JSON at line %d", n)
		_, err = logformat.Verify(strings.NewReader(upTo(n)+`{"kind":"footnote"}`+"\n"+cpLine.String()), logformat.Options{})
		require.EqualError(t, err, fmt.Sprintf(`bundle line %d: unknown kind "footnote"`, n))
	}

	broken := errors.New("connection reset")
	_, err := logformat.Verify(io.MultiReader(strings.NewReader(upTo(5)), iotest.ErrReader(broken)), logformat.Options{})
	require.ErrorIs(t, err, broken)
	require.ErrorContains(t, err, "bundle line 5: ")
}

// Verify's report holds at most 100 problems (maxProblems, verify.go): a
// chain whose first entry is missing is wrong at every entry after, and
// the first problems say where.
func TestAReportHoldsAtMostAHundredProblems(t *testing.T) {
	b := newBoard(t, 7, "web")
	for i := range 102 {
		b.chains[0].add(t, "pact_post", map[string]any{"n": i})
	}
	var order []any
	for p := 2; p <= 102; p++ {
		order = append(order, at{0, p})
	}
	r := verify(t, b.bundleOf(t, order...), logformat.Options{})
	require.False(t, r.OK)
	require.Len(t, r.Problems, 100)
	require.Equal(t, "the entry says it is at position 2", r.Problems[0].Reason)
	require.Equal(t, "prev_hash does not match the previous entry", r.Problems[1].Reason)
	require.Equal(t, int64(99), r.Problems[99].Position)
}

// Options.Progress is told of every 10,000 entries checked, and of no
// other count; without it, a bundle of as many entries verifies the same.
func TestProgressIsToldOfEveryTenThousandEntries(t *testing.T) {
	const entries = 20_001
	b := newBoard(t, 7, "web")
	for i := range entries {
		b.chains[0].add(t, "pact_post", map[string]any{"n": i % 7})
	}
	bundle := b.bundle(t, 10_000, true)
	var told []int64
	r := verify(t, bundle, logformat.Options{Progress: func(n int64) { told = append(told, n) }})
	require.True(t, r.OK, "%+v", r.Problems)
	require.Equal(t, []int64{10_000, 20_000}, told)

	r = verify(t, bundle, logformat.Options{})
	require.True(t, r.OK, "%+v", r.Problems)
	require.Equal(t, int64(entries), r.Entries)
}

// SEC-021 (docs/log-checkpoints.md, "pact-verify"): a checkpoint that
// claims more entries than its chain holds is held once against the
// chain's end, and one of a chain the bundle holds no entry of once
// against its absence: one comparison each, however often it is repeated,
// and each repeat's identical problem is reported once.
func TestCheckpointsPastTheChainsEndOrOfNoChainCostOneComparisonEach(t *testing.T) {
	b := twoChains(t, 10)
	cps := append(repeated(b.checkpoint(t, 0, 10), 3), repeated(b.checkpoint(t, 1, 5), 2)...)
	var web []at
	for p := 1; p <= 8; p++ {
		web = append(web, at{0, p})
	}
	r, w, err := logformat.VerifyCounting(bytes.NewReader(b.bundleOf(t, append(lines(cps), lines(web)...)...)), logformat.Options{})
	require.NoError(t, err)
	require.False(t, r.OK)
	require.Len(t, r.Problems, 2, "%+v", r.Problems)
	require.Contains(t, r.Problems[0].Reason, "says the chain holds 10 entries; the bundle holds 8")
	require.Equal(t, "org-default", r.Problems[1].ChainKey)
	require.Contains(t, r.Problems[1].Reason, "the bundle holds none")
	require.EqualValues(t, 2, w.Signatures, "one per distinct note")
	require.EqualValues(t, 3+2, w.Comparisons, "each checkpoint once")
}
