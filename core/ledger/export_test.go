package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logformat"
	"github.com/pactboard/pact/core/pgtest"
)

// readBundle decodes a bundle's lines.
func readBundle(t *testing.T, b []byte) []logformat.Record {
	t.Helper()
	var out []logformat.Record
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var r logformat.Record
		require.NoError(t, dec.Decode(&r))
		out = append(out, r)
	}
	return out
}

// bundleLines says what each record is, in a line that tests compare whole.
func bundleLines(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for _, r := range readBundle(t, b) {
		switch r.Kind {
		case logformat.KindHeader:
			out = append(out, fmt.Sprintf("header %s %s %s", r.Format, r.Scope, r.ExportedAt))
		case logformat.KindKey:
			out = append(out, "key "+r.VerifierKey)
		case logformat.KindCheckpoint:
			out = append(out, "checkpoint "+r.ChainKey)
		case logformat.KindEntry:
			require.NotNil(t, r.MandateChain, "no mandate chain is written as [], never null")
			out = append(out, fmt.Sprintf("entry %s %d %d %s %v", r.ChainKey, r.Position, r.ID, r.Action, r.MandateChain))
		case logformat.KindEnd:
			out = append(out, fmt.Sprintf("end %d entries %d chains", r.Entries, r.Chains))
		default:
			t.Fatalf("a record of kind %q", r.Kind)
		}
	}
	return out
}

// appendMany appends n entries to project's chain in one transaction.
func appendMany(t *testing.T, d *db.DB, l *ledger.Log, project string, n int) {
	t.Helper()
	require.NoError(t, d.InTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for i := range n {
			if _, err := l.Append(ctx, tx, ledger.Entry{ProjectID: project, Actor: "system", Action: "x", Payload: i}); err != nil {
				return err
			}
		}
		return nil
	}))
}

// An organization's bundle holds its chains alone: the header names it,
// then the keys, every checkpoint of its chains (by chain, then size),
// every entry of its chains (by chain, then position, with its mandate
// chain) and the trailer's counts, which Export returns too. A project's
// bundle holds that project's chain alone. Both verify.
func TestAnExportWritesItsScopesChainsCheckpointsAndEntries(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	l := ledger.New(&ledger.Options{Now: func() time.Time { return at }})
	cp, vkey := checkpointer(t, 1, time.Hour)
	take := func() {
		_, err := cp.Take(ctx, d, time.Now())
		require.NoError(t, err)
	}
	m1, m2 := uuid.MustParse("11111111-1111-4111-8111-111111111111"), uuid.MustParse("22222222-2222-4222-8222-222222222222")
	r1 := appendOne(t, d, l, ledger.Entry{ProjectID: "rocket", Actor: "agent:code-rocket", Action: "a", MandateChain: []uuid.UUID{m1, m2}})
	s1 := appendOne(t, d, l, ledger.Entry{OrgID: "acme", Actor: "system", Action: "s"})
	appendOne(t, d, l, ledger.Entry{ProjectID: "web", Actor: "human:ana", Action: "w"}) // another organization's
	take()
	r2 := appendOne(t, d, l, ledger.Entry{ProjectID: "rocket", Actor: "human:bo", Action: "b"})
	take()

	export := func(scope ledger.Scope) (ledger.Exported, []byte) {
		var b bytes.Buffer
		out, err := l.Export(ctx, d, scope, []string{vkey, "k2"}, logformat.NewWriter(&b), nil)
		require.NoError(t, err)
		r, err := logformat.Verify(bytes.NewReader(b.Bytes()), logformat.Options{Keys: []string{vkey}})
		require.NoError(t, err)
		require.True(t, r.OK, "%+v", r.Problems)
		return out, b.Bytes()
	}
	head := "header " + logformat.Format + " "
	out, b := export(ledger.Scope{OrgID: "acme"})
	require.Equal(t, ledger.Exported{Chains: 2, Entries: 3, Checkpoints: 3}, out)
	require.Equal(t, []string{
		head + "org:acme " + canon.ISO(at),
		"key " + vkey, "key k2",
		"checkpoint _system:acme", "checkpoint rocket", "checkpoint rocket",
		fmt.Sprintf("entry _system:acme 1 %d s []", s1.ID),
		fmt.Sprintf("entry rocket 1 %d a [%s %s]", r1.ID, m1, m2),
		fmt.Sprintf("entry rocket 2 %d b []", r2.ID),
		"end 3 entries 2 chains",
	}, bundleLines(t, b))
	recs := readBundle(t, b)
	latest, err := l.Latest(ctx, d, "rocket")
	require.NoError(t, err)
	require.Equal(t, latest, recs[5].Note, "checkpoints are written by size: the latest last")
	var r2Hash string
	require.NoError(t, d.NewRaw(`SELECT hash FROM entry_places WHERE entry_id = ?`, r2.ID).Scan(ctx, &r2Hash))
	require.Equal(t, r2Hash, recs[8].Hash)

	out, b = export(ledger.Scope{OrgID: "acme", ProjectID: "rocket"})
	require.Equal(t, ledger.Exported{Chains: 1, Entries: 2, Checkpoints: 2}, out)
	require.Equal(t, []string{
		head + "project:rocket " + canon.ISO(at),
		"key " + vkey, "key k2",
		"checkpoint rocket", "checkpoint rocket",
		fmt.Sprintf("entry rocket 1 %d a [%s %s]", r1.ID, m1, m2),
		fmt.Sprintf("entry rocket 2 %d b []", r2.ID),
		"end 2 entries 1 chains",
	}, bundleLines(t, b))
}

// A project with no entries is no chain of the bundle: nothing is counted
// and progress is told nothing (not a rest of 0).
func TestAnExportOfAProjectWithoutEntriesCountsNoChain(t *testing.T) {
	d := pgtest.New(t)
	seed(t, d)
	var b bytes.Buffer
	var told []int
	out, err := ledger.New(nil).Export(context.Background(), d, ledger.Scope{OrgID: "default", ProjectID: "web"}, nil,
		logformat.NewWriter(&b), func(n int) { told = append(told, n) })
	require.NoError(t, err)
	require.Equal(t, ledger.Exported{}, out)
	require.Empty(t, told)
	lines := bundleLines(t, b.Bytes())
	require.Len(t, lines, 2)
	require.Equal(t, "end 0 entries 0 chains", lines[1])
}

// Progress is told of every page (1000) of entries written and once of a
// chain's rest: a chain of exactly one page is one call of 1000 (no call
// of 0 after it), a shorter one one call of its size; an organization's
// export tells of each chain in turn. A nil progress is never called.
func TestAnExportReportsProgressEveryPageAndOnceForTheRest(t *testing.T) {
	ctx := context.Background()
	d := pgtest.New(t)
	seed(t, d)
	_, err := d.ExecContext(ctx, `INSERT INTO projects (id, org_id, name, created_by) VALUES
		('api', 'default', 'Api', 'ana'), ('few', 'default', 'Few', 'ana')`)
	require.NoError(t, err)
	l := ledger.New(nil)
	appendMany(t, d, l, "api", 1000)
	appendMany(t, d, l, "few", 3)
	export := func(scope ledger.Scope) (ledger.Exported, []int) {
		var told []int
		var b bytes.Buffer
		out, err := l.Export(ctx, d, scope, nil, logformat.NewWriter(&b), func(n int) { told = append(told, n) })
		require.NoError(t, err)
		return out, told
	}
	out, told := export(ledger.Scope{OrgID: "default", ProjectID: "api"})
	require.Equal(t, ledger.Exported{Chains: 1, Entries: 1000}, out)
	require.Equal(t, []int{1000}, told, "exactly one page")
	out, told = export(ledger.Scope{OrgID: "default", ProjectID: "few"})
	require.Equal(t, ledger.Exported{Chains: 1, Entries: 3}, out)
	require.Equal(t, []int{3}, told, "less than a page")
	out, told = export(ledger.Scope{OrgID: "default"})
	require.Equal(t, ledger.Exported{Chains: 2, Entries: 1003}, out)
	require.Equal(t, []int{1000, 3}, told, "chain by chain: api, then few")

	var b bytes.Buffer
	out, err = l.Export(ctx, d, ledger.Scope{OrgID: "default"}, nil, logformat.NewWriter(&b), nil)
	require.NoError(t, err)
	require.Equal(t, ledger.Exported{Chains: 2, Entries: 1003}, out)
	require.Len(t, readBundle(t, b.Bytes()), 1+1003+1)
}
