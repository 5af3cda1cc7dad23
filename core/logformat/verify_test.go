package logformat_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/mod/sumdb/note"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/logformat"
)

// chainBuilder makes a chain's entries as the board would: each hashed
// over its fields and the one before.
type chainBuilder struct {
	key     string
	entries []*logformat.Entry
	at      time.Time
	nextID  *int64
}

func (c *chainBuilder) add(t testing.TB, action string, payload map[string]any) {
	t.Helper()
	raw, err := json.Marshal(payload)
	require.NoError(t, err)
	ph, err := canon.Hash(payload)
	require.NoError(t, err)
	*c.nextID++
	prev := logformat.Genesis
	if n := len(c.entries); n > 0 {
		prev = c.entries[n-1].Hash
	}
	project := c.key
	e := &logformat.Entry{Position: int64(len(c.entries) + 1), ID: *c.nextID, OrgID: "default", ProjectID: &project,
		Actor: "agent:code-web", MandateChain: []string{"6f1c3a52-8c5e-4f7a-9a53-3b0f8d1e2a44"}, Action: action,
		PayloadHash: ph, Outcome: "ok", At: canon.ISO(c.at.Add(time.Duration(*c.nextID) * time.Millisecond)), PrevHash: prev,
		Payload: raw}
	e.Hash = rehash(t, c.key, e)
	c.entries = append(c.entries, e)
}

// rehash is e's hash as the board computes it.
func rehash(t testing.TB, chain string, e *logformat.Entry) string {
	at, err := time.Parse(time.RFC3339Nano, e.At)
	require.NoError(t, err)
	h := logformat.Hashed{ChainKey: []byte(chain), Actor: []byte(e.Actor), Action: []byte(e.Action),
		PayloadHash: []byte(e.PayloadHash), Outcome: []byte(e.Outcome), At: at, PrevHash: []byte(e.PrevHash)}
	if e.ProjectID != nil {
		h.ProjectID = []byte(*e.ProjectID)
	}
	for _, m := range e.MandateChain {
		h.MandateChain = append(h.MandateChain, []byte(m))
	}
	return h.Sum()
}

// board is a signer and the chains it signs checkpoints of.
type board struct {
	signer note.Signer
	vkey   string
	chains []*chainBuilder
	nextID int64
}

func newBoard(t testing.TB, seedByte byte, chains ...string) *board {
	seed := bytes.Repeat([]byte{seedByte}, 32)
	s, vkey, err := logformat.NewSigner("board.example/pact-log/derived-1", seed)
	require.NoError(t, err)
	b := &board{signer: s, vkey: vkey}
	for _, k := range chains {
		b.chains = append(b.chains, &chainBuilder{key: k, at: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), nextID: &b.nextID})
	}
	return b
}

// checkpoint signs chain i's checkpoint at size n.
func (b *board) checkpoint(t testing.TB, i int, n int64) logformat.SavedCheckpoint {
	c := b.chains[i]
	note, err := logformat.Sign(logformat.Checkpoint{Origin: "board.example/pact-log/" + c.key, Size: n,
		Head: c.entries[n-1].Hash, Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}, b.signer)
	require.NoError(t, err)
	return logformat.SavedCheckpoint{ChainKey: c.key, Note: note}
}

// bundle writes every chain with a checkpoint at each size in every.
func (b *board) bundle(t testing.TB, every int64, trailer bool) []byte {
	var out bytes.Buffer
	w := logformat.NewWriter(&out)
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindHeader, Format: logformat.Format, Scope: "org:default"}))
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindKey, VerifierKey: b.vkey}))
	total := int64(0)
	for i, c := range b.chains {
		for n := every; n <= int64(len(c.entries)); n += every {
			cp := b.checkpoint(t, i, n)
			require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindCheckpoint, ChainKey: cp.ChainKey, Note: cp.Note}))
		}
	}
	for _, c := range b.chains {
		for _, e := range c.entries {
			require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEntry, ChainKey: c.key, Entry: e}))
			total++
		}
	}
	if trailer {
		require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEnd, Entries: total, Chains: int64(len(b.chains))}))
	}
	require.NoError(t, w.Flush())
	return out.Bytes()
}

func (b *board) chainsAt() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

func sample(t testing.TB) *board {
	b := newBoard(t, 7, "web", "org-default")
	for i := range 10 {
		b.chains[0].add(t, "pact_post", map[string]any{"title": fmt.Sprintf("task %d", i), "n": i})
		if i%3 == 0 {
			b.chains[1].add(t, "people.add", map[string]any{"id": fmt.Sprintf("p%d", i)})
		}
	}
	return b
}

func verify(t testing.TB, bundle []byte, o logformat.Options) *logformat.Report {
	t.Helper()
	r, err := logformat.Verify(bytes.NewReader(bundle), o)
	require.NoError(t, err)
	return r
}

func TestAWholeBundleVerifies(t *testing.T) {
	b := sample(t)
	r := verify(t, b.bundle(t, 2, true), logformat.Options{Keys: []string{b.vkey}})
	require.True(t, r.OK, "%+v", r.Problems)
	require.Equal(t, int64(14), r.Entries)
	require.Equal(t, 2, r.Chains)
	require.Equal(t, 5+2, r.Checkpoints)
	require.True(t, r.KeysPinned)
}

func TestAnErasedPayloadStillVerifies(t *testing.T) {
	b := sample(t)
	e := b.chains[0].entries[4]
	e.Payload, e.Erased = nil, true
	r := verify(t, b.bundle(t, 5, true), logformat.Options{})
	require.True(t, r.OK, "%+v", r.Problems)
	require.Equal(t, int64(1), r.Erased)
	require.False(t, r.KeysPinned)
}

func TestEachKindOfDamageIsReportedWhereItIs(t *testing.T) {
	cases := map[string]struct {
		damage func(b *board)
		every  int64
		want   string
		pos    int64
	}{
		"a changed payload": {func(b *board) { b.chains[0].entries[3].Payload = json.RawMessage(`{"n":3,"title":"changed"}`) },
			5, "payload does not match payload_hash", 4},
		"a changed field": {func(b *board) { b.chains[0].entries[6].Outcome = "refused" }, 5, "entry contents do not match its hash", 7},
		"a removed entry": {func(b *board) { c := b.chains[0]; c.entries = append(c.entries[:2], c.entries[3:]...) },
			100, "the entry says it is at position 4", 3},
		"an erased payload kept": {func(b *board) { b.chains[0].entries[1].Erased = true }, 5, "an erased payload is present", 2},
		"a removed entry, the positions renumbered": {func(b *board) {
			c := b.chains[0]
			c.entries = append(c.entries[:2], c.entries[3:]...)
			for i, e := range c.entries {
				e.Position = int64(i + 1)
			}
		}, 100, "prev_hash does not match the previous entry", 3},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := sample(t)
			bundle := b.bundle(t, tc.every, true)
			tc.damage(b)
			if tc.every == 100 { // no checkpoint: the damage alone must show
				bundle = b.bundle(t, tc.every, true)
			} else {
				bundle = rewriteEntries(t, bundle, b)
			}
			r := verify(t, bundle, logformat.Options{Keys: []string{b.vkey}})
			require.False(t, r.OK)
			require.Equal(t, tc.want, r.Problems[0].Reason, "%+v", r.Problems)
			require.Equal(t, tc.pos, r.Problems[0].Position)
			require.Equal(t, "web", r.Problems[0].ChainKey)
		})
	}
}

// rewriteEntries keeps bundle's checkpoints (signed before the damage) and
// writes b's entries as they are now.
func rewriteEntries(t testing.TB, bundle []byte, b *board) []byte {
	var keep []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(bundle)), "\n") {
		if !strings.Contains(l, `"kind":"entry"`) && !strings.Contains(l, `"kind":"end"`) {
			keep = append(keep, l)
		}
	}
	var out bytes.Buffer
	out.WriteString(strings.Join(keep, "\n") + "\n")
	w := logformat.NewWriter(&out)
	n := int64(0)
	for _, c := range b.chains {
		for _, e := range c.entries {
			require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEntry, ChainKey: c.key, Entry: e}))
			n++
		}
	}
	require.NoError(t, w.Write(logformat.Record{Kind: logformat.KindEnd, Entries: n}))
	require.NoError(t, w.Flush())
	return out.Bytes()
}

// The attack checkpoints exist for: whoever holds the database and the
// board's key rewrites entry 4 of a chain, recomputes every later hash and
// signs new checkpoints. The bundle then agrees with itself; a checkpoint
// kept from before names the rewrite, and as many kept checkpoints as
// there were entries name the very entry.
func TestASavedCheckpointExposesARewriteWithItsFirstEntry(t *testing.T) {
	b := sample(t)
	var saved []logformat.SavedCheckpoint
	for n := int64(1); n <= 10; n++ {
		saved = append(saved, b.checkpoint(t, 0, n))
	}
	c := b.chains[0]
	c.entries[3].Payload = json.RawMessage(`{"n":3,"title":"rewritten"}`)
	c.entries[3].PayloadHash = hashOf(t, c.entries[3].Payload)
	for i := 3; i < len(c.entries); i++ {
		if i > 0 {
			c.entries[i].PrevHash = c.entries[i-1].Hash
		}
		c.entries[i].Hash = rehash(t, c.key, c.entries[i])
	}
	forged := b.bundle(t, 1, true)
	require.True(t, verify(t, forged, logformat.Options{Keys: []string{b.vkey}}).OK, "the forged bundle agrees with itself")

	r := verify(t, forged, logformat.Options{Keys: []string{b.vkey}, Saved: saved[9:]})
	require.False(t, r.OK)
	require.Contains(t, r.Problems[0].Reason, "rewritten:")
	require.Contains(t, r.Problems[0].Reason, "between position 1 (entry 1) and position 10")

	r = verify(t, forged, logformat.Options{Keys: []string{b.vkey}, Saved: saved})
	require.False(t, r.OK)
	require.Equal(t, int64(4), r.Problems[0].Position)
	require.Equal(t, c.entries[3].ID, r.Problems[0].EntryID)
	require.Contains(t, r.Problems[0].Reason, fmt.Sprintf("the first entry that differs is entry %d (position 4)", c.entries[3].ID))
}

func hashOf(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	h, err := canon.Hash(v)
	require.NoError(t, err)
	return h
}

func TestACutOffBundleAndMissingEntriesAreReported(t *testing.T) {
	b := sample(t)
	r := verify(t, b.bundle(t, 5, false), logformat.Options{})
	require.False(t, r.OK)
	require.Contains(t, r.Problems[len(r.Problems)-1].Reason, "cut off")

	saved := b.checkpoint(t, 0, 10)
	b.chains[0].entries = b.chains[0].entries[:8]
	r = verify(t, b.bundle(t, 4, true), logformat.Options{Saved: []logformat.SavedCheckpoint{saved}})
	require.False(t, r.OK)
	require.Contains(t, r.Problems[0].Reason, "says the chain holds 10 entries; the bundle holds 8")
}

func TestCheckpointsSignedByAnotherKeyAreRefused(t *testing.T) {
	b := sample(t)
	other := newBoard(t, 9)
	r := verify(t, b.bundle(t, 5, true), logformat.Options{Keys: []string{other.vkey}})
	require.False(t, r.OK)
	require.Contains(t, r.Problems[0].Reason, "signature does not verify")
	sum := sha256.Sum256([]byte(b.vkey))
	require.NotEqual(t, sum, sha256.Sum256([]byte(other.vkey)))
}

func TestACheckpointRoundTrips(t *testing.T) {
	c := logformat.Checkpoint{Origin: "board.example/pact-log/web", Size: 42, Head: strings.Repeat("ab", 32),
		Time: time.Date(2026, 12, 1, 3, 4, 5, 600, time.UTC)}
	text, err := c.Text()
	require.NoError(t, err)
	require.Equal(t, "board.example/pact-log/web\n42\nq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=\ntime 2026-12-01T03:04:05.0000006Z\n", text)
	back, err := logformat.ParseCheckpoint(text)
	require.NoError(t, err)
	require.True(t, back.Time.Equal(c.Time))
	back.Time = c.Time
	require.Equal(t, c, back)
}
